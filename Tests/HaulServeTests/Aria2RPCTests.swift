import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

@testable import HaulServe

/// aria2's methods mapped onto the daemon, over a real journal and a scripted engine: the
/// answers' shapes (numbers as strings, GIDs, status words, error objects), the token, the
/// roots, and the queue calls each method makes.
@Suite struct Aria2RPCTests {
  static let token = "s3cret"

  /// A daemon over `ScriptedJobEngine` that also takes JSON manifest lines (the scripted
  /// engine's own check takes bare URLs only), and aria2's interface over it.
  private func rpc(
    _ directory: TemporaryDirectory, _ engine: ScriptedJobEngine = ScriptedJobEngine(),
    onShutdown: @escaping @Sendable () -> Void = {}
  ) throws -> (Daemon, Aria2RPC) {
    try FileManager.default.createDirectory(
      atPath: directory.file("root/sub"), withIntermediateDirectories: true)
    var configuration = Daemon.Configuration(
      stateDirectory: directory.file("state"), roots: try Roots([directory.file("root")]))
    configuration.flushInterval = 0.01
    let daemon = try Daemon(configuration: configuration, engine: Aria2LineEngine(scripted: engine))
    daemon.start()
    return (
      daemon,
      Aria2RPC(daemon: daemon, access: AccessGuard(token: Self.token), onShutdown: onShutdown)
    )
  }

  private func call(_ rpc: Aria2RPC, _ method: String, _ params: [Any] = []) -> Result<
    Any, Aria2Error
  > {
    rpc.call(method, ["token:\(Self.token)"] + params)
  }

  private func value(_ rpc: Aria2RPC, _ method: String, _ params: [Any] = []) throws -> Any {
    try call(rpc, method, params).get()
  }

  private func status(_ rpc: Aria2RPC, _ gid: String) throws -> [String: Any] {
    try #require(try value(rpc, "aria2.tellStatus", [gid]) as? [String: Any])
  }

  private func until(_ rpc: Aria2RPC, _ gid: String, is state: String) async throws {
    // A bound for a failure only: a loaded machine may take long to get there.
    let deadline = Date().addingTimeInterval(180)
    while try status(rpc, gid)["status"] as? String != state, Date() < deadline {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(try status(rpc, gid)["status"] as? String == state)
  }

  @Test func addUriQueuesOneJobWithMirrorsAndTellStatusAnswersInAria2sTypes() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-add")
    defer { directory.remove() }
    let (daemon, rpc) = try rpc(directory)
    let sha = String(repeating: "ab", count: 32)
    let gid = try #require(
      try value(
        rpc, "aria2.addUri",
        [
          ["http://127.0.0.1:9/a.bin", "http://127.0.0.1:9/mirror/a.bin"],
          [
            "dir": "sub", "out": "x/a.bin", "split": "4", "max-download-limit": "1M",
            "checksum": "sha-256=\(sha.uppercased())", "header": ["X-A: 1", "X-B: 2"],
            "pause": "true", "user-agent": "test", "no-such-option": "kept out",
          ],
        ]) as? String)
    #expect(gid.count == 16 && gid.allSatisfy(\.isHexDigit))

    // One job of one entry: the manifest line haul reads.
    let job = try daemon.job(gid)
    #expect(job["total"] as? Int == 1 && job["state"] as? String == "paused")
    #expect(job["output"] as? String == directory.file("root/sub"))
    let options = try #require(job["options"] as? [String: Any])
    #expect(options["segments"] as? String == "4" && options["max-rate"] as? String == "1048576")
    let line = try String(contentsOfFile: try daemon.manifestPath(of: gid), encoding: .utf8)
    let fields = try #require(
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(fields["url"] as? String == "http://127.0.0.1:9/a.bin")
    #expect(fields["mirrors"] as? [String] == ["http://127.0.0.1:9/mirror/a.bin"])
    #expect(fields["path"] as? String == "x/a.bin" && fields["sha256"] as? String == sha)
    #expect(fields["headers"] as? [String: String] == ["X-A": "1", "X-B": "2"])

    let status = try status(rpc, gid)
    #expect(status["gid"] as? String == gid && status["status"] as? String == "paused")
    for key in ["totalLength", "completedLength", "downloadSpeed", "uploadSpeed", "connections"] {
      #expect(status[key] is String, "\(key)")
    }
    #expect(status["dir"] as? String == directory.file("root/sub"))
    let file = try #require((status["files"] as? [[String: Any]])?.first)
    #expect(file["index"] as? String == "1" && file["selected"] as? String == "true")
    #expect(file["path"] as? String == directory.file("root/sub/x/a.bin"))
    let uris = try #require(file["uris"] as? [[String: String]])
    #expect(
      uris.map { $0["uri"] ?? "" } == [
        "http://127.0.0.1:9/a.bin", "http://127.0.0.1:9/mirror/a.bin",
      ])
    #expect(uris.allSatisfy { $0["status"] == "waiting" })
    #expect(status["errorCode"] == nil)

    // The keys filter, and getOption: what was given, what aria2 ignores left out.
    let some = try #require(
      try value(rpc, "aria2.tellStatus", [gid, ["gid", "status", "nope"]]) as? [String: Any])
    #expect(Set(some.keys) == ["gid", "status"])
    let option = try #require(try value(rpc, "aria2.getOption", [gid]) as? [String: String])
    #expect(option["split"] == "4" && option["out"] == "x/a.bin" && option["user-agent"] == "test")
    #expect(option["checksum"] == "sha-256=\(sha)" && option["header"] == "X-A: 1\nX-B: 2")
    #expect(option["pause"] == "true" && option["no-such-option"] == nil)
    #expect(try value(rpc, "aria2.getUris", [gid]) as? [[String: String]] == uris)
    await daemon.shutDown()
  }

  @Test func tokenGIDAndMethodErrorsAreAria2sErrorObjects() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-errors")
    defer { directory.remove() }
    let (daemon, rpc) = try rpc(directory)
    #expect(throws: Aria2Error("Unauthorized")) {
      try rpc.call("aria2.getVersion", ["token:wrong"]).get()
    }
    #expect(throws: Aria2Error("Unauthorized")) { try rpc.call("aria2.tellActive", []).get() }
    #expect(throws: Aria2Error("GID 0123456789abcdef is not found")) {
      try value(rpc, "aria2.tellStatus", ["0123456789abcdef"])
    }
    #expect(throws: Aria2Error("Invalid GID xyz")) { try value(rpc, "aria2.pause", ["xyz"]) }
    #expect(throws: Aria2Error("No such method: aria2.nope")) { try value(rpc, "aria2.nope") }
    #expect(throws: Aria2Error("The parameter at 0 has wrong type.")) {
      try value(rpc, "aria2.tellWaiting", ["a", 1])
    }
    #expect(throws: Aria2Error("The parameter at 0 is required but missing.")) {
      try value(rpc, "aria2.tellStopped")
    }
    #expect(throws: Aria2Error("URI is not provided.")) {
      try value(rpc, "aria2.addUri", [[String]()])
    }
    #expect(throws: Aria2Error.self) { try value(rpc, "aria2.addTorrent", ["AAAA"]) }
    #expect(throws: Aria2Error.self) { try value(rpc, "aria2.addMetalink", ["AAAA"]) }
    for (name, bad) in [
      ("split", "abc"), ("max-download-limit", "1Q"), ("checksum", "sha-256=zz"),
      ("checksum", "sha-224=\(String(repeating: "0", count: 56))"), ("pause", "yes"),
      ("header", "no colon"),
    ] {
      #expect(
        throws: Aria2Error("We encountered a problem while processing the option '--\(name)'.")
      ) {
        try value(rpc, "aria2.addUri", [["http://127.0.0.1:9/a"], [name: bad]])
      }
    }
    // The system methods need no token, as in aria2.
    let methods = try #require(try rpc.call("system.listMethods", []).get() as? [String])
    #expect(methods.contains("aria2.addUri") && methods.count == Aria2RPC.methodNames.count)
    #expect(
      (try rpc.call("system.listNotifications", []).get() as? [String])?.first
        == "aria2.onDownloadStart")
    #expect(daemon.listJobs().isEmpty)
    await daemon.shutDown()
  }

  @Test func dirAndOutNeverLeadOutsideTheRoots() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-roots")
    defer { directory.remove() }
    let (daemon, rpc) = try rpc(directory)
    try FileManager.default.createDirectory(
      atPath: directory.file("elsewhere"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: directory.file("root/link"), withDestinationPath: directory.file("elsewhere"))
    let refused: [[String: String]] = [
      ["dir": directory.file("elsewhere")], ["dir": "link"], ["dir": "../elsewhere"],
      ["dir": "/"], ["out": "../a.bin"], ["out": "x/../../a.bin"], ["out": "/etc/a.bin"],
      ["dir": "sub", "out": "../../elsewhere/a.bin"],
    ]
    for options in refused {
      let result = call(rpc, "aria2.addUri", [["http://127.0.0.1:9/a.bin"], options])
      guard case .failure(let error) = result else {
        Issue.record("\(options) was accepted")
        continue
      }
      #expect(error.code == 1)
    }
    #expect(throws: Aria2Error.self) { try value(rpc, "aria2.changeGlobalOption", [["dir": "/"]]) }
    #expect(daemon.listJobs().isEmpty)
    await daemon.shutDown()
  }

  @Test func pauseUnpauseRemoveAndTheListsFollowTheQueue() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-control")
    defer { directory.remove() }
    let engine = ScriptedJobEngine(entrySeconds: 60)
    let (daemon, rpc) = try rpc(directory, engine)
    let gids = try (0..<4).map { index in
      try #require(try value(rpc, "aria2.addUri", [["http://127.0.0.1:9/f\(index)"]]) as? String)
    }
    try await until(rpc, gids[0], is: "active")
    #expect(try value(rpc, "aria2.pause", [gids[1]]) as? String == gids[1])
    #expect(throws: Aria2Error("GID#\(gids[1]) cannot be paused now")) {
      try value(rpc, "aria2.pause", [gids[1]])
    }
    #expect(throws: Aria2Error("GID#\(gids[2]) cannot be unpaused now")) {
      try value(rpc, "aria2.unpause", [gids[2]])
    }
    let active = try #require(
      try value(rpc, "aria2.tellActive", [["gid", "status"]]) as? [[String: Any]])
    #expect(active.map { $0["gid"] as? String } == [gids[0]])
    #expect(try value(rpc, "aria2.getServers", [gids[0]]) is [[String: Any]])
    #expect(throws: Aria2Error("No active download for GID#\(gids[1])")) {
      try value(rpc, "aria2.getServers", [gids[1]])
    }
    var waiting = try #require(
      try value(rpc, "aria2.tellWaiting", [0, 10, ["gid", "status"]]) as? [[String: Any]])
    #expect(waiting.map { $0["gid"] as? String } == [gids[1], gids[2], gids[3]])
    #expect(waiting.map { $0["status"] as? String } == ["paused", "waiting", "waiting"])

    // changePosition within aria2's waiting queue, clamped as aria2 clamps.
    #expect(try value(rpc, "aria2.changePosition", [gids[3], 0, "POS_SET"]) as? Int == 0)
    #expect(try value(rpc, "aria2.changePosition", [gids[1], 5, "POS_CUR"]) as? Int == 2)
    #expect(try value(rpc, "aria2.changePosition", [gids[2], -1, "POS_END"]) as? Int == 1)
    #expect(throws: Aria2Error("Illegal argument.")) {
      try value(rpc, "aria2.changePosition", [gids[2], 0, "BAD"])
    }
    #expect(throws: Aria2Error("GID#\(gids[0]) not found in the waiting queue.")) {
      try value(rpc, "aria2.changePosition", [gids[0], 0, "POS_SET"])
    }
    waiting = try #require(
      try value(rpc, "aria2.tellWaiting", [0, 10, ["gid"]]) as? [[String: Any]])
    #expect(waiting.map { $0["gid"] as? String } == [gids[3], gids[2], gids[1]])

    // remove: the job is cancelled; a second remove finds no active download.
    #expect(try value(rpc, "aria2.remove", [gids[0]]) as? String == gids[0])
    #expect(throws: Aria2Error("Active Download not found for GID#\(gids[0])")) {
      try value(rpc, "aria2.forceRemove", [gids[0]])
    }
    let removed = try status(rpc, gids[0])
    #expect(removed["status"] as? String == "removed" && removed["errorCode"] as? String == "31")
    #expect(try value(rpc, "aria2.pauseAll") as? String == "OK")
    #expect(
      daemon.listJobs().allSatisfy { ["paused", "removed"].contains($0["state"] as? String) })
    #expect(try value(rpc, "aria2.unpauseAll") as? String == "OK")
    #expect(daemon.listJobs().allSatisfy { $0["state"] as? String != "paused" })
    let stat = try #require(try value(rpc, "aria2.getGlobalStat") as? [String: String])
    let counts = daemon.stats()
    #expect(stat["numActive"] == "\(counts["active"] as? Int ?? -1)")
    #expect(
      stat["numWaiting"] == "\((counts["waiting"] as? Int ?? 0) + (counts["paused"] as? Int ?? 0))")
    #expect(stat["numStopped"] == "1")
    #expect(stat["downloadSpeed"] != nil && stat["numStoppedTotal"] == "1")
    await daemon.shutDown()
  }

  @Test func stoppedDownloadsCarryAria2sErrorCodesAndPageFromTheEnd() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-stopped")
    defer { directory.remove() }
    let (daemon, rpc) = try rpc(directory, ScriptedJobEngine(failing: [1]))
    var gids: [String] = []
    for index in 0..<3 {
      let gid = try #require(
        try value(rpc, "aria2.addUri", [["http://127.0.0.1:9/f\(index)"]]) as? String)
      try await until(rpc, gid, is: "error")
      gids.append(gid)
    }
    let failed = try status(rpc, gids[0])
    #expect(failed["errorCode"] as? String == "3")
    #expect((failed["errorMessage"] as? String)?.contains("404") == true)
    #expect(
      ((failed["files"] as? [[String: Any]])?.first?["uris"] as? [[String: String]])?.first?[
        "status"] == "used")

    func stopped(_ offset: Int, _ num: Int) throws -> [String] {
      let list = try #require(
        try value(rpc, "aria2.tellStopped", [offset, num, ["gid"]]) as? [[String: Any]])
      return list.compactMap { $0["gid"] as? String }
    }
    #expect(try stopped(0, 10) == gids)
    #expect(try stopped(1, 1) == [gids[1]])
    #expect(try stopped(-1, 2) == [gids[2], gids[1]])
    #expect(try stopped(-1, 10) == [gids[2], gids[1], gids[0]])
    #expect(try stopped(-4, 2) == [])
    #expect(try stopped(5, 2) == [])

    #expect(throws: Aria2Error("Could not remove download result of GID#0000000000000001")) {
      try value(rpc, "aria2.removeDownloadResult", ["0000000000000001"])
    }
    #expect(try value(rpc, "aria2.removeDownloadResult", [gids[0]]) as? String == "OK")
    #expect(throws: Aria2Error("GID \(gids[0]) is not found")) {
      try value(rpc, "aria2.tellStatus", [gids[0]])
    }
    #expect(try value(rpc, "aria2.purgeDownloadResult") as? String == "OK")
    #expect(daemon.listJobs().isEmpty)
    await daemon.shutDown()
  }

  @Test func aria2sPaginationMatchesItsGetPaginationRange() {
    #expect(Aria2RPC.pageRange(offset: 0, num: 2, count: 5) == 0..<2)
    #expect(Aria2RPC.pageRange(offset: 4, num: 2, count: 5) == 4..<5)
    #expect(Aria2RPC.pageRange(offset: 5, num: 2, count: 5) == 0..<0)
    #expect(Aria2RPC.pageRange(offset: -1, num: 2, count: 5) == 3..<5)
    #expect(Aria2RPC.pageRange(offset: -2, num: 10, count: 5) == 0..<4)
    #expect(Aria2RPC.pageRange(offset: -6, num: 1, count: 5) == 0..<0)
    #expect(Aria2RPC.pageRange(offset: 0, num: 0, count: 5) == 0..<0)
  }

  @Test func messagesBatchesAndMulticallAreAnsweredAsJSONRPC20() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-batch")
    defer { directory.remove() }
    var stopped = false
    let flag = Mutex(false)
    let (daemon, rpc) = try rpc(directory) { flag.withLock { $0 = true } }
    func decode(_ answer: Aria2RPC.Answer) throws -> Any {
      try JSONSerialization.jsonObject(with: Data(answer.body))
    }
    let single = rpc.answer(
      Array(
        #"{"jsonrpc":"2.0","id":"q","method":"aria2.getVersion","params":["token:s3cret"]}"#.utf8))
    #expect(single.outcome == .result)
    let version = try #require(try decode(single) as? [String: Any])
    #expect(version["id"] as? String == "q" && version["jsonrpc"] as? String == "2.0")
    let result = try #require(version["result"] as? [String: Any])
    #expect((result["version"] as? String)?.contains(HaulVersion.current) == true)
    #expect(result["enabledFeatures"] is [String])

    let batch = rpc.answer(
      Array(
        #"[{"jsonrpc":"2.0","id":1,"method":"aria2.getGlobalStat","params":["token:s3cret"]},{"jsonrpc":"2.0","id":2,"method":"aria2.getGlobalStat","params":["token:x"]}]"#
          .utf8))
    #expect(batch.outcome == .result)
    let answers = try #require(try decode(batch) as? [[String: Any]])
    #expect(answers.map { $0["id"] as? Int } == [1, 2])
    #expect(answers[0]["result"] is [String: Any])
    #expect((answers[1]["error"] as? [String: Any])?["message"] as? String == "Unauthorized")

    let invalid = rpc.answer(Array(#"{"jsonrpc":"2.0","method":"aria2.getVersion"}"#.utf8))
    #expect(invalid.outcome == .error)
    #expect(
      ((try decode(invalid) as? [String: Any])?["error"] as? [String: Any])?["code"] as? Int
        == -32600)
    let parse = rpc.answer(Array("{bad".utf8))
    #expect(parse.outcome == .parseError)
    #expect(
      ((try decode(parse) as? [String: Any])?["error"] as? [String: Any])?["code"] as? Int == -32700
    )

    let multi = try #require(
      try rpc.call(
        "system.multicall",
        [
          [
            ["methodName": "aria2.getGlobalStat", "params": ["token:s3cret"]],
            ["methodName": "aria2.getGlobalStat", "params": ["token:x"]],
            ["methodName": "system.multicall", "params": [[Any]()]],
          ]
        ]
      ).get() as? [Any])
    #expect(multi.count == 3)
    #expect(((multi[0] as? [Any])?.first as? [String: String])?["numActive"] == "0")
    #expect((multi[1] as? [String: Any])?["message"] as? String == "Unauthorized")
    #expect((multi[2] as? [String: Any])?["code"] as? Int == 1)

    #expect(try value(rpc, "aria2.saveSession") as? String == "OK")
    #expect(
      ((try value(rpc, "aria2.getSessionInfo") as? [String: String])?["sessionId"])?.count == 40)
    #expect(try value(rpc, "aria2.shutdown") as? String == "OK")
    stopped = flag.withLock { $0 }
    #expect(stopped)
    await daemon.shutDown()
  }

  @Test func changeOptionChangesTheJobsRateAndGlobalOptionsAreNewDownloadsDefaults() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-options")
    defer { directory.remove() }
    let (daemon, rpc) = try rpc(directory)
    let gid = try #require(
      try value(rpc, "aria2.addUri", [["http://127.0.0.1:9/a"], ["pause": "true"]]) as? String)
    #expect(
      try value(
        rpc, "aria2.changeOption", [gid, ["max-download-limit": "10K", "user-agent": "x"]])
        as? String == "OK")
    #expect((try daemon.job(gid)["options"] as? [String: Any])?["max-rate"] as? String == "10240")
    #expect((try value(rpc, "aria2.getOption", [gid]) as? [String: String])?["user-agent"] == "x")
    #expect(throws: Aria2Error.self) { try value(rpc, "aria2.changeOption", [gid, ["out": "b"]]) }
    #expect(
      throws: Aria2Error(
        "We encountered a problem while processing the option '--max-download-limit'.")
    ) {
      try value(rpc, "aria2.changeOption", [gid, ["max-download-limit": "fast"]])
    }
    #expect(
      try value(rpc, "aria2.changeGlobalOption", [["dir": "sub", "max-concurrent-downloads": "3"]])
        as? String == "OK")
    let global = try #require(try value(rpc, "aria2.getGlobalOption") as? [String: String])
    #expect(global["dir"] == "sub" && global["max-concurrent-downloads"] == "3")
    let next = try #require(
      try value(rpc, "aria2.addUri", [["http://127.0.0.1:9/b"], ["pause": "true"]]) as? String)
    #expect(try daemon.job(next)["output"] as? String == directory.file("root/sub"))
    await daemon.shutDown()
  }

  @Test func theHTTPEndpointTakesPostAndGetAndHoldsTheHostAndOriginRules() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-http")
    defer { directory.remove() }
    let (daemon, rpc) = try rpc(directory)
    let endpoint = Aria2Endpoint(rpc: rpc)
    let listener = HTTPRequest.Listener.tcp(host: "127.0.0.1", port: 6800)
    func request(
      _ method: String, _ path: String = "/jsonrpc", query: [String: String] = [:],
      headers: [String: String] = ["host": "127.0.0.1:6800"], body: String = ""
    ) -> HTTPResponse {
      endpoint.respond(
        HTTPRequest(
          method: method, path: path, query: query, headers: headers, body: Array(body.utf8),
          listener: listener))
    }
    func body(_ response: HTTPResponse) throws -> [String: Any] {
      guard case .bytes(let bytes) = response.body else { return [:] }
      return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }
    let call = #"{"jsonrpc":"2.0","id":"p","method":"aria2.tellActive","params":["token:s3cret"]}"#
    #expect(request("POST", body: call).status == 200)
    #expect(
      request(
        "POST", body: #"{"jsonrpc":"2.0","id":1,"method":"aria2.tellActive","params":["token:no"]}"#
      ).status == 400)
    #expect(request("POST", body: "{").status == 500)
    #expect(request("POST", "/other", body: call).status == 404)

    let params = Data(#"["token:s3cret"]"#.utf8).base64EncodedString()
    let get = request("GET", query: ["method": "aria2.getGlobalStat", "id": "g", "params": params])
    #expect(get.status == 200)
    #expect(try body(get)["id"] as? String == "g" && (try body(get)["result"] is [String: Any]))

    // DNS rebinding and foreign pages are refused before any token is read.
    #expect(request("POST", headers: ["host": "evil.example:6800"], body: call).status == 403)
    let foreign = request(
      "POST", headers: ["host": "127.0.0.1:6800", "origin": "http://evil.example"], body: call)
    #expect(foreign.status == 403 && foreign.headers["Access-Control-Allow-Origin"] == nil)
    let own = request(
      "POST", headers: ["host": "localhost:6800", "origin": "http://localhost:6800"], body: call)
    #expect(
      own.status == 200 && own.headers["Access-Control-Allow-Origin"] == "http://localhost:6800")

    let allowed = Aria2Endpoint(
      rpc: Aria2RPC(
        daemon: daemon,
        access: AccessGuard(token: Self.token, allowedOrigins: ["http://ariang.example"]),
        onShutdown: {}))
    let preflight = allowed.respond(
      HTTPRequest(
        method: "OPTIONS", path: "/jsonrpc",
        headers: [
          "host": "127.0.0.1:6800", "origin": "http://ariang.example",
          "access-control-request-headers": "content-type",
        ],
        listener: listener))
    #expect(
      preflight.status == 200
        && preflight.headers["Access-Control-Allow-Origin"] == "http://ariang.example")
    #expect(preflight.headers["Access-Control-Allow-Methods"]?.contains("POST") == true)
    await daemon.shutDown()
  }
}

/// `ScriptedJobEngine` for aria2's downloads: it checks a manifest of JSON lines (which
/// the scripted engine's own check refuses) by counting them, and runs it as the scripted
/// engine does.
struct Aria2LineEngine: JobEngine {
  let scripted: ScriptedJobEngine

  func check(_ job: JobSpec) throws(ServiceError) -> ManifestStatistics {
    let manifest = Manifest(
      path: job.manifestPath, displayName: "manifest", outputDirectory: job.output)
    do throws(ManifestError) {
      return try manifest.validate()
    } catch {
      throw ServiceError(.manifest, error.description)
    }
  }

  func run(
    _ job: JobSpec, control: JobControl, events: @escaping @Sendable (TransferEvent) -> Void
  ) async -> RunSummary {
    await scripted.run(job, control: control, events: events)
  }
}
