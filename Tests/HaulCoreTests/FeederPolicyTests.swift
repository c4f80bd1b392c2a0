import Testing

@testable import HaulCore

@Suite struct FeederPolicyTests {
  @Test func batchesGrowFrom16To256() {
    var policy = FeederPolicy()
    var sizes: [Int] = []
    for _ in 0..<7 {
      sizes.append(policy.batchSize)
      policy.batchRead()
    }
    #expect(sizes == [16, 32, 64, 128, 256, 256, 256])
  }

  @Test func aMostlySkippedBatchMakesTheNextOneParallel() {
    var policy = FeederPolicy()
    #expect(!policy.parallel)
    policy.admitted(skipped: 9, of: 16)
    #expect(policy.parallel)
    policy.admitted(skipped: 8, of: 16)
    #expect(!policy.parallel)
    policy.admitted(skipped: 0, of: 0)
    #expect(!policy.parallel)
  }

  @Test func heldEntriesAreCheckedAgainAfterPausesDoublingToASecond() {
    var policy = FeederPolicy()
    let pauses = (0..<7).map { _ in policy.nextHeldPause() }
    #expect(pauses == [0.05, 0.1, 0.2, 0.4, 0.8, 1, 1])
  }
}
