import Foundation
import HaulTestSupport
import Testing

/// A login portal in NASA Earthdata's shape (`portal/portal_server.py`): the data host sends
/// a request without its session cookie to a login host, which takes Basic credentials and
/// sends it back with a code, for which the data host sets the cookie. wget and curl log in
/// through it first, so the server is known to be what they handle; then haul, with
/// `--netrc-file` and `--cookie-jar`, through each transport.
@Suite("Login portals: .netrc logins and cookies across redirects")
struct CLIPortalTests {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("portal/portal_server.py").path
  static let login = "alice"
  static let password = "s3cret-pw"

  /// The portal server, run for one test: its two ports and its request log.
  final class Portal: @unchecked Sendable {
    let process = Process()
    let input = Pipe()
    let log: String
    let dataPort: Int
    let loginPort: Int

    init(folder: String, log: String) throws {
      self.log = log
      let output = Pipe()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = ["python3", CLIPortalTests.script, folder, log, login, password]
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      var line = Data()
      while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else { throw FixtureError("the portal server did not start") }
        line.append(chunk)
      }
      let ports = String(decoding: line, as: UTF8.self).split(separator: " ").compactMap {
        Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
      }
      guard ports.count == 2 else { throw FixtureError("the portal server printed no ports") }
      (dataPort, loginPort) = (ports[0], ports[1])
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(dataPort)/data/\(name)" }

    /// The requests logged so far, one dictionary each.
    func requests() throws -> [[String: Any]] {
      let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      return try text.split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
      }
    }

    func stop() {
      try? input.fileHandleForWriting.close()
      process.waitUntilExit()
    }
  }

  /// A folder with the files the data host serves, a `.netrc` for the login host (mode
  /// 0600) under `home/`, and the files' bytes by name.
  func prepare(_ directory: TemporaryDirectory) throws -> [String: Data] {
    let files = [
      "a.bin": Data(TestContent.bytes(seed: 1, count: 300_000)),
      "b.bin": Data(TestContent.bytes(seed: 2, count: 7_000)),
    ]
    try FileManager.default.createDirectory(
      atPath: directory.file("served"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: directory.file("home"), withIntermediateDirectories: true)
    for (name, bytes) in files {
      try bytes.write(to: URL(fileURLWithPath: directory.file("served/\(name)")))
    }
    let netrc = directory.file("home/.netrc")
    try "machine localhost\n  login \(Self.login)\n  password \"\(Self.password)\"\n".write(
      toFile: netrc, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: netrc)
    return files
  }

  /// Runs `arguments` (wget, curl) and returns its exit status and output.
  func tool(_ arguments: [String], home: String) throws -> (status: Int32, output: String) {
    try runTool(arguments, environment: ["HOME": home])
  }

  /// What a log in through the portal must look like: the data host never got an
  /// Authorization header; the login host got the right login on its first request, before
  /// any 401 asked for it.
  func expectCleanLogin(_ requests: [[String: Any]], _ who: String) {
    let data = requests.filter { $0["host"] as? String == "data" }
    let login = requests.filter { $0["host"] as? String == "login" }
    #expect(!data.isEmpty && !login.isEmpty, "\(who): \(requests)")
    #expect(data.allSatisfy { $0["authorization"] as? Bool == false }, "\(who): \(requests)")
    #expect(login.first?["login_right"] as? Bool == true, "\(who): \(requests)")
  }

  @Test func wget_and_curl_log_in_through_the_portal_server() throws {
    let directory = try TemporaryDirectory(prefix: "haul-portal-tools")
    defer { directory.remove() }
    let files = try prepare(directory)
    let home = directory.file("home")

    // wget, as the Earthdata documentation runs it (its .netrc found through HOME).
    let wgetPortal = try Portal(folder: directory.file("served"), log: directory.file("wget.log"))
    defer { wgetPortal.stop() }
    _ = FileManager.default.createFile(atPath: directory.file("wget-jar.txt"), contents: nil)
    let wget = try tool(
      [
        "wget", "-q", "--load-cookies", directory.file("wget-jar.txt"), "--save-cookies",
        directory.file("wget-jar.txt"), "--auth-no-challenge", "-O", directory.file("wget-a.bin"),
        wgetPortal.url("a.bin"),
      ], home: home)
    #expect(wget.status == 0, "\(wget.output)")
    #expect(FileManager.default.contents(atPath: directory.file("wget-a.bin")) == files["a.bin"])
    let wgetJar = try String(contentsOfFile: directory.file("wget-jar.txt"), encoding: .utf8)
    #expect(wgetJar.contains("\tportal_session\t"), "\(wgetJar)")
    expectCleanLogin(try wgetPortal.requests(), "wget")

    // curl -n -b -c -L.
    let curlPortal = try Portal(folder: directory.file("served"), log: directory.file("curl.log"))
    defer { curlPortal.stop() }
    let curl = try tool(
      [
        "curl", "-sS", "-n", "-b", directory.file("curl-jar.txt"), "-c",
        directory.file("curl-jar.txt"), "-L", "-o", directory.file("curl-a.bin"),
        curlPortal.url("a.bin"),
      ], home: home)
    #expect(curl.status == 0, "\(curl.output)")
    #expect(FileManager.default.contents(atPath: directory.file("curl-a.bin")) == files["a.bin"])
    let curlJar = try String(contentsOfFile: directory.file("curl-jar.txt"), encoding: .utf8)
    #expect(curlJar.contains("127.0.0.1\tFALSE\t/\tFALSE\t"), "\(curlJar)")
    expectCleanLogin(try curlPortal.requests(), "curl")
  }

  @Test(arguments: ["curl", "urlsession"])
  func haul_logs_in_with_netrc_keeps_the_session_cookie_and_shows_no_secret(transport: String)
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-portal-\(transport)")
    defer { directory.remove() }
    try await logIn(through: transport, in: directory)
  }

  func logIn(through transport: String, in directory: TemporaryDirectory) async throws {
    let files = try prepare(directory)
    let portal = try Portal(folder: directory.file("served"), log: directory.file("portal.log"))
    defer { portal.stop() }
    let manifest = directory.file("manifest.txt")
    try (files.keys.sorted().map { portal.url($0) }.joined(separator: "\n") + "\n").write(
      toFile: manifest, atomically: true, encoding: .utf8)

    // When haul runs with the .netrc and a cookie jar.
    let first = try await HaulBinary.run(
      [
        "run", manifest, "-o", "out", "--transport", transport, "--netrc-file",
        directory.file("home/.netrc"), "--cookie-jar", "jar.txt", "--report", "report.json",
        "--events", "--retries", "0",
      ], in: directory)

    // Then the files are exact, the jar holds the data host's session cookie (0600), the
    // login went to the login host only, and no secret was printed or reported.
    #expect(first.status == 0, "\(first.stderr)")
    for (name, bytes) in files {
      #expect(
        FileManager.default.contents(atPath: directory.file("out/\(name)")) == bytes, "\(name)")
    }
    let jar = try String(contentsOfFile: directory.file("jar.txt"), encoding: .utf8)
    let session = try #require(
      jar.split(separator: "\n").first { $0.contains("\tportal_session\t") }, "\(jar)")
    #expect(session.hasPrefix("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t"), "\(session)")
    #expect(jar.contains("#HttpOnly_localhost\tFALSE\t/\tFALSE\t0\turs_session\t"), "\(jar)")
    #expect(jar.contains("127.0.0.1\tFALSE\t/data\tFALSE\t4070908799\tportal_seen\t1\n"), "\(jar)")
    let mode =
      try FileManager.default.attributesOfItem(atPath: directory.file("jar.txt"))[
        .posixPermissions] as? Int
    #expect(mode == 0o600)
    expectCleanLogin(try portal.requests(), "haul \(transport)")
    let report = try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)
    let secrets =
      [Self.password, Data("\(Self.login):\(Self.password)".utf8).base64EncodedString()]
      + jar.split(separator: "\n").filter { !$0.hasPrefix("# ") && !$0.isEmpty }.compactMap {
        $0.split(separator: "\t").last.map(String.init)
      }.filter { $0.count >= 16 }
    #expect(secrets.count == 4, "the password, its Basic form and the two session cookies")
    for secret in secrets {
      for (name, text) in [("stdout", first.stdout), ("stderr", first.stderr), ("report", report)] {
        #expect(!text.contains(secret), "a secret in \(name)")
      }
    }

    // And a second run that loads the jar goes straight to the data host.
    let before = try portal.requests().count
    let second = try await HaulBinary.run(
      [
        "run", manifest, "-o", "again", "--transport", transport, "--cookies", "jar.txt",
        "--retries", "0", "-q",
      ], in: directory)
    #expect(second.status == 0, "\(second.stderr)")
    let later = try portal.requests().dropFirst(before)
    #expect(later.count == files.count, "\(later)")
    #expect(later.allSatisfy { $0["host"] as? String == "data" }, "\(later)")
    #expect(FileManager.default.contents(atPath: directory.file("again/a.bin")) == files["a.bin"])
  }

  @Test func unreadable_or_conflicting_login_and_cookie_files_are_usage_errors() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-portal-usage")
    defer { directory.remove() }
    try "http://127.0.0.1:9/x\n".write(
      toFile: directory.file("m.txt"), atomically: true, encoding: .utf8)
    let cases: [([String], String)] = [
      (["--netrc-file", "missing"], "missing: cannot be read"),
      (["--netrc", "--netrc-file", "x"], "cannot be combined"),
      (["--cookies", "missing"], "missing: cannot be read"),
    ]
    for (options, message) in cases {
      let result = try await HaulBinary.run(["run", "m.txt"] + options, in: directory)
      #expect(result.status == 2, "\(options)")
      #expect(result.stderr.contains(message), "\(options): \(result.stderr)")
    }
    // A --cookies file that is also the jar may be missing: the first run starts without.
    let first = try await HaulBinary.run(
      ["run", "m.txt", "--cookies", "j.txt", "--cookie-jar", "j.txt", "--retries", "0", "-q"],
      in: directory)
    #expect(first.status == 1, "\(first.stderr)")
    #expect(
      try String(contentsOfFile: directory.file("j.txt"), encoding: .utf8).hasPrefix("# Netscape"))
    // A .netrc others can read is used, with a warning.
    try "machine 127.0.0.1 login a password p\n".write(
      toFile: directory.file("open-netrc"), atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o644], ofItemAtPath: directory.file("open-netrc"))
    let warned = try await HaulBinary.run(
      ["run", "m.txt", "--netrc", "--retries", "0", "-q"], in: directory,
      environment: ["NETRC": directory.file("open-netrc")])
    #expect(warned.status == 1, "\(warned.stderr)")
    #expect(warned.stderr.contains("can be read by other users"), "\(warned.stderr)")
  }
}
