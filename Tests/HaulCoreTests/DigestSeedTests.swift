import Foundation
import Testing

@testable import HaulCore

/// Digests fed a seed first: git blob ids through the core's SHA-1, and entries whose
/// listing gives one.
@Suite struct DigestSeedTests {
  /// `printf 'hello\n' | git hash-object --stdin`.
  static let helloBlob = "ce013625030ba8dba906f756967f9e9ca394464a"
  /// `git hash-object /dev/null`.
  static let emptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"

  func digest(_ bytes: [UInt8], seed: DigestSeed?, algorithms: [DigestAlgorithm] = [.sha1])
    -> DigestValues
  {
    let set = DigestSet(algorithms, seed: seed)
    bytes.withUnsafeBytes { set.update($0) }
    return set.finalize()
  }

  @Test func a_git_blob_seed_makes_sha1_the_blob_id() {
    let hello = Array("hello\n".utf8)
    #expect(digest(hello, seed: .gitBlob(size: 6))[.sha1] == Self.helloBlob)
    #expect(digest([], seed: .gitBlob(size: 0))[.sha1] == Self.emptyBlob)
  }

  @Test func the_seed_is_fed_again_after_a_reset_and_only_to_its_algorithm() {
    let hello = Array("hello\n".utf8)
    let set = DigestSet([.sha256, .sha1], seed: .gitBlob(size: 6))
    hello.withUnsafeBytes { set.update($0) }
    _ = set.finalize()
    set.reset()
    hello.withUnsafeBytes { set.update($0) }
    let values = set.finalize()
    #expect(values[.sha1] == Self.helloBlob)
    #expect(values[.sha256] == StreamingDigest.hex(.sha256, of: hello))
  }

  @Test func a_listed_digest_is_expected_with_its_source_and_seed() {
    var entry = ManifestEntry(
      line: 1, text: "", url: URL(string: "https://h/f")!, path: "f", size: 6)
    entry.listedDigests = [ExpectedDigest(algorithm: .sha1, hex: Self.helloBlob, source: "hf:x")]
    entry.digestSeed = .gitBlob(size: 6)
    #expect(entry.expectedDigests[.sha1] == Self.helloBlob)
    #expect(entry.expectedDigestList.map(\.source) == ["hf:x"])
    #expect(entry.digestSeed == .gitBlob(size: 6))
    let set = DownloadAttempt.digests(for: entry, hashes: false, declared: nil)
    Array("hello\n".utf8).withUnsafeBytes { set?.update($0) }
    #expect(set?.finalize()[.sha1] == Self.helloBlob)
  }

  @Test func a_line_or_checksum_sha1_turns_the_seed_off() {
    var entry = ManifestEntry(
      line: 1, text: "", url: URL(string: "https://h/f")!, path: "f",
      checksumDigests: [.sha1: "00"])
    entry.listedDigests = [ExpectedDigest(algorithm: .sha1, hex: Self.helloBlob, source: "hf:x")]
    entry.digestSeed = .gitBlob(size: 6)
    #expect(entry.digestSeed == nil)
    #expect(entry.expectedDigestList.map(\.source) == ["checksums:sha1"])
  }
}
