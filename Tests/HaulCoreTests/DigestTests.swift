import Foundation
import Testing

@testable import HaulCore

@Suite struct DigestTests {
  /// The digests of "abc" (FIPS 180-4 and RFC 1321 test vectors).
  static let abc: DigestValues = [
    .sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    .sha512: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
      + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
    .sha1: "a9993e364706816aba3e25717850c26c9cd0d89d",
    .md5: "900150983cd24fb0d6963f7d28e17f72",
  ]

  @Test(arguments: DigestAlgorithm.allCases)
  func streaming_digest_matches_the_standard_test_vector(_ algorithm: DigestAlgorithm) {
    #expect(StreamingDigest.hex(algorithm, of: "abc".utf8) == Self.abc[algorithm])
    #expect(Self.abc[algorithm]?.utf8.count == algorithm.hexLength)
  }

  @Test(arguments: DigestAlgorithm.allCases)
  func reset_starts_the_digest_over(_ algorithm: DigestAlgorithm) {
    let digest = StreamingDigest(algorithm)
    Array("something else".utf8).withUnsafeBytes { digest.update($0) }
    digest.reset()
    Array("abc".utf8).withUnsafeBytes { digest.update($0) }
    #expect(digest.finalize() == Self.abc[algorithm])
  }

  @Test func sha256_keeps_its_own_api() {
    let hasher = SHA256()
    Array("ab".utf8).withUnsafeBytes { hasher.update($0) }
    Array("c".utf8).withUnsafeBytes { hasher.update($0) }
    #expect(hasher.finalize() == Self.abc[.sha256])
    hasher.reset()
    #expect(hasher.finalize() == SHA256.hex(of: []))
    #expect(SHA256.hex(of: "abc".utf8) == Self.abc[.sha256])
  }

  @Test func digest_set_computes_every_algorithm_in_one_pass() {
    let set = DigestSet([.md5, .sha512, .sha256, .sha1, .md5])
    #expect(set.algorithms == [.sha256, .sha512, .sha1, .md5])
    Array("abc".utf8).withUnsafeBytes { set.update($0) }
    #expect(set.finalize() == Self.abc)
  }

  @Test func digest_set_fed_in_blocks_matches_each_digest_alone() {
    // Larger than one block and not a multiple of it, fed in uneven chunks.
    let bytes = (0..<(DigestSet.blockSize * 3 + 12_345)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let set = DigestSet(DigestAlgorithm.allCases)
    bytes.withUnsafeBytes { all in
      var offset = 0
      for size in [1, 7, DigestSet.blockSize + 3, 100_000, all.count] {
        let end = min(offset + size, all.count)
        set.update(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
        offset = end
      }
    }
    let values = set.finalize()
    for algorithm in DigestAlgorithm.allCases {
      #expect(values[algorithm] == StreamingDigest.hex(algorithm, of: bytes), "\(algorithm)")
    }
  }

  @Test func digest_set_reset_forgets_what_was_fed() {
    let set = DigestSet([.sha256, .md5])
    Array("not this".utf8).withUnsafeBytes { set.update($0) }
    _ = set.finalize()
    set.reset()
    Array("abc".utf8).withUnsafeBytes { set.update($0) }
    #expect(set.finalize() == [.sha256: Self.abc[.sha256]!, .md5: Self.abc[.md5]!])
  }

  @Test func empty_digest_set_gives_no_digest() {
    let set = DigestSet([])
    Array("abc".utf8).withUnsafeBytes { set.update($0) }
    #expect(set.isEmpty)
    #expect(set.finalize().isEmpty)
  }

  @Test func algorithm_is_known_by_its_hex_length() {
    #expect(DigestAlgorithm(hexLength: 64) == .sha256)
    #expect(DigestAlgorithm(hexLength: 128) == .sha512)
    #expect(DigestAlgorithm(hexLength: 40) == .sha1)
    #expect(DigestAlgorithm(hexLength: 32) == .md5)
    #expect(DigestAlgorithm(hexLength: 56) == nil)  // SHA-224 is not one haul computes
  }

  @Test func hex_of_the_right_length_is_kept_in_lower_case_and_anything_else_refused() {
    let md5 = Self.abc[.md5]!
    #expect(Hex.normalized(md5, length: 32) == md5)
    #expect(Hex.normalized(md5.uppercased(), length: 32) == md5)
    #expect(Hex.normalized(md5, length: 64) == nil)
    #expect(Hex.normalized(String(md5.dropLast()), length: 31) == String(md5.dropLast()))
    #expect(Hex.normalized(String(md5.dropLast()) + "g", length: 32) == nil)
    #expect(Hex.normalized(String(md5.dropLast()) + "é", length: 33) == nil)
    #expect(Hex.normalized("", length: 0) == "")
  }

  @Test func digest_values_iterate_in_canonical_order_and_fill_only_what_is_missing() {
    let mine: DigestValues = [.md5: "m", .sha256: "a"]
    #expect(mine.map(\.algorithm) == [.sha256, .md5])
    let merged = mine.filling(from: [.sha256: "other", .sha1: "s"])
    #expect(merged == [.sha256: "a", .sha1: "s", .md5: "m"])
    let all: DigestValues = [.md5: "m", .sha1: "s", .sha512: "f", .sha256: "a"]
    #expect(all.map(\.algorithm) == DigestAlgorithm.allCases)
  }

  @Test func verify_lists_every_source_when_all_match() throws {
    let expected = [
      ExpectedDigest(algorithm: .sha256, hex: Self.abc[.sha256]!, source: "manifest:sha256"),
      ExpectedDigest(
        algorithm: .sha512, hex: Self.abc[.sha512]!, source: "server:repr-digest:sha-512"),
    ]
    #expect(ExpectedDigest.algorithms(expected) == [.sha256, .sha512])
    #expect(
      try ExpectedDigest.verify(expected, against: Self.abc).get()
        == ["manifest:sha256", "server:repr-digest:sha-512"])
  }

  @Test func verify_names_the_algorithm_and_source_of_a_mismatch() {
    let wrong = String(repeating: "0", count: 40)
    let expected = [
      ExpectedDigest(algorithm: .sha256, hex: Self.abc[.sha256]!, source: "manifest:sha256"),
      ExpectedDigest(algorithm: .sha1, hex: wrong, source: "checksums:sha1"),
    ]
    guard case .failure(let mismatch) = ExpectedDigest.verify(expected, against: Self.abc) else {
      Issue.record("a wrong SHA-1 verified")
      return
    }
    #expect(mismatch.transferError.code == .checksumMismatch)
    #expect(mismatch.transferError.message.contains("SHA-1 \(Self.abc[.sha1]!), expected \(wrong)"))
    #expect(mismatch.transferError.message.contains("checksums:sha1"))
  }

  @Test func verify_treats_a_digest_not_computed_as_a_mismatch() {
    let expected = [ExpectedDigest(algorithm: .md5, hex: Self.abc[.md5]!, source: "manifest:md5")]
    guard case .failure(let mismatch) = ExpectedDigest.verify(expected, against: [:]) else {
      Issue.record("an MD5 that was never computed verified")
      return
    }
    #expect(mismatch.actual == nil)
    #expect(mismatch.description.contains("not computed"))
  }
}
