import Foundation
import HaulTestSupport
import Testing

/// tus 1.0 uploads to a real tus server (aiohttp-tus, `Tests/tus/tus_server.py`) through the
/// built binary: sent in 4 MiB chunks, resumed after `kill -9` and after a server restart
/// from the offset the server names, with the checksum extension's failures retried.
@Suite("Resumable uploads: tus 1.0 against aiohttp-tus", .serialized)
struct ResumableTusTests {
  static let chunk: Int64 = 4 << 20

  func prepare(_ directory: TemporaryDirectory, size: Int64, seed: UInt64) throws -> String {
    try FileManager.default.createDirectory(
      atPath: directory.file("out"), withIntermediateDirectories: true)
    return try TestContent.writeFile(at: directory.file("out/big.bin"), seed: seed, count: size)
  }

  func manifest(_ tus: TusFixture, in directory: TemporaryDirectory) throws -> String {
    try writeManifest(
      [
        try manifestLine([
          "url": tus.creationURL.absoluteString, "op": "upload", "path": "big.bin",
          "resumable": "tus",
        ])
      ], in: directory)
  }

  /// The offset the state file of the one upload in `directory/out` records.
  func recordedOffset(_ directory: TemporaryDirectory) -> Int64 {
    let folder = directory.file("out/.haul/uploads")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    guard let name = names.first(where: { $0.hasSuffix(".json") }),
      let object = try? jsonFile(folder + "/" + name)
    else { return 0 }
    return (object["offset"] as? NSNumber)?.int64Value ?? 0
  }

  /// Starts `arguments` slowed by `--max-rate` and SIGKILLs haul once the state file records
  /// 3 chunks acknowledged; the offset recorded then.
  func uploadAndKill(_ arguments: [String], _ directory: TemporaryDirectory) async throws
    -> Int64
  {
    let running = try HaulBinary.start(arguments + ["--max-rate", "8M"], in: directory)
    await whenOffPool(
      { recordedOffset(directory) >= 3 * Self.chunk || !running.isRunning },
      timeout: 60, every: 0.02, then: { running.send(SIGKILL) })
    let killed = try await running.finish(timeout: 20)
    #expect(killed.status == SIGKILL, "haul ended before it was killed: \(killed.stderr)")
    return recordedOffset(directory)
  }

  /// The uploads the server holds unfinished.
  func unfinished(_ tus: TusFixture) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: tus.file(".resources"))) ?? []
  }

  func bytes(_ run: FaultRun) -> Int64 {
    (run.transfers[1]?["bytes"] as? NSNumber)?.int64Value ?? -1
  }

  @Test(arguments: transports)
  func an_upload_arrives_whole_in_chunks(transport: String) async throws {
    try await TusFixture.with { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus")
      defer { directory.remove() }
      let size = 2 * Self.chunk + 12_345
      let digest = try prepare(directory, size: size, seed: 31)
      let manifest = try manifest(tus, in: directory)

      let run = try FaultRun(
        try await HaulBinary.run(
          ["run", manifest, "-o", "out", "--transport", transport, "--report", "report.json"],
          in: directory), reportIn: directory)

      #expect(run.result.status == 0, "\(run.describe(1))")
      #expect(bytes(run) == size)
      #expect(FileDigest(path: tus.file("big.bin"))?.sha256 == digest)
      #expect(
        !FileManager.default.fileExists(atPath: directory.file("out/.haul")),
        "the state goes with the finished upload, and the folders that held it")
    }
  }

  /// docs/behaviour.md, "Paths": the upload's state is kept below the output directory's
  /// descriptor, so a symlink planted at `.haul` fails the upload with `path_refused` and
  /// nothing is written through it; a symlink in place of the file leading out is refused
  /// before any request.
  @Test func a_planted_haul_link_refuses_the_state_and_a_linked_file_is_never_sent()
    async throws
  {
    try await TusFixture.with { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus-planted")
      defer { directory.remove() }
      _ = try prepare(directory, size: Self.chunk + 9, seed: 40)
      let outside = directory.file("outside")
      try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
      try TestContent.writeFile(at: outside + "/secret.bin", seed: 41, count: 1000)
      try FileManager.default.createSymbolicLink(
        atPath: directory.file("out/.haul"), withDestinationPath: outside)
      try FileManager.default.createSymbolicLink(
        atPath: directory.file("out/leak.bin"), withDestinationPath: outside + "/secret.bin")
      let manifest = try writeManifest(
        [
          try manifestLine([
            "url": tus.creationURL.absoluteString, "op": "upload", "path": "big.bin",
            "resumable": "tus",
          ]),
          try manifestLine([
            "url": "http://127.0.0.1:9/leak.bin", "op": "upload", "path": "leak.bin",
            "resumable": "tus",
          ]),
        ], in: directory)

      let run = try FaultRun(
        try await HaulBinary.run(
          ["run", manifest, "-o", "out", "--report", "report.json", "--retries", "1"],
          in: directory), reportIn: directory)

      #expect(run.result.status == 1, "\(run.result.stderr)")
      for line in [1, 2] {
        #expect(run.code(line) == "path_refused", "\(run.describe(line))")
      }
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: outside) == ["secret.bin"],
        "nothing was written through the planted .haul")
      #expect(run.attempts(2) == 1, "\(run.describe(2))")
    }
  }

  @Test func the_run_option_sends_a_plain_upload_line_through_tus() async throws {
    try await TusFixture.with { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus-option")
      defer { directory.remove() }
      let digest = try prepare(directory, size: Self.chunk + 9, seed: 39)
      let manifest = try writeManifest(
        [
          try manifestLine([
            "url": tus.creationURL.absoluteString, "op": "upload", "path": "big.bin",
          ])
        ], in: directory)

      let run = try await HaulBinary.run(
        ["run", manifest, "-o", "out", "--resumable", "tus", "-q"], in: directory)

      #expect(run.status == 0, "\(run.stderr)")
      #expect(FileDigest(path: tus.file("big.bin"))?.sha256 == digest)
    }
  }

  @Test(arguments: transports)
  func a_killed_upload_resumes_from_the_offset_the_server_names(transport: String) async throws {
    try await TusFixture.with { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus-kill")
      defer { directory.remove() }
      let size = 10 * Self.chunk
      let digest = try prepare(directory, size: size, seed: 32)
      let manifest = try manifest(tus, in: directory)
      let arguments = [
        "run", manifest, "-o", "out", "--transport", transport, "--report", "report.json", "-q",
      ]
      let recorded = try await uploadAndKill(arguments, directory)
      #expect(recorded >= 3 * Self.chunk && recorded < size)

      let rerun = try FaultRun(
        try await HaulBinary.run(arguments, in: directory), reportIn: directory)

      #expect(rerun.result.status == 0, "\(rerun.describe(1))")
      #expect(FileDigest(path: tus.file("big.bin"))?.sha256 == digest)
      let sent = bytes(rerun)
      #expect(sent <= size - recorded, "only what the server lacked: \(sent)")
      #expect(sent >= size - recorded - Self.chunk, "at most one chunk more was stored: \(sent)")
    }
  }

  @Test func a_source_changed_since_the_killed_run_terminates_the_old_upload() async throws {
    try await TusFixture.with { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus-changed")
      defer { directory.remove() }
      let size = 10 * Self.chunk
      _ = try prepare(directory, size: size, seed: 36)
      let manifest = try manifest(tus, in: directory)
      let arguments = ["run", manifest, "-o", "out", "--report", "report.json", "-q"]
      _ = try await uploadAndKill(arguments, directory)
      #expect(unfinished(tus).count == 1)
      let digest = try TestContent.writeFile(
        at: directory.file("out/big.bin"), seed: 37, count: size)

      let rerun = try FaultRun(
        try await HaulBinary.run(arguments, in: directory), reportIn: directory)

      #expect(rerun.result.status == 0, "\(rerun.describe(1))")
      #expect(bytes(rerun) == size, "the new file is sent whole")
      #expect(FileDigest(path: tus.file("big.bin"))?.sha256 == digest)
      #expect(unfinished(tus).isEmpty, "the old upload was terminated: \(unfinished(tus))")
    }
  }

  @Test func an_upload_the_server_forgot_starts_anew() async throws {
    try await TusFixture.with { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus-forgot")
      defer { directory.remove() }
      let size = 10 * Self.chunk
      let digest = try prepare(directory, size: size, seed: 38)
      let manifest = try manifest(tus, in: directory)
      let arguments = ["run", manifest, "-o", "out", "--report", "report.json", "-q"]
      _ = try await uploadAndKill(arguments, directory)
      for folder in [".resources", ".metadata"] {
        try FileManager.default.removeItem(atPath: tus.file(folder))
      }
      try tus.restart()

      let rerun = try FaultRun(
        try await HaulBinary.run(arguments, in: directory), reportIn: directory)

      #expect(rerun.result.status == 0, "\(rerun.describe(1))")
      #expect(bytes(rerun) == size, "a new upload, sent whole")
      #expect(FileDigest(path: tus.file("big.bin"))?.sha256 == digest)
    }
  }

  @Test func a_server_restart_mid_upload_is_resumed_in_the_same_run() async throws {
    try await TusFixture.with { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus-restart")
      defer { directory.remove() }
      let size = 10 * Self.chunk
      let digest = try prepare(directory, size: size, seed: 33)
      let manifest = try manifest(tus, in: directory)
      let running = try HaulBinary.start(
        [
          "run", manifest, "-o", "out", "--report", "report.json", "--events", "--max-rate", "8M",
        ], in: directory)
      let reached = await whenOffPool(
        { recordedOffset(directory) >= 3 * Self.chunk || !running.isRunning },
        timeout: 60, every: 0.02)
      #expect(reached)
      try tus.restart()

      let run = try FaultRun(try await running.finish(), reportIn: directory)

      #expect(run.result.status == 0, "\(run.describe(1))")
      #expect((run.attempts(1) ?? 0) >= 2, "the broken connection cost an attempt")
      #expect(FileDigest(path: tus.file("big.bin"))?.sha256 == digest)
      #expect(bytes(run) < size + 2 * Self.chunk, "resumed, not sent again: \(bytes(run))")
    }
  }

  @Test func a_chunk_the_server_finds_damaged_is_sent_again() async throws {
    try await TusFixture.with(checksum: true, corrupt: 1) { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus-checksum")
      defer { directory.remove() }
      let size = 2 * Self.chunk + 1
      let digest = try prepare(directory, size: size, seed: 34)
      let manifest = try manifest(tus, in: directory)

      let run = try FaultRun(
        try await HaulBinary.run(
          ["run", manifest, "-o", "out", "--report", "report.json", "--events"], in: directory),
        reportIn: directory)

      #expect(run.result.status == 0, "\(run.describe(1))")
      #expect(run.retries(1).map { $0["code"] as? String } == ["checksum_mismatch"])
      #expect(FileDigest(path: tus.file("big.bin"))?.sha256 == digest)
    }
  }

  @Test func checksums_that_keep_failing_end_the_upload_and_abort_incomplete_terminates_it()
    async throws
  {
    try await TusFixture.with(checksum: true, corrupt: 1000) { tus in
      let directory = try TemporaryDirectory(prefix: "haul-tus-checksum-fails")
      defer { directory.remove() }
      _ = try prepare(directory, size: Self.chunk + 1, seed: 35)
      let manifest = try manifest(tus, in: directory)

      let run = try FaultRun(
        try await HaulBinary.run(
          [
            "run", manifest, "-o", "out", "--report", "report.json", "--retries", "1",
            "--abort-incomplete", "-q",
          ], in: directory), reportIn: directory)

      #expect(run.result.status == 1)
      #expect(run.code(1) == "checksum_mismatch", "\(run.describe(1))")
      let message = (run.transfers[1]?["error"] as? [String: Any])?["message"] as? String ?? ""
      #expect(message.contains("cancelled on the server"), "\(message)")
      let left =
        (try? FileManager.default.contentsOfDirectory(
          atPath: directory.file("out/.haul/uploads"))) ?? []
      #expect(!left.contains { $0.hasSuffix(".json") }, "terminated: no state kept")
      let resources =
        (try? FileManager.default.contentsOfDirectory(
          atPath: tus.file(".resources"))) ?? []
      #expect(resources.isEmpty, "the server dropped the upload: \(resources)")
    }
  }
}
