import Foundation
import HaulTestSupport
import Testing

/// aria2's JSON-RPC over WebSocket on `haul serve --aria2-rpc`, driven by websocket-client
/// (the library aria2p uses): a session compared with the real aria2c's, the upgrade refused
/// from a foreign origin, and many WebSocket and event-stream clients served while a
/// thousand-file job runs.
@Suite("aria2 JSON-RPC over WebSocket")
struct Aria2WebSocketTests {
  private static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("aria2")

  private func requireWebSocketClient() throws {
    try #require(
      try python3(["-c", "import websocket, aria2p"]).status == 0,
      "websocket-client is missing: PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install aria2p")
  }

  /// `ws_session.py` against `server`: its answers and notifications.
  private func session(_ server: Aria2Server, url: String) throws -> [String: Any] {
    let run = try python3([
      Self.scripts.appendingPathComponent("ws_session.py").path, String(server.port),
      server.secret, url,
    ])
    #expect(run.status == 0, "\(run.output)")
    let line = run.output.split(separator: "\n").last.map(String.init) ?? ""
    return try #require(
      try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.output)")
  }

  /// JSON text with sorted keys, the download's GID replaced by `GID`, for comparing.
  private func canonical(_ value: Any?, gid: String? = nil) throws -> String {
    guard let value else { return "nil" }
    let data = try JSONSerialization.data(
      withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    let text = String(decoding: data, as: UTF8.self)
    return gid.map { text.replacingOccurrences(of: $0, with: "GID") } ?? text
  }

  @Test func a_session_and_its_notifications_match_aria2cs() async throws {
    try requireWebSocketClient()
    let directory = try TemporaryDirectory(prefix: "haul-aria2-ws")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      _ = try nginx.createFile("ws/complete.bin", size: 100_000, seed: 5)
      try await compareSessions(nginx.url("/ws/complete.bin").absoluteString, in: directory)
    }
  }

  private func compareSessions(_ url: String, in directory: TemporaryDirectory) async throws {
    let theirs = try await Aria2Server.withAria2c(dir: directory.file("aria2c")) {
      try session($0, url: url)
    }
    let (daemon, haul) = try Aria2Server.haul(in: directory)
    defer { if daemon.process?.isRunning == true { daemon.process?.send(SIGKILL) } }
    let ours = try session(haul, url: url)

    for key in ["listNotifications", "noToken", "wrongToken", "batch"] {
      #expect(try canonical(ours[key]) == canonical(theirs[key]), "\(key)")
    }
    let theirAdd = try #require(theirs["add"] as? [String: Any])
    let ourAdd = try #require(ours["add"] as? [String: Any])
    let theirGID = try #require(theirAdd["result"] as? String)
    let ourGID = try #require(ourAdd["result"] as? String)
    #expect(ourGID.count == 16 && ourGID.allSatisfy(\.isHexDigit), "\(ourGID)")
    #expect(try canonical(ourAdd, gid: ourGID) == canonical(theirAdd, gid: theirGID))
    // Start, then complete: the same objects, byte for byte once the GIDs are set aside.
    let theirNotes = try canonical(theirs["notifications"], gid: theirGID)
    #expect(theirNotes.contains("aria2.onDownloadComplete"), "\(theirNotes)")
    #expect(try canonical(ours["notifications"], gid: ourGID) == theirNotes)
    #expect(try await daemon.terminate()?.status == 0)
  }

  @Test func refuses_the_upgrade_from_a_foreign_origin_or_host() async throws {
    try requireWebSocketClient()
    let directory = try TemporaryDirectory(prefix: "haul-aria2-ws-refusal")
    defer { directory.remove() }
    let (daemon, haul) = try Aria2Server.haul(in: directory)
    defer { if daemon.process?.isRunning == true { daemon.process?.send(SIGKILL) } }
    // websocket-client sends the listener's own origin unless given another.
    let script = """
      import sys, websocket
      url = f"ws://127.0.0.1:{sys.argv[1]}/jsonrpc"
      for name, options in [("own", {}), ("foreign origin", {"origin": "http://evil.example"}),
                            ("foreign host", {"host": "evil.example"})]:
          try:
              websocket.create_connection(url, timeout=30, **options).close()
              print(name, "open")
          except websocket.WebSocketBadStatusException as error:
              print(name, "refused", error.status_code)
      """
    let run = try python3(["-c", script, String(haul.port)])
    #expect(run.status == 0, "\(run.output)")
    let lines = run.output.split(separator: "\n").map(String.init)
    #expect(lines == ["own open", "foreign origin refused 403", "foreign host refused 403"])
    #expect(try await daemon.terminate()?.status == 0)
  }

  @Test func fifty_websockets_and_fifty_event_streams_get_every_event_of_a_1000_file_job()
    async throws
  {
    try requireWebSocketClient()
    let directory = try TemporaryDirectory(prefix: "haul-aria2-ws-load")
    defer { directory.remove() }
    try await NginxFixture.with { nginx in
      try await runLoad(nginx, in: directory)
    }
  }

  private func runLoad(_ nginx: NginxFixture, in directory: TemporaryDirectory) async throws {
    var lines: [String] = []
    for index in 0..<1000 {
      _ = try nginx.createFile("load/f\(index).bin", size: 2000, seed: UInt64(index))
      lines.append(try manifestLine(["url": nginx.url("/load/f\(index).bin").absoluteString]))
    }
    let manifest = try writeManifest(lines, in: directory)
    var aria2URLs: [String] = []
    for index in 0..<10 {
      _ = try nginx.createFile("load/a\(index).bin", size: 50_000, seed: UInt64(5000 + index))
      aria2URLs.append(nginx.url("/load/a\(index).bin").absoluteString)
    }
    let daemon = try ServeDaemon(
      in: directory, listen: true, extra: ["--aria2-rpc", "127.0.0.1:0"])
    defer { if daemon.process?.isRunning == true { daemon.process?.send(SIGKILL) } }
    let (_, aria2) = try Aria2Server.haul(reading: daemon)
    let listen = try #require(daemon.port)
    let run = try python3(
      [
        Self.scripts.appendingPathComponent("ws_load.py").path, String(listen),
        String(aria2.port), daemon.token, manifest, "50",
      ] + aria2URLs)
    #expect(run.status == 0, "\(run.output)")
    let summary = try #require(
      run.output.split(separator: "\n").last.flatMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }, "\(run.output)")
    #expect(summary["downloads"] as? Int == 11)
    #expect(summary["entries"] as? Int == 1010)
    #expect(try await daemon.terminate()?.status == 0)
  }
}
