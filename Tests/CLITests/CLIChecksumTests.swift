import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run and verify with --checksums files and several digests")
struct CLIChecksumTests {
  let directory: TemporaryDirectory

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-checksums")
  }

  /// Writes `lines` to `name` in the test's directory.
  private func write(_ name: String, _ lines: [String]) throws {
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: directory.file(name), atomically: true, encoding: .utf8)
  }

  @Test(arguments: transports)
  func a_checksum_file_gives_a_url_list_its_digests(transport: String) async throws {
    let server = try FaultServer.started()
    defer {
      server.stop()
      directory.remove()
    }
    // Given a bare URL list and a SHA256SUMS that is right for "good", wrong for "bad", and
    // names a file the list does not have.
    try write(
      "urls.txt",
      [
        server.dataURL("good", size: 70_000, seed: 5).absoluteString,
        server.dataURL("bad", size: 30_000, seed: 6).absoluteString,
      ])
    try write(
      "SHA256SUMS",
      [
        "\(TestContent.sha256(seed: 5, count: 70_000))  good",
        "\(TestContent.sha256(seed: 99, count: 30_000)) *./bad",
        "\(String(repeating: "0", count: 64))  elsewhere/not-listed.iso",
      ])

    // When the list is run with the checksum file.
    let result = try await HaulBinary.run(
      [
        "run", "urls.txt", "-o", "out", "--checksums", "SHA256SUMS", "--report", "report.json",
        "--transport", transport,
      ], in: directory)

    // Then the entries carry the digests: the wrong one fails, and its file is not put in place.
    #expect(result.status == 1, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.transfers[1]?["sha256"] as? String == TestContent.sha256(seed: 5, count: 70_000))
    #expect(run.code(2) == "checksum_mismatch", "\(run.describe(2))")
    #expect(holdsContent(directory.file("out/good"), seed: 5, size: 70_000))
    #expect(!exists(directory.file("out/bad")))
  }

  @Test func a_checksum_file_contradicting_the_manifest_stops_the_run() async throws {
    defer { directory.remove() }
    let wrong = String(repeating: "a", count: 32)
    try writeManifest(
      [
        #"{"url":"http://127.0.0.1:9/a.bin"}"#,
        #"{"url":"http://127.0.0.1:9/b.bin","md5":"\#(String(repeating: "B", count: 32))"}"#,
      ], in: directory)
    try write("MD5SUMS", ["# made by md5sum", "\(wrong)  b.bin"])

    let result = try await HaulBinary.run(
      ["run", "manifest.jsonl", "-o", "out", "--checksums", "MD5SUMS"], in: directory)

    #expect(result.status == 2)
    #expect(
      result.stderr.hasPrefix(#"manifest.jsonl:2: "md5" differs from the one at MD5SUMS:2"#),
      "\(result.stderr)")
    #expect(!exists(directory.file("out")))
  }

  @Test func a_bad_checksum_file_is_a_usage_error_naming_its_line() async throws {
    defer { directory.remove() }
    try writeManifest([#"{"url":"http://127.0.0.1:9/a.bin"}"#], in: directory)
    try write("SUMS", ["\(String(repeating: "a", count: 64))  a.bin", "not a checksum"])

    for command in ["run", "verify"] {
      let result = try await HaulBinary.run(
        [command, "manifest.jsonl", "-o", "out", "--checksums", "SUMS"], in: directory)
      #expect(result.status == 2, "\(command)")
      #expect(result.stderr.hasPrefix("SUMS:2: not a checksum line"), "\(result.stderr)")
    }
    let missing = try await HaulBinary.run(
      ["verify", "manifest.jsonl", "--checksums", "absent"], in: directory)
    #expect(missing.status == 2)
    #expect(missing.stderr.hasPrefix("absent: cannot open"), "\(missing.stderr)")
  }

  @Test func verify_checks_every_digest_from_the_manifest_and_the_checksum_files() async throws {
    defer { directory.remove() }
    let out = directory.file("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let bytes: [UInt8] = TestContent.bytes(seed: 8, count: 200_000)
    try Data(bytes).write(to: URL(fileURLWithPath: out + "/a.bin"))
    try Data(bytes).write(to: URL(fileURLWithPath: out + "/b.bin"))
    func hex(_ algorithm: DigestAlgorithm) -> String { StreamingDigest.hex(algorithm, of: bytes) }
    // a.bin: sha512 and md5 in the manifest, sha1 from SHA1SUMS, all right.
    // b.bin: a right sha256 in the manifest and a wrong sha1 in SHA1SUMS.
    try writeManifest(
      [
        try manifestLine([
          "url": "http://127.0.0.1:9/a.bin", "sha512": hex(.sha512).uppercased(),
          "md5": hex(.md5),
        ]),
        try manifestLine(["url": "http://127.0.0.1:9/b.bin", "sha256": hex(.sha256)]),
      ], in: directory)
    try write(
      "SHA1SUMS", ["\(hex(.sha1))  a.bin", "SHA1 (b.bin) = \(String(repeating: "0", count: 40))"])

    let good = try await HaulBinary.run(["verify", "manifest.jsonl", "-o", "out"], in: directory)
    #expect(good.status == 0, "\(good.stderr)")
    #expect(good.stderr.contains("2 files checked: 2 ok, 0 bad"))

    let checked = try await HaulBinary.run(
      ["verify", "manifest.jsonl", "-o", "out", "--checksums", "SHA1SUMS"], in: directory)
    #expect(checked.status == 1)
    #expect(checked.stderr.contains("b.bin: sha1 mismatch (checksums:sha1)"), "\(checked.stderr)")
    #expect(!checked.stderr.contains("a.bin:"), "\(checked.stderr)")

    // One wrong digest among several is found, whichever it is.
    var flipped = bytes
    flipped[123_456] ^= 0x01
    try Data(flipped).write(to: URL(fileURLWithPath: out + "/a.bin"))
    let corrupt = try await HaulBinary.run(
      ["verify", "manifest.jsonl", "-o", "out"], in: directory)
    #expect(corrupt.status == 1)
    #expect(
      corrupt.stderr.contains("a.bin: sha512 mismatch (manifest:sha512)"), "\(corrupt.stderr)")
  }

  @Test func help_of_run_and_verify_lists_checksums() async throws {
    defer { directory.remove() }
    for command in ["run", "verify"] {
      let help = try await HaulBinary.run([command, "--help"], in: directory)
      #expect(help.status == 0)
      #expect(help.stdout.contains("--checksums FILE"), "\(command): \(help.stdout)")
    }
  }
}
