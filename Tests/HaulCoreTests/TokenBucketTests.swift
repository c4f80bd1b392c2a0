import HaulCore
import Testing

@Suite("Token bucket: one byte budget for the whole run")
struct TokenBucketTests {
  @Test func within_the_burst_there_is_no_pause() {
    let bucket = TokenBucket(rate: 1000, burst: 500)
    #expect(bucket.charge(500, now: 0) == 0)
  }

  @Test func debt_is_paid_back_at_the_rate() {
    let bucket = TokenBucket(rate: 1000, burst: 500)
    #expect(bucket.charge(1500, now: 0) == 1.0)
    #expect(bucket.charge(0, now: 1.0) == 0)
  }

  @Test func the_long_run_rate_is_the_cap() {
    let bucket = TokenBucket(rate: 1_000_000, burst: 100_000)
    var now = 0.0
    var moved = 0
    while now < 10 {
      moved += 65_536
      now += bucket.charge(65_536, now: now)
    }
    let rate = Double(moved) / now
    #expect(rate > 980_000 && rate < 1_020_000)
  }

  @Test func quiet_time_refills_only_up_to_the_burst() {
    let bucket = TokenBucket(rate: 100, burst: 50)
    #expect(bucket.charge(50, now: 0) == 0)
    #expect(bucket.charge(60, now: 100) == 0.1)
  }
}
