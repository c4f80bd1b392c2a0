import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// docs/behaviour.md, "Resume": a resumed file that fails its digest is fetched once more
/// from the first byte in the same run, told as one more attempt, before the entry fails.
@Suite("Resume gone bad: a resumed file that fails its digest is fetched again from zero")
struct ResumeRefetchTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-refetch")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  @Test(arguments: transports)
  func a_resumed_partial_corrupted_on_disk_is_fetched_once_more_and_the_rerun_succeeds(
    transport: String
  ) async throws {
    defer { cleanUp() }
    let size: Int64 = 400_000
    // The first answer breaks off after 200 000 bytes; later ones are whole.
    try writeManifest(
      [
        try dataLine(
          server, "bad", size: size, seed: 41, options: ["drop": "200000", "times": "1"])
      ],
      in: directory)
    let arguments = runArguments(transport, ["--retries", "0"])

    let first = try FaultRun(
      try await HaulBinary.run(arguments, in: directory), reportIn: directory)
    #expect(first.result.status == 1)
    #expect(first.status(1) == "failed", "\(first.describe(1))")
    let partial = directory.file("out/bad.bin.haul-partial")
    let kept = fileSize(partial)
    #expect(kept > 8192, "\(first.describe(1))")

    // 4 KiB of the kept bytes change on disk: the resume cannot end in the file's digest.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: partial))
    try handle.seek(toOffset: UInt64(kept / 2))
    try handle.write(contentsOf: Data(repeating: 0x5A, count: 4096))
    try handle.close()

    let rerun = try FaultRun(
      try await HaulBinary.run(arguments, in: directory), reportIn: directory)
    #expect(rerun.result.status == 0, "\(rerun.describe(1))")
    #expect(rerun.status(1) == "ok", "\(rerun.describe(1))")
    // The fetch from zero is one more attempt, though `--retries 0` allows none.
    #expect(rerun.attempts(1) == 2)
    let retries = rerun.retries(1)
    #expect(retries.map { $0["code"] as? String } == ["checksum_mismatch"])
    #expect(retries.map { $0["attempt"] as? Int } == [2])
    #expect(rerun.delays(1) == [0])
    #expect(holdsContent(directory.file("out/bad.bin"), seed: 41, size: size))
    #expect(!exists(partial))
    #expect(!exists(directory.file("out/bad.bin.haul-state")))
    // The broken first answer, the rerun's resume from the kept bytes, then the whole file.
    let requests = server.requests(pathPrefix: "/data/bad")
    #expect(requests.count == 3)
    #expect(requests.dropFirst().first?.value(for: "Range") == "bytes=\(kept)-")
    #expect(requests.last?.value(for: "Range") == nil)
  }
}
