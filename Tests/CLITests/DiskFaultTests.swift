import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// Local faults: a full disk, a read-only or forbidden output, a file-size limit, a closed
/// standard output. None is retried over the network, none leaves a corrupt file in place,
/// and none kills the process.
///
/// The small and read-only file systems are tmpfs mounts in a mount namespace of haul's own
/// (`unshare -Urm`), so the test needs no privileges and leaves nothing mounted; what haul
/// left behind is copied out to `snapshot/` before the namespace ends.
@Suite("Disk faults: disk_full and io without retries, nothing corrupt in place")
struct DiskFaultTests {
  let directory: TemporaryDirectory
  let server: FaultServer

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-fault-disk")
    server = try FaultServer.started()
  }

  func cleanUp() {
    server.stop()
    directory.remove()
  }

  func snapshot(_ path: String) -> String { directory.file("snapshot/" + path) }

  @Test(arguments: transports)
  func a_full_disk_fails_with_disk_full_once_and_the_partial_resumes_later(transport: String)
    async throws
  {
    defer { cleanUp() }
    let big: Int64 = 2 << 20
    let lines = [
      // Known to be larger than the 1 MiB file system: refused before any request.
      try dataLine(server, "huge", size: 4 << 20, seed: 40),
      // Size unknown: fills the disk mid-body.
      try dataLine(server, "filler", size: big, seed: 42, declareSize: false),
    ]
    try writeManifest(lines, in: directory)
    let haul = "\"$HAUL\" run manifest.jsonl -o out --events --transport \(transport)"
    let result = try await runShell(
      """
      mkdir -p out snapshot snapshot2
      exec unshare -Urm sh -c '
        mount -t tmpfs -o size=1m haul-test out || exit 99
        \(haul) --retries 3 --report report.json
        status=$?
        cp -a out/. snapshot/
        mount -o remount,size=8m out || exit 98
        \(haul) --retries 0 --report report2.json > events2.jsonl
        cp -a out/. snapshot2/
        exit $status'
      """, in: directory)
    #expect(result.status == 1, "\(result.stderr)")

    let run = try FaultRun(result, reportIn: directory)
    #expect(run.code(1) == "disk_full", "\(run.describe(1))")
    // Requested once in all: by the rerun, which had room for it.
    #expect(server.requests(pathPrefix: "/data/huge").count == 1)
    #expect(run.code(2) == "disk_full", "\(run.describe(2))")
    #expect(run.attempts(2) == 1)
    #expect(run.retries(2).isEmpty)
    // One request in the first run, one (the resume) in the rerun.
    #expect(server.requests(pathPrefix: "/data/filler").count == 2)
    #expect(server.requests(pathPrefix: "/data/filler").first?.value(for: "Range") == nil)

    // Nothing at the destination; the partial is an exact prefix and its state is sound.
    #expect(!exists(snapshot("filler.bin")))
    let partial = fileSize(snapshot("filler.bin.haul-partial"))
    #expect(partial > 0 && partial <= 1 << 20)
    #expect(holdsContent(snapshot("filler.bin.haul-partial"), seed: 42, size: partial))
    let stateBytes = try Data(contentsOf: URL(fileURLWithPath: snapshot("filler.bin.haul-state")))
    let state = try #require(ResumeState.decode(Array(stateBytes)))
    #expect(state.validator != nil)
    #expect(state.url == server.dataURL("filler", size: big, seed: 42).absoluteString)

    // With room again, the rerun resumes from the partial's length and completes.
    let rerun = try FaultRun(
      HaulResult(status: 0, stdout: "", stderr: ""), reportIn: directory, named: "report2.json")
    #expect(rerun.status(2) == "ok", "\(rerun.describe(2))")
    #expect(
      server.requests(pathPrefix: "/data/filler").last?.value(for: "Range") == "bytes=\(partial)-")
    #expect(holdsContent(directory.file("snapshot2/filler.bin"), seed: 42, size: big))
    #expect(rerun.status(1) == "ok", "\(rerun.describe(1))")
  }

  @Test(arguments: transports)
  func a_read_only_output_fails_with_io_without_a_request(transport: String) async throws {
    defer { cleanUp() }
    let lines = [
      try dataLine(server, "ro", size: 1000, seed: 43, path: "sub/ro.bin"),
      try dataLine(server, "newdir", size: 1000, seed: 44, path: "new/newdir.bin"),
    ]
    try writeManifest(lines, in: directory)
    let result = try await runShell(
      """
      mkdir -p out
      exec unshare -Urm sh -c '
        mount -t tmpfs haul-test out && mkdir out/sub && mount -o remount,ro out || exit 99
        exec "$HAUL" run manifest.jsonl -o out --report report.json --events \\
          --transport \(transport) --retries 3'
      """, in: directory)
    #expect(result.status == 1, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    for line in [1, 2] {
      #expect(run.code(line) == "io", "\(run.describe(line))")
      #expect(run.retries(line).isEmpty)
      #expect((run.attempts(line) ?? 9) <= 1)
    }
    #expect(server.requests.isEmpty)
  }

  @Test(arguments: transports)
  func a_forbidden_output_folder_fails_with_io_without_a_request(transport: String) async throws {
    defer { cleanUp() }
    let lines = [try dataLine(server, "denied", size: 1000, seed: 45, path: "locked/denied.bin")]
    try writeManifest(lines, in: directory)
    // haul runs as `nobody`; the folder it must write into belongs to root, mode 0755.
    let result = try await runShell(
      """
      chmod 755 . && mkdir -p out/locked reports && chmod 777 out reports && chmod 644 manifest.jsonl
      exec setpriv --reuid=65534 --regid=65534 --clear-groups "$HAUL" run manifest.jsonl \\
        -o out --report reports/report.json --events --transport \(transport) --retries 3
      """, in: directory)
    #expect(result.status == 1, "\(result.stderr)")
    let run = try FaultRun(result, reportIn: directory, named: "reports/report.json")
    #expect(run.code(1) == "io", "\(run.describe(1))")
    #expect(run.retries(1).isEmpty)
    #expect(server.requests.isEmpty)
    #expect(!exists(directory.file("out/locked/denied.bin")))
  }

  @Test(arguments: transports)
  func a_file_size_limit_is_an_io_error_not_a_killed_process(transport: String) async throws {
    defer { cleanUp() }
    let lines = [
      try dataLine(server, "limited", size: 1 << 20, seed: 46, declareSize: false),
      try dataLine(server, "fits", size: 10_000, seed: 47),
    ]
    try writeManifest(lines, in: directory)
    let result = try await runShell(
      """
      exec prlimit --fsize=300000 "$HAUL" run manifest.jsonl -o out --report report.json \\
        --events --transport \(transport) --retries 3
      """, in: directory)
    #expect(result.status == 1, "killed by a signal? \(result.status): \(result.stderr)")
    let run = try FaultRun(result, reportIn: directory)
    #expect(run.code(1) == "io", "\(run.describe(1))")
    #expect(run.attempts(1) == 1)
    #expect(!exists(directory.file("out/limited.bin")))
    #expect(run.status(2) == "ok")
    #expect(holdsContent(directory.file("out/fits.bin"), seed: 47, size: 10_000))
  }

  @Test(arguments: transports)
  func a_closed_standard_output_does_not_kill_the_run(transport: String) async throws {
    defer { cleanUp() }
    let lines = try (0..<6).map { index in
      try dataLine(
        server, "piped\(index)", size: 50_000, seed: UInt64(50 + index),
        options: ["wait": "0.1"])
    }
    try writeManifest(lines, in: directory)
    // `head` reads one byte and leaves: every later event meets a closed pipe (EPIPE).
    let result = try await runShell(
      """
      ( "$HAUL" run manifest.jsonl -o out --events --transport \(transport) -j 2
        echo $? > status ) | head -c 1 > /dev/null
      sleep 0.1; while [ ! -s status ]; do sleep 0.05; done
      exit "$(cat status)"
      """, in: directory)
    #expect(result.status == 0, "haul ended with \(result.status) (141: SIGPIPE)")
    for index in 0..<6 {
      #expect(
        holdsContent(
          directory.file("out/piped\(index).bin"), seed: UInt64(50 + index), size: 50_000))
    }
  }
}
