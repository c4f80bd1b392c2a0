import Foundation
import HaulTestSupport
import Testing

/// aria2p, aria2's Python client, drives `haul serve --aria2-rpc` unchanged: adds, lists,
/// pauses, resumes and removes downloads and reads a completed one's files
/// (`aria2/aria2p_drive.py`), and listens to the notifications over WebSocket
/// (`aria2/aria2p_notify.py`).
@Suite("aria2 JSON-RPC: aria2p drives haul")
struct Aria2pTests {
  @Test func aria2p_adds_lists_pauses_resumes_removes_and_reads_files() async throws {
    let check = try python3(["-c", "import aria2p"])
    try #require(
      check.status == 0,
      "aria2p is missing: PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install aria2p")
    let directory = try TemporaryDirectory(prefix: "haul-aria2p")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      _ = try nginx.createFile("a/complete.bin", size: 200_000, seed: 3)
      _ = try nginx.createFile("a/slow.bin", size: 4_000_000, seed: 4)
      let (daemon, haul) = try Aria2Server.haul(in: directory)
      // A test that stops early leaves no daemon behind.
      defer { if daemon.process?.isRunning == true { daemon.process?.send(SIGKILL) } }
      let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("aria2/aria2p_drive.py").path
      let run = try python3([
        script, String(haul.port), haul.secret, nginx.url("/a/complete.bin").absoluteString,
        "200000",
        nginx.url("/a/slow.bin").absoluteString,
      ])
      #expect(run.status == 0, "\(run.output)")
      #expect(run.output.contains("ok: stats"), "\(run.output)")
      #expect(
        try fileSHA256(directory.file("root/done/complete.bin"))
          == fileSHA256(nginx.root + "/a/complete.bin"))
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  @Test func aria2ps_listener_hears_start_complete_error_pause_and_stop() async throws {
    let check = try python3(["-c", "import aria2p, websocket"])
    try #require(
      check.status == 0,
      "aria2p is missing: PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install aria2p")
    let directory = try TemporaryDirectory(prefix: "haul-aria2p-notify")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try await listen(nginx, in: directory)
    }
  }

  private func listen(_ nginx: NginxFixture, in directory: TemporaryDirectory) async throws {
    _ = try nginx.createFile("n/complete.bin", size: 100_000, seed: 6)
    _ = try nginx.createFile("n/slow.bin", size: 4_000_000, seed: 7)
    let (daemon, haul) = try Aria2Server.haul(in: directory)
    defer { if daemon.process?.isRunning == true { daemon.process?.send(SIGKILL) } }
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("aria2/aria2p_notify.py").path
    let run = try python3([
      script, String(haul.port), haul.secret, nginx.url("/n/complete.bin").absoluteString,
      nginx.url("/n/missing.bin").absoluteString, nginx.url("/n/slow.bin").absoluteString,
    ])
    #expect(run.status == 0, "\(run.output)")
    #expect(run.output.contains("ok: stopped listening"), "\(run.output)")
    #expect(try await daemon.terminate()?.status == 0)
  }
}
