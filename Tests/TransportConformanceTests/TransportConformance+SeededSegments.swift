import Foundation
import HaulCore
import HaulTestSupport
import Testing

extension TransportConformance {
  /// A download checked against a seeded digest (a Hugging Face listing's git blob id) ends
  /// the same in one stream and in segments: the blob id verified, and the report's
  /// digests the file's own, without the seeded SHA-1 (both go through
  /// `DownloadAttempt.finish`).
  @Test(arguments: TransportKind.allCases, [1, 3])
  func a_seeded_digest_is_verified_and_left_out_of_the_digests_in_one_stream_or_in_parts(
    _ kind: TransportKind, segments: Int
  ) async throws {
    try await withFaultServer { server in
      try await withScratch { scratch in
        let size = 3 << 20
        let url = server.dataURL("blob", size: Int64(size), seed: 5)
        let blob = DigestSet([.sha1], seed: .gitBlob(size: Int64(size)))
        TestContent.bytes(seed: 5, count: size).withUnsafeBytes { blob.update($0) }
        let blobID = try #require(blob.finalize()[.sha1])
        var entry = ManifestEntry(
          line: 1, text: "{\"url\":\"\(url)\"}", url: url, path: "blob.bin", size: Int64(size))
        entry.listedDigests = [ExpectedDigest(algorithm: .sha1, hex: blobID, source: "hf:blob")]
        entry.digestSeed = .gitBlob(size: Int64(size))
        let options = SchedulerOptions(
          outputDirectory: scratch.file("out"), retries: 0, segments: segments,
          minSegmentSize: 1 << 20)
        let outcome = try await kind.withTransport { transport in
          var outcome: EntryOutcome?
          for await event in Scheduler(transport: transport, options: options).run([entry]) {
            if case .finished(let value) = event { outcome = value }
          }
          return outcome
        }
        #expect(outcome?.status == .ok, "\(String(describing: outcome?.error))")
        #expect(outcome?.verified == ["hf:blob"])
        #expect(outcome?.digests[.sha1] == nil)
        #expect(outcome?.sha256 == TestContent.sha256(seed: 5, count: Int64(size)))
        let ranged = server.requests(pathPrefix: "/data/blob").filter {
          $0.value(for: "Range") != nil
        }
        // In parts: the probe and a range per segment.
        #expect(ranged.count == (segments > 1 ? 1 + segments : 0))
      }
    }
  }
}
