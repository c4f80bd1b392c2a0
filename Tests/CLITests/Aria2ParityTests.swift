import Foundation
import HaulTestSupport
import Testing

/// One JSON-RPC server speaking aria2's protocol on 127.0.0.1: the real `aria2c` or `haul
/// serve --aria2-rpc`, called with curl as a client would.
struct Aria2Server {
  let port: Int
  let secret: String

  /// Posts `body` to `/jsonrpc`: the HTTP status and the answer.
  func post(_ body: String, headers: [String] = []) throws -> (status: Int, answer: Any) {
    var arguments = ["-s", "-o", "-", "-w", "\n%{http_code}", "--data-binary", body]
    for header in headers { arguments += ["-H", header] }
    arguments.append("http://127.0.0.1:\(port)/jsonrpc")
    return try Self.split(ServeDaemon.run("/usr/bin/curl", arguments))
  }

  /// Gets `/jsonrpc?QUERY`.
  func get(_ query: String) throws -> (status: Int, answer: Any) {
    try Self.split(
      ServeDaemon.run(
        "/usr/bin/curl",
        ["-s", "-o", "-", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)/jsonrpc?\(query)"]))
  }

  /// Calls `method` with the token and `params`: the whole response object.
  func call(_ method: String, _ params: [Any] = [], id: Any = "t") throws -> [String: Any] {
    let object: [String: Any] = [
      "jsonrpc": "2.0", "id": id, "method": method, "params": ["token:\(secret)"] + params,
    ]
    let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    let answer = try post(body)
    return try #require(answer.answer as? [String: Any], "\(method): \(answer)")
  }

  /// The result of `method`, which must succeed.
  func result(_ method: String, _ params: [Any] = []) throws -> Any {
    let response = try call(method, params)
    return try #require(response["result"], "\(method): \(response)")
  }

  func status(_ gid: String) throws -> [String: Any] {
    try #require(try result("aria2.tellStatus", [gid]) as? [String: Any])
  }

  /// Polls `gid` until its status is `state`.
  @discardableResult
  func until(_ gid: String, is state: String, timeout: Double = 60) async throws -> [String: Any] {
    let deadline = Date().addingTimeInterval(timeout)
    var status = try self.status(gid)
    while status["status"] as? String != state, Date() < deadline {
      try await Task.sleep(for: .milliseconds(100))
      status = try self.status(gid)
    }
    #expect(status["status"] as? String == state, "\(status)")
    return status
  }

  private static func split(_ output: String) throws -> (status: Int, answer: Any) {
    let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
    let text = lines.dropLast().joined(separator: "\n")
    let answer = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) ?? text
    return (Int(lines.last ?? "") ?? 0, answer)
  }

  /// `haul serve --aria2-rpc 127.0.0.1:0` in `directory`, once it listens.
  static func haul(in directory: TemporaryDirectory, extra: [String] = []) throws -> (
    ServeDaemon, Aria2Server
  ) {
    try haul(reading: ServeDaemon(in: directory, extra: ["--aria2-rpc", "127.0.0.1:0"] + extra))
  }

  /// A daemon started with `--aria2-rpc 127.0.0.1:0`, and its aria2 port read from its log.
  static func haul(reading daemon: ServeDaemon) throws -> (ServeDaemon, Aria2Server) {
    let log = try String(contentsOfFile: try #require(daemon.process).stderrPath, encoding: .utf8)
    let marker = try #require(log.range(of: "aria2 JSON-RPC on http://127.0.0.1:"), "\(log)")
    let port = try #require(Int(log[marker.upperBound...].prefix { $0.isNumber }))
    return (daemon, Aria2Server(port: port, secret: daemon.token))
  }

  /// The real aria2c on a free loopback port, downloading into `dir`; ended by `body`'s end.
  static func withAria2c<T>(dir: String, _ body: (Aria2Server) async throws -> T) async throws -> T
  {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/aria2c") else {
      throw FixtureError("aria2c is missing: apt-get install aria2 (make deps installs it)")
    }
    let port = try freePort()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/aria2c")
    process.arguments = [
      "--enable-rpc", "--rpc-listen-port=\(port)", "--rpc-secret=S3CRET", "--dir=\(dir)",
      "--no-conf", "--quiet", "--max-tries=1", "--retry-wait=0", "--auto-file-renaming=false",
      "--save-session=\(dir)/.session",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
      // SIGKILL: aria2c's graceful stop on SIGTERM can wait on its downloads for long.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    let server = Aria2Server(port: port, secret: "S3CRET")
    // A bound for a failure only, as a daemon's start has: a loaded machine may take long.
    let deadline = Date().addingTimeInterval(120)
    let probe = #"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:S3CRET"]}"#
    while (try? server.post(probe))?.status != 200 {
      guard Date() < deadline, process.isRunning else { throw FixtureError("aria2c did not start") }
      usleep(50_000)
    }
    return try await body(server)
  }

  /// A TCP port on 127.0.0.1 that nothing listens on now.
  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw FixtureError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// The same calls to aria2c and to haul, their answers compared field by field where
/// aria2's clients read them: keys, value types, status words, error objects.
@Suite("aria2 JSON-RPC: haul answers as aria2c does")
struct Aria2ParityTests {
  /// The keys of a status object and the JSON type of each value.
  private func shape(_ object: [String: Any]) -> [String: String] {
    object.mapValues { value in
      switch value {
      case is String: "string"
      case is [Any]: "list"
      case is [String: Any]: "object"
      default: "other"
      }
    }
  }

  private func error(_ response: [String: Any]) -> [String: String] {
    let error = response["error"] as? [String: Any] ?? [:]
    return ["code": "\(error["code"] ?? "none")", "message": "\(error["message"] ?? "")"]
  }

  @Test func the_same_calls_get_answers_of_the_same_shape_from_aria2c_and_haul() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-parity")
    defer { directory.remove() }
    try FileManager.default.createDirectory(
      atPath: directory.file("aria2"), withIntermediateDirectories: true)
    try await NginxFixture.with { nginx in
      _ = try nginx.createFile("p/file.bin", size: 300_000, seed: 7)
      let (daemon, haul) = try Aria2Server.haul(in: directory)
      // A test that stops early leaves no daemon behind.
      defer { if daemon.process?.isRunning == true { daemon.process?.send(SIGKILL) } }
      try await Aria2Server.withAria2c(dir: directory.file("aria2")) { aria2 in
        // Version: the same shape, haul's version.
        let versions = try [aria2, haul].map {
          try #require(try $0.result("aria2.getVersion") as? [String: Any])
        }
        #expect(shape(versions[0]) == shape(versions[1]))
        #expect((versions[1]["version"] as? String)?.hasPrefix("haul") == true)

        // Error objects and their HTTP statuses.
        for (method, params) in [
          ("aria2.tellStatus", ["0123456789abcdef"]), ("aria2.tellStatus", ["xyz"]),
          ("aria2.nope", []), ("aria2.tellWaiting", ["a", 1]), ("aria2.tellStopped", []),
          ("aria2.addUri", [[String]()]),
          ("aria2.addUri", [["http://127.0.0.1:9/a"], ["split": "abc"]] as [Any]),
          ("aria2.addUri", [["http://127.0.0.1:9/a"], ["max-download-limit": "1Q"]] as [Any]),
          ("aria2.changePosition", ["0123456789abcdef", 0, "POS_SET"] as [Any]),
        ] as [(String, [Any])] {
          let answers = try [aria2, haul].map { try $0.call(method, params) }
          #expect(error(answers[0]) == error(answers[1]), "\(method) \(params)")
        }
        let bad = #"{"jsonrpc":"2.0","id":1,"method":"aria2.getVersion","params":["token:wrong"]}"#
        let unauthorized = try [aria2, haul].map { try $0.post(bad) }
        #expect(unauthorized[0].status == unauthorized[1].status)
        #expect(
          error(unauthorized[0].answer as? [String: Any] ?? [:]) == [
            "code": "1", "message": "Unauthorized",
          ])
        #expect(
          error(unauthorized[1].answer as? [String: Any] ?? [:]) == [
            "code": "1", "message": "Unauthorized",
          ])
        for body in ["{bad", #"{"jsonrpc":"2.0","method":"aria2.getVersion"}"#] {
          let answers = try [aria2, haul].map { try $0.post(body) }
          #expect(answers[0].status == answers[1].status, "\(body)")
          #expect(
            error(answers[0].answer as? [String: Any] ?? [:])
              == error(answers[1].answer as? [String: Any] ?? [:]))
        }

        // A download that completes, one that fails with 404, one queued paused.
        var gids: [[String]] = []
        for server in [aria2, haul] {
          let complete = try #require(
            try server.result(
              "aria2.addUri", [[nginx.url("/p/file.bin").absoluteString], ["out": "got.bin"]])
              as? String)
          let missing = try #require(
            try server.result("aria2.addUri", [[nginx.url("/p/missing.bin").absoluteString]])
              as? String)
          let paused = try #require(
            try server.result(
              "aria2.addUri", [["http://127.0.0.1:9/later.bin"], ["pause": "true"]]) as? String)
          gids.append([complete, missing, paused])
          #expect(complete.count == 16 && complete.allSatisfy(\.isHexDigit))
        }
        let servers = [aria2, haul]
        var complete: [[String: Any]] = []
        var failed: [[String: Any]] = []
        for (index, server) in servers.enumerated() {
          complete.append(try await server.until(gids[index][0], is: "complete"))
          failed.append(try await server.until(gids[index][1], is: "error"))
        }
        #expect(shape(complete[0]) == shape(complete[1]))
        #expect(shape(failed[0]) == shape(failed[1]))
        for status in complete {
          #expect(
            status["totalLength"] as? String == "300000"
              && status["completedLength"] as? String == "300000")
          #expect(status["errorCode"] as? String == "0")
          #expect(status["numPieces"] as? String == "1" && status["bitfield"] as? String == "80")
        }
        #expect(
          failed[0]["errorCode"] as? String == "3" && failed[1]["errorCode"] as? String == "3")
        let files = try complete.map { try #require(($0["files"] as? [[String: Any]])?.first) }
        #expect(shape(files[0]) == shape(files[1]))
        #expect(files[0]["path"] as? String == directory.file("aria2/got.bin"))
        #expect(files[1]["path"] as? String == directory.file("root/got.bin"))
        #expect(
          files.allSatisfy {
            $0["length"] as? String == "300000" && $0["selected"] as? String == "true"
          })
        let uris = files.map { ($0["uris"] as? [[String: String]])?.first ?? [:] }
        #expect(uris[0] == uris[1])
        #expect(
          try fileSHA256(directory.file("aria2/got.bin"))
            == fileSHA256(directory.file("root/got.bin")))

        let paused = try servers.enumerated().map { try $1.status(gids[$0][2]) }
        #expect(shape(paused[0]) == shape(paused[1]))
        #expect(paused.allSatisfy { $0["status"] as? String == "paused" })

        // The lists, the stats, the options, a batch and a multicall.
        for (method, params) in [
          ("aria2.tellWaiting", [0, 10, ["gid", "status"]]),
          ("aria2.tellStopped", [-1, 1, ["gid", "status", "errorCode"]]),
          ("aria2.tellActive", [["gid"]]),
        ] as [(String, [Any])] {
          let lists = try servers.map {
            try #require(try $0.result(method, params) as? [[String: Any]])
          }
          #expect(lists[0].count == lists[1].count, "\(method)")
          #expect(lists[0].map(shape) == lists[1].map(shape), "\(method)")
        }
        let stopped = try servers.enumerated().map { index, server in
          try #require(
            try server.result("aria2.tellStopped", [-1, 2, ["gid"]]) as? [[String: Any]]
          ).compactMap { $0["gid"] as? String }
        }
        // Newest first. aria2c runs both at once, so either may end first there; haul runs
        // its jobs in queue order, so the failed one (added second) ended last.
        #expect(Set(stopped[0]) == Set([gids[0][0], gids[0][1]]))
        #expect(stopped[1] == [gids[1][1], gids[1][0]])
        let stats = try servers.map {
          try #require(try $0.result("aria2.getGlobalStat") as? [String: Any])
        }
        #expect(shape(stats[0]) == shape(stats[1]))
        #expect(
          stats.allSatisfy {
            $0["numWaiting"] as? String == "1" && $0["numStopped"] as? String == "2"
          })
        let options = try servers.enumerated().map {
          try #require(try $1.result("aria2.getOption", [gids[$0][2]]) as? [String: Any])
        }
        for key in ["dir", "split", "max-download-limit", "max-connection-per-server"] {
          #expect(options[0][key] is String && options[1][key] is String, "\(key)")
        }
        #expect(try servers.map { try $0.result("aria2.saveSession") as? String } == ["OK", "OK"])
        let sessions = try servers.map {
          try #require(try $0.result("aria2.getSessionInfo") as? [String: String])
        }
        #expect(sessions.allSatisfy { $0["sessionId"]?.count == 40 })

        let batch = try servers.map { server in
          try #require(
            try server.post(
              #"[{"jsonrpc":"2.0","id":1,"method":"aria2.getGlobalStat","params":["token:\#(server.secret)"]},{"jsonrpc":"2.0","id":"b","method":"aria2.tellStatus","params":["token:\#(server.secret)","0123456789abcdef"]}]"#
            ).answer as? [[String: Any]])
        }
        #expect(batch.map { $0.map { "\($0["id"] ?? "")" } } == [["1", "b"], ["1", "b"]])
        #expect(
          batch.map { $0.map { Set($0.keys) } }[0] == batch.map { $0.map { Set($0.keys) } }[1])
        let multi = try servers.map { server in
          let calls: [[String: Any]] = [
            ["methodName": "aria2.getGlobalStat", "params": ["token:\(server.secret)"]],
            ["methodName": "aria2.getGlobalStat", "params": ["token:wrong"]],
          ]
          let object: [String: Any] = [
            "jsonrpc": "2.0", "id": 1, "method": "system.multicall", "params": [calls],
          ]
          let body = String(
            decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
          let answer = try server.post(body).answer as? [String: Any]
          return try #require(answer?["result"] as? [Any], "\(String(describing: answer))")
        }
        #expect(multi.allSatisfy { ($0.first as? [Any])?.count == 1 })
        #expect(
          multi.map { ($0.last as? [String: Any])?["message"] as? String } == [
            "Unauthorized", "Unauthorized",
          ])
        let listed = try servers.map {
          try #require(
            try $0.post(#"{"jsonrpc":"2.0","id":1,"method":"system.listMethods"}"#).answer
              as? [String: Any])["result"] as? [String]
        }
        #expect(listed[0] == listed[1])

        // The GET form: params as base64 JSON.
        for server in servers {
          let params = Data(#"["token:\#(server.secret)"]"#.utf8).base64EncodedString()
          let got = try server.get("method=aria2.getGlobalStat&id=g&params=\(params)")
          #expect(got.status == 200 && (got.answer as? [String: Any])?["id"] as? String == "g")
        }

        // Remove: the same state word; pause and unpause of a finished download refused alike.
        for (index, server) in servers.enumerated() {
          #expect(try server.result("aria2.remove", [gids[index][2]]) as? String == gids[index][2])
        }
        // aria2 forgets a download removed before it started (tellStatus: not found);
        // haul keeps the job, `removed`, until its result is removed (kept difference).
        let removed = try servers.enumerated().map {
          try $1.call("aria2.tellStatus", [gids[$0][2]])
        }
        let aria2Removed = removed[0]["result"] as? [String: Any]
        #expect(
          aria2Removed?["status"] as? String == "removed"
            || error(removed[0])["message"] == "GID \(gids[0][2]) is not found")
        #expect((removed[1]["result"] as? [String: Any])?["status"] as? String == "removed")
        let refusals = try servers.enumerated().map { try $1.call("aria2.pause", [gids[$0][0]]) }
        #expect(
          error(refusals[0])["message"]?.replacingOccurrences(of: gids[0][0], with: "G")
            == error(refusals[1])["message"]?.replacingOccurrences(of: gids[1][0], with: "G"))

        // The one kept difference: aria2 lets `out` climb out of `dir`; haul refuses.
        let climbing = try servers.map {
          try $0.call(
            "aria2.addUri",
            [[nginx.url("/p/file.bin").absoluteString], ["out": "../\($0.port)-escaped.bin"]])
        }
        #expect(climbing[0]["result"] is String)
        #expect(error(climbing[1])["code"] == "1")
        let climbed = try await aria2.until(
          try #require(climbing[0]["result"] as? String), is: "complete")
        #expect(
          (climbed["files"] as? [[String: Any]])?.first?["path"] as? String
            == directory.file("aria2/../\(aria2.port)-escaped.bin"))
        #expect(FileManager.default.fileExists(atPath: directory.file("\(aria2.port)-escaped.bin")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("\(haul.port)-escaped.bin")))
        #expect(try haul.result("aria2.tellActive", [["gid"]]) as? [Any] != nil)
      }
      #expect(try await daemon.terminate()?.status == 0)
    }
  }

  @Test func the_aria2_port_holds_the_host_origin_and_token_rules() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-guard")
    defer { directory.remove() }
    let (daemon, haul) = try Aria2Server.haul(in: directory)
    // A test that stops early leaves no daemon behind.
    defer { if daemon.process?.isRunning == true { daemon.process?.send(SIGKILL) } }
    let call =
      #"{"jsonrpc":"2.0","id":1,"method":"aria2.tellActive","params":["token:\#(haul.secret)"]}"#
    #expect(try haul.post(call).status == 200)
    #expect(try haul.post(call, headers: ["Host: attacker.example"]).status == 403)
    #expect(try haul.post(call, headers: ["Origin: http://attacker.example"]).status == 403)
    #expect(try haul.post(call.replacingOccurrences(of: haul.secret, with: "nope")).status == 400)
    let shutdown = try haul.result("aria2.shutdown") as? String
    #expect(shutdown == "OK")
    let ended = try await daemon.process?.finish(timeout: 30)
    #expect(ended?.status == 0)
  }

  @Test func a_public_aria2_address_needs_listen_public() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-aria2-public")
    defer { directory.remove() }
    let result = try await HaulBinary.run(
      [
        "serve", "--root", directory.path, "--state-dir", directory.file("state"), "--socket",
        directory.file("s.sock"), "--aria2-rpc", "0.0.0.0:0",
      ],
      in: directory, timeout: 30)
    #expect(result.status == 2)
    #expect(result.stderr.contains("--listen-public"), "\(result.stderr)")
  }
}
