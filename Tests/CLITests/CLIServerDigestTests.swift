import Foundation
import HaulCore
import HaulTestSupport
import Testing

@Suite("haul run checks the digests a server declares, in every header form")
struct CLIServerDigestTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-cli-server-digests")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  /// Each fault-server form (`declare=FORM`), the algorithm it declares and the source the
  /// report names.
  static let forms: [(form: String, algorithm: DigestAlgorithm, source: String)] = [
    ("repr-sha-256", .sha256, "server:repr-digest:sha-256"),
    ("repr-sha-512", .sha512, "server:repr-digest:sha-512"),
    ("content-sha-256", .sha256, "server:content-digest:sha-256"),
    ("content-sha-512", .sha512, "server:content-digest:sha-512"),
    ("digest-sha-256", .sha256, "server:digest:sha-256"),
    ("digest-sha-512", .sha512, "server:digest:sha-512"),
    ("digest-md5", .md5, "server:digest:md5"),
    ("goog-md5", .md5, "server:x-goog-hash:md5"),
    ("amz-sha256", .sha256, "server:x-amz-checksum-sha256"),
  ]

  @Test(arguments: transports)
  func each_header_form_is_checked_right_and_wrong(transport: String) async throws {
    defer { cleanUp() }
    // Given, for each form, a file whose server declares its right digest and one whose
    // server declares the digest of other bytes; the manifest gives no digest. The last
    // line is large, hashed beside the transfer.
    let size: Int64 = 80_000
    var lines: [String] = []
    for (index, form) in Self.forms.enumerated() {
      let seed = UInt64(40 + index)
      lines.append(try line("right-\(form.form)", size: size, seed: seed, ["declare": form.form]))
      lines.append(
        try line(
          "wrong-\(form.form)", size: size, seed: seed,
          ["declare": form.form, "declareWrong": "1"]))
    }
    let large: Int64 = 6 << 20
    lines.append(try line("large", size: large, seed: 39, ["declare": "repr-sha-512"]))
    try writeManifest(lines, in: directory)

    let result = try await HaulBinary.run(runArguments(transport), in: directory)

    // Then each right file is verified against its field, each wrong one fails naming it
    // and leaves no file, and every request asked for the server's digests.
    #expect(result.status == 1, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    for (index, form) in Self.forms.enumerated() {
      let seed = UInt64(40 + index)
      let right = 2 * index + 1
      let wrong = right + 1
      #expect(run.status(right) == "ok", "\(form.form): \(run.describe(right))")
      #expect(run.verified(right) == [form.source], "\(run.describe(right))")
      #expect(
        run.digests(right)?[form.algorithm.rawValue]
          == DeclaredDigestFields.digests(seed: seed, range: 0..<size)[form.algorithm])
      #expect(holdsContent(directory.file("out/right-\(form.form).bin"), seed: seed, size: size))
      #expect(run.code(wrong) == "checksum_mismatch", "\(form.form): \(run.describe(wrong))")
      #expect(run.message(wrong)?.hasSuffix("(\(form.source))") == true, "\(run.describe(wrong))")
      #expect(!exists(directory.file("out/wrong-\(form.form).bin")))
      #expect(!exists(directory.file("out/wrong-\(form.form).bin.haul-partial")))
    }
    let last = Self.forms.count * 2 + 1
    #expect(run.status(last) == "ok", "\(run.describe(last))")
    #expect(run.verified(last) == ["server:repr-digest:sha-512"])
    let requests = server.requests(pathPrefix: "/data/")
    #expect(requests.count == last)
    #expect(requests.allSatisfy { $0.value(for: "Want-Repr-Digest") == "sha-256=9, sha-512=5" })
  }

  @Test(arguments: transports)
  func malformed_digest_fields_are_ignored(transport: String) async throws {
    defer { cleanUp() }
    try writeManifest(
      [try line("odd", size: 50_000, seed: 50, ["declare": "malformed"])], in: directory)

    let result = try await HaulBinary.run(runArguments(transport), in: directory)

    #expect(result.status == 0, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.verified(1) == [])
    #expect(run.digests(1)?.keys.sorted() == ["sha256"])
    #expect(holdsContent(directory.file("out/odd.bin"), seed: 50, size: 50_000))
  }

  @Test(arguments: transports)
  func no_server_digests_neither_asks_for_nor_checks_them(transport: String) async throws {
    defer { cleanUp() }
    // Given a server that declares wrong digests: a run that reads them fails,
    let options = ["declare": "repr-sha-256,digest-md5", "declareWrong": "1"]
    try writeManifest([try line("lying", size: 60_000, seed: 51, options)], in: directory)
    let checked = try await HaulBinary.run(runArguments(transport), in: directory)
    #expect(checked.status == 1, "\(checked.stderr)")
    #expect(try FaultRun(checked, reportIn: directory).code(1) == "checksum_mismatch")

    // and one with --no-server-digests neither asks for them nor checks them.
    let before = server.requests.count
    let result = try await HaulBinary.run(
      runArguments(transport, ["--no-server-digests"]), in: directory)

    #expect(result.status == 0, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.verified(1) == [])
    #expect(run.digests(1)?.keys.sorted() == ["sha256"])
    let sent = server.requests.dropFirst(before)
    #expect(sent.count == 1)
    #expect(sent.allSatisfy { $0.value(for: "Want-Repr-Digest") == nil })
    let help = try await HaulBinary.run(["run", "--help"], in: directory)
    #expect(help.stdout.contains("--no-server-digests"), "\(help.stdout)")
  }

  @Test(arguments: transports)
  func a_resume_after_a_cut_checks_the_digest_its_first_response_declared(transport: String)
    async throws
  {
    defer { cleanUp() }
    // Given a 200 that declares the whole file's Content-Digest and is cut after 300,000
    // bytes; the resumed 206's Content-Digest covers only its part.
    let size: Int64 = 1_000_000
    try writeManifest(
      [
        try line(
          "cut", size: size, seed: 52,
          ["declare": "content-sha-256", "drop": "300000", "times": "1"])
      ], in: directory)

    let result = try await HaulBinary.run(runArguments(transport), in: directory)

    // Then the rest is fetched with a range and the file is verified against the first
    // response's digest (kept in the resume state), never the part's.
    #expect(result.status == 0, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.attempts(1) == 2)
    #expect(run.verified(1) == ["server:content-digest:sha-256"])
    let requests = server.requests(pathPrefix: "/data/cut")
    #expect(requests.count == 2)
    #expect(requests.last?.status == 206)
    #expect(requests.last?.value(for: "Range")?.hasPrefix("bytes=0-") == false)
    #expect(holdsContent(directory.file("out/cut.bin"), seed: 52, size: size))
  }

  @Test(arguments: transports)
  func a_resume_keeps_the_digest_first_seen_even_when_the_206_declares_another(
    transport: String
  ) async throws {
    defer { cleanUp() }
    // Given a first response that declares a wrong Repr-Digest and is cut, and a resumed
    // 206 that declares the right one for the same version.
    try writeManifest(
      [
        try line(
          "changed", size: 1_000_000, seed: 53,
          ["declare": "repr-sha-256", "declareWrong": "1", "drop": "300000", "times": "1"])
      ], in: directory)

    let result = try await HaulBinary.run(runArguments(transport), in: directory)

    // The resumed file is checked against the first digest seen and fails; fetched once
    // more from zero, it is checked against what that answer declares.
    #expect(result.status == 0, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.attempts(1) == 3)
    #expect(run.retries(1).last?["code"] as? String == "checksum_mismatch")
    #expect(server.requests(pathPrefix: "/data/changed").map(\.status) == [200, 206, 200])
    #expect(run.verified(1) == ["server:repr-digest:sha-256"])
    #expect(holdsContent(directory.file("out/changed.bin"), seed: 53, size: 1_000_000))
    #expect(!exists(directory.file("out/changed.bin.haul-partial")))
  }

  @Test(arguments: transports)
  func a_resumed_206_adds_its_md5_over_the_prefix_and_ignores_its_content_digest(
    transport: String
  ) async throws {
    defer { cleanUp() }
    // Given a partial file left by a run that did not read server digests (cut after
    // 300,000 bytes, no retry), from a server that declares the file's MD5 and the
    // Content-Digest of what it sends (on a 206, the part),
    let size: Int64 = 1_000_000
    try writeManifest(
      [
        try line(
          "later", size: size, seed: 54,
          ["declare": "digest-md5,content-sha-256", "drop": "300000", "times": "1"])
      ], in: directory)
    let first = try await HaulBinary.run(
      runArguments(transport, ["--no-server-digests", "--retries", "0"]), in: directory)
    #expect(first.status == 1, "\(first.stderr)")
    #expect(fileSize(directory.file("out/later.bin.haul-partial")) > 0)

    // when a run that reads them resumes it and its 206 declares the file's MD5,
    let result = try await HaulBinary.run(runArguments(transport), in: directory)

    // then the MD5 covers the prefix already on disk too, and the part's Content-Digest is
    // not taken for the file's.
    #expect(result.status == 0, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.verified(1) == ["server:digest:md5"])
    #expect(
      run.digests(1)?["md5"] == DeclaredDigestFields.digests(seed: 54, range: 0..<size)[.md5])
    #expect(server.requests(pathPrefix: "/data/later").last?.status == 206)
  }

  @Test(arguments: transports)
  func a_segmented_download_checks_the_probes_repr_digest_not_its_content_digest(
    transport: String
  ) async throws {
    defer { cleanUp() }
    // Given two 8 MiB files whose server declares Repr-Digest and Content-Digest (which, on
    // the probe's and the segments' 206s, cover one part); the second's Repr-Digest is wrong.
    let size: Int64 = 8 << 20
    let declare = "repr-sha-512,content-sha-256"
    try writeManifest(
      [
        try line("split", size: size, seed: 55, ["declare": declare]),
        try line("bad", size: size, seed: 56, ["declare": declare, "declareWrong": "1"]),
      ], in: directory)

    let result = try await HaulBinary.run(
      runArguments(transport, ["--segments", "4", "--min-segment-size", "1M"]), in: directory)

    #expect(result.status == 1, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.verified(1) == ["server:repr-digest:sha-512"])
    #expect(server.requests(pathPrefix: "/data/split").count == 5)
    #expect(run.code(2) == "checksum_mismatch", "\(run.describe(2))")
    #expect(run.message(2)?.hasSuffix("(server:repr-digest:sha-512)") == true)
    #expect(!exists(directory.file("out/bad.bin")))
    #expect(
      await SegmentTests.digest(directory.file("out/split.bin"))
        == DeclaredDigestFields.digests(seed: 55, range: 0..<size)[.sha256])
  }

  @Test(arguments: transports)
  func a_killed_segmented_download_keeps_the_probes_digest_for_the_rest(transport: String)
    async throws
  {
    defer { cleanUp() }
    // Given a segmented run killed once each segment saved what came before its stall (the
    // probe and the four segments stall; later requests do not),
    let size: Int64 = 8 << 20
    try writeManifest(
      [
        try line(
          "halted", size: size, seed: 57,
          [
            "declare": "repr-sha-512", "stall": "\(SegmentTests.stallBytes)", "stallSeconds": "120",
            "times": "5",
          ])
      ], in: directory)
    // The stalls (and --timeout) outlast any late kill on a loaded machine.
    let arguments = runArguments(
      transport, ["--segments", "4", "--min-segment-size", "1M", "--timeout", "120"])
    let running = try HaulBinary.start(arguments, in: directory)
    let statePath = directory.file("out/halted.bin.haul-state")
    await SegmentTests.killWhenEverySegmentSaved(running, statePath: statePath)
    _ = try await running.finish(timeout: 10)
    let saved = FileManager.default.contents(atPath: statePath).flatMap {
      ResumeState.decode(Array($0))
    }
    #expect(saved?.server?.map(\.source) == ["server:repr-digest:sha-512"])

    // when it runs again (no probe: the state has the plan),
    let before = server.requests.count
    let result = try await HaulBinary.run(arguments, in: directory)

    // then the whole file is checked against the digest the probe declared.
    #expect(result.status == 0, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.status(1) == "ok", "\(run.describe(1))")
    #expect(run.verified(1) == ["server:repr-digest:sha-512"])
    #expect(!server.requests.dropFirst(before).contains { $0.value(for: "Range") == "bytes=0-0" })
  }

  // MARK: Helpers

  /// A manifest line for `/data/<name>` with `options`, saved as `<name>.bin`, with its size
  /// and no digest.
  private func line(_ name: String, size: Int64, seed: UInt64, _ options: [String: String])
    throws -> String
  {
    try dataLine(server, name, size: size, seed: seed, options: options, declareDigest: false)
  }
}
