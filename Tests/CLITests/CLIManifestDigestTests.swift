import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run checks every digest a manifest gives: sha256, sha512, sha1, md5")
struct CLIManifestDigestTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-manifest-digests")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  @Test(arguments: transports)
  func each_algorithm_is_checked_right_and_wrong(transport: String) async throws {
    defer { cleanUp() }
    // Given, for each algorithm, a line whose digest is right and one whose digest is of
    // other bytes (no other digest on either line).
    let size: Int64 = 70_000
    var lines: [String] = []
    for (index, algorithm) in DigestAlgorithm.allCases.enumerated() {
      let seed = UInt64(10 + index)
      let right = digests(seed: seed, size: size)[algorithm]!
      let wrong = digests(seed: seed + 100, size: size)[algorithm]!
      lines.append(try line("right-\(algorithm)", size: size, seed: seed, [algorithm: right]))
      lines.append(try line("wrong-\(algorithm)", size: size, seed: seed, [algorithm: wrong]))
    }
    try writeManifest(lines, in: directory)

    let result = try await HaulBinary.run(runArguments(transport), in: directory)

    // Then each right file is in place with its digest verified, and each wrong one failed
    // naming its algorithm and source, with no file and no partial file left.
    #expect(result.status == 1, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    for (index, algorithm) in DigestAlgorithm.allCases.enumerated() {
      let seed = UInt64(10 + index)
      let right = 2 * index + 1
      let wrong = right + 1
      #expect(run.status(right) == "ok", "\(run.describe(right))")
      #expect(run.verified(right) == ["manifest:\(algorithm)"], "\(run.describe(right))")
      #expect(
        run.digests(right)?[algorithm.rawValue] == digests(seed: seed, size: size)[algorithm])
      #expect(holdsContent(directory.file("out/right-\(algorithm).bin"), seed: seed, size: size))
      #expect(run.code(wrong) == "checksum_mismatch", "\(run.describe(wrong))")
      let message = run.message(wrong) ?? ""
      #expect(message.hasPrefix("\(algorithm.displayName) "), "\(message)")
      #expect(message.hasSuffix("(manifest:\(algorithm))"), "\(message)")
      #expect(!exists(directory.file("out/wrong-\(algorithm).bin")))
      #expect(!exists(directory.file("out/wrong-\(algorithm).bin.haul-partial")))
    }
  }

  @Test(arguments: transports)
  func several_digests_are_computed_in_one_pass_and_each_is_checked(transport: String)
    async throws
  {
    defer { cleanUp() }
    // Given a large file (hashed beside the transfer) with all four digests right, and a
    // small one whose sha1 alone is wrong.
    let large: Int64 = 6 << 20
    let small: Int64 = 90_000
    let all = digests(seed: 30, size: large)
    var three = digests(seed: 31, size: small)
    three[.sha1] = digests(seed: 99, size: small)[.sha1]
    try writeManifest(
      [
        try line("all", size: large, seed: 30, all),
        try line("three", size: small, seed: 31, three),
      ], in: directory)

    let result = try await HaulBinary.run(runArguments(transport), in: directory)

    #expect(result.status == 1, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(
      run.verified(1) == ["manifest:sha256", "manifest:sha512", "manifest:sha1", "manifest:md5"])
    #expect(run.digests(1) == Dictionary(uniqueKeysWithValues: all.map { ($0.rawValue, $1) }))
    #expect(run.transfers[1]?["sha256"] as? String == all[.sha256])
    #expect(run.code(2) == "checksum_mismatch", "\(run.describe(2))")
    #expect(run.message(2)?.hasSuffix("(manifest:sha1)") == true, "\(run.describe(2))")
    #expect(!exists(directory.file("out/three.bin")))
    #expect(result.stderr.contains("1 verified"), "\(result.stderr)")
  }

  @Test func the_skip_check_computes_and_checks_every_digest_given() async throws {
    defer { cleanUp() }
    // Given two files already in place at the right size: "kept" with the content its
    // sha512 and md5 describe, "stale" with one byte changed from the content its sha1 and
    // md5 describe (neither line gives a sha256).
    let size: Int64 = 100_000
    let out = directory.file("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    try Data(TestContent.bytes(seed: 20, count: Int(size))).write(
      to: URL(fileURLWithPath: out + "/kept.bin"))
    var stale: [UInt8] = TestContent.bytes(seed: 21, count: Int(size))
    stale[50_000] ^= 0x01
    try Data(stale).write(to: URL(fileURLWithPath: out + "/stale.bin"))
    let kept = digests(seed: 20, size: size)
    let fresh = digests(seed: 21, size: size)
    try writeManifest(
      [
        try line("kept", size: size, seed: 20, [.sha512: kept[.sha512]!, .md5: kept[.md5]!]),
        try line("stale", size: size, seed: 21, [.sha1: fresh[.sha1]!, .md5: fresh[.md5]!]),
      ], in: directory)

    let result = try await HaulBinary.run(runArguments("curl"), in: directory)

    // Then the matching file is skipped with both digests verified and reported, and the
    // stale one is fetched again.
    #expect(result.status == 0, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "skipped", "\(run.describe(1))")
    #expect(run.verified(1) == ["manifest:sha512", "manifest:md5"])
    #expect(run.digests(1) == ["sha512": kept[.sha512]!, "md5": kept[.md5]!])
    #expect(server.requests(pathPrefix: "/data/kept").isEmpty)
    #expect(run.status(2) == "ok", "\(run.describe(2))")
    #expect(run.verified(2) == ["manifest:sha1", "manifest:md5"])
    #expect(server.requests(pathPrefix: "/data/stale").count == 1)
    #expect(holdsContent(out + "/stale.bin", seed: 21, size: size))
  }

  // MARK: Helpers

  /// A manifest line for `/data/<name>` saved as `<name>.bin`, with its size and `given`.
  private func line(_ name: String, size: Int64, seed: UInt64, _ given: DigestValues) throws
    -> String
  {
    var fields: [String: Any] = [
      "url": server.dataURL(name, size: size, seed: seed).absoluteString,
      "path": "\(name).bin", "size": size,
    ]
    for (algorithm, hex) in given { fields[algorithm.rawValue] = hex }
    return try manifestLine(fields)
  }

  /// Every digest of the first `size` bytes of content `seed`.
  private func digests(seed: UInt64, size: Int64) -> DigestValues {
    DeclaredDigestFields.digests(seed: seed, range: 0..<size)
  }
}

extension FaultRun {
  /// The transfer's `verified` list (empty when absent).
  func verified(_ line: Int) -> [String] { transfers[line]?["verified"] as? [String] ?? [] }

  /// The transfer's `digests` object.
  func digests(_ line: Int) -> [String: String]? {
    transfers[line]?["digests"] as? [String: String]
  }

  /// The transfer's error message.
  func message(_ line: Int) -> String? {
    (transfers[line]?["error"] as? [String: Any])?["message"] as? String
  }
}
