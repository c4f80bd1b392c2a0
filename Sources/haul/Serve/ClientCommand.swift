import Foundation
import Glibc
import HaulClient
import HaulCore
import HaulHF

/// The client commands of the background service: `add`, `jobs`, `status`, `pause`,
/// `resume`, `cancel`, `wait`, `events`, `stop`. Each is one or a few calls of `DaemonClient`
/// on the control socket; their lines are for people, `--json` prints the daemon's JSON.
struct ClientCommand {
  let name: String
  let parsed: ParsedArguments

  func execute() async -> ExitCode {
    let client = DaemonClient(
      address: parsed.value("socket").map { .socket(path: $0) } ?? .default())
    do throws(ClientFailure) {
      switch name {
      case Commands.add.name: return try await add(client)
      case Commands.jobs.name: return try await jobs(client)
      case Commands.status.name: return try await status(client)
      case Commands.pause.name, Commands.resume.name, Commands.cancel.name:
        return try await control(client)
      case Commands.wait.name:
        return try await JobWaiter(client: client, quiet: parsed.has("quiet"))
          .wait(for: try ids())
      case Commands.events.name: return try await events(client)
      case Commands.stop.name:
        try await call { () async throws(DaemonError) in try await client.shutdown() }
        return .ok
      default: return .usage
      }
    } catch {
      Console.error("haul \(name): \(error.message)\n")
      return error.exit
    }
  }

  private func add(_ client: DaemonClient) async throws(ClientFailure) -> ExitCode {
    let arguments = parsed.positionals
    guard !arguments.isEmpty else {
      throw ClientFailure("missing MANIFEST or URL (see 'haul add --help')", exit: .usage)
    }
    var options: [String: JobOption] = [:]
    for option in Commands.add.options where ServeEngine.jobOptions.contains(option.long) {
      guard parsed.has(option.long), option.long != "hf-cache" else { continue }
      if !option.takesValue {
        options[option.long] = .bool(true)
      } else if option.repeatable {
        options[option.long] = .strings(parsed.all(option.long))
      } else {
        options[option.long] = .string(parsed.value(option.long)!)
      }
    }
    // The output is the client's path: relative to where `haul add` runs, not the daemon.
    var output = parsed.value("output").map { path in
      path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
    // `--hf-cache` names the client's Hub cache, which becomes the job's output.
    if let cache = parsed.value("hf-cache") {
      guard output == nil else {
        throw ClientFailure(
          "--hf-cache puts files in the Hub cache: give no -o with it", exit: .usage)
      }
      let directory =
        cache.isEmpty ? HFSetup.cacheDirectory(in: ProcessInfo.processInfo.environment) : cache
      output =
        directory.hasPrefix("/")
        ? directory : FileManager.default.currentDirectoryPath + "/" + directory
      options["hf-cache"] = .bool(true)
    }
    let paused = parsed.has("paused")
    let isURL = arguments.allSatisfy { $0.contains("://") }
    let job: Job = try await call { () async throws(DaemonError) -> Job in
      if isURL {
        return try await client.submit(
          urls: arguments, output: output, options: options, paused: paused)
      }
      guard arguments.count == 1 else {
        throw .api(status: 400, code: "usage", message: "give one MANIFEST, or URLs")
      }
      if arguments[0] == "-" {
        let text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        return try await client.submit(
          manifest: text, output: output, options: options, paused: paused)
      }
      let path =
        arguments[0].hasPrefix("/")
        ? arguments[0] : FileManager.default.currentDirectoryPath + "/" + arguments[0]
      return try await client.submit(
        manifestFile: path, output: output, options: options, paused: paused)
    }
    if parsed.has("json") {
      Console.output(try await Self.raw(client, "GET", "/v1/jobs/\(job.id)"))
    } else {
      Console.output(job.id + "\n")
    }
    guard parsed.has("wait") else { return .ok }
    return try await JobWaiter(client: client, quiet: parsed.has("quiet")).wait(for: [job.id])
  }

  private func jobs(_ client: DaemonClient) async throws(ClientFailure) -> ExitCode {
    if parsed.has("json") {
      // The list alone, as a JSON array: what scripts iterate over.
      let data = try await Self.raw(client, "GET", "/v1/jobs")
      let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]
      let list = object?["jobs"] ?? []
      let text =
        (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys]))
        .map { String(decoding: $0, as: UTF8.self) } ?? "[]"
      Console.output(text + "\n")
      return .ok
    }
    let jobs = try await call { () async throws(DaemonError) in try await client.jobs() }
    var lines = ["ID                STATE     FILES          FAILED  BYTES       RATE        NAME"]
    for job in jobs {
      let done = job.succeeded + job.skipped + job.failed
      lines.append(
        [
          job.id, Self.pad(job.state.rawValue, 9), Self.pad("\(done)/\(job.total)", 14),
          Self.pad("\(job.failed)", 7), Self.pad(Format.bytes(job.bytes), 11),
          Self.pad(job.state == .active ? Format.rate(job.rate) : "-", 11), job.name ?? "",
        ].joined(separator: " "))
    }
    Console.output(lines.joined(separator: "\n") + "\n")
    return .ok
  }

  private func status(_ client: DaemonClient) async throws(ClientFailure) -> ExitCode {
    let ids = try ids()
    guard ids.count == 1 else { throw ClientFailure("give one job ID", exit: .usage) }
    if parsed.has("json") {
      Console.output(try await Self.raw(client, "GET", "/v1/jobs/\(ids[0])"))
      return .ok
    }
    let job = try await call { () async throws(DaemonError) in try await client.job(ids[0]) }
    var lines = [
      "job \(job.id): \(job.state.rawValue)", "  output   \(job.output)",
      "  files    \(job.succeeded) ok, \(job.skipped) skipped, \(job.failed) failed of \(job.total)",
      "  bytes    \(Format.bytes(job.bytes))"
        + (job.expectedBytes.map { " of \(Format.bytes($0))" } ?? ""),
    ]
    if job.state == .active {
      lines.append(
        "  rate     \(Format.rate(job.rate))" + (job.eta.map { ", ETA \(Format.clock($0))" } ?? ""))
    }
    for failure in job.failures ?? [] {
      lines.append(
        "  failed   \(failure.path) (line \(failure.line)): \(failure.error?.code ?? "")"
          + (failure.error.map { ": \($0.message)" } ?? ""))
    }
    Console.output(lines.joined(separator: "\n") + "\n")
    return .ok
  }

  private func control(_ client: DaemonClient) async throws(ClientFailure) -> ExitCode {
    var exit = ExitCode.ok
    for id in try ids() {
      do throws(ClientFailure) {
        let job = try await call { () async throws(DaemonError) -> Job in
          switch name {
          case Commands.pause.name: return try await client.pause(id)
          case Commands.resume.name: return try await client.resume(id)
          default: return try await client.cancel(id)
          }
        }
        Console.output(
          parsed.has("json")
            ? try await Self.raw(client, "GET", "/v1/jobs/\(job.id)")
            : "\(job.id) \(job.state.rawValue)\n")
      } catch {
        if case .noDaemon = error.underlying { throw error }
        Console.error("haul \(name): \(error.message)\n")
        exit = .failures
      }
    }
    return exit
  }

  private func events(_ client: DaemonClient) async throws(ClientFailure) -> ExitCode {
    var since: Int64?
    if let text = parsed.value("since") {
      guard let value = Int64(text), value >= 0 else {
        throw ClientFailure("--since must be an event id", exit: .usage)
      }
      since = value
    }
    // The stream reconnects by itself; a daemon that is not there at all ends it.
    _ = try await call { () async throws(DaemonError) in try await client.stats() }
    do throws(DaemonError) {
      // The events that arrived together are written with one write, and no write waits
      // for a later event's arrival.
      var iterator = client.events(since: since).makeAsyncIterator()
      var lines: [UInt8] = []
      lines.reserveCapacity(1 << 16)
      while let batch = try await iterator.nextBatch() {
        for event in batch { Self.appendLine(event, to: &lines) }
        if iterator.buffered == 0 || lines.count >= 1 << 16 {
          guard Console.output(lines) else { return .ok }
          lines.removeAll(keepingCapacity: true)
        }
      }
      if !lines.isEmpty { _ = Console.output(lines) }
    } catch {
      throw ClientFailure(error)
    }
    return .ok
  }

  /// One event as `haul events` prints it: `{"id": N, "event": "TYPE", "data": DATA}` and a
  /// line feed (no `id` for a `progress` sample), the data as the daemon sent it.
  static func appendLine(_ event: DaemonEvent, to lines: inout [UInt8]) {
    if let id = event.id {
      append("{\"id\": ", to: &lines)
      appendDecimal(id, to: &lines)
      append(", \"event\": ", to: &lines)
    } else {
      append("{\"event\": ", to: &lines)
    }
    JSONObject.appendQuoted(event.type, to: &lines)
    append(", \"data\": ", to: &lines)
    event.data.withUnsafeBytes { lines.append(contentsOf: $0) }
    append("}\n", to: &lines)
  }

  private static func append(_ text: StaticString, to lines: inout [UInt8]) {
    text.withUTF8Buffer { lines.append(contentsOf: $0) }
  }

  /// `value`'s decimal digits, without making a string.
  private static func appendDecimal(_ value: Int64, to lines: inout [UInt8]) {
    guard value > 0 else { return lines.append(contentsOf: String(value).utf8) }
    var rest = UInt64(value)
    let start = lines.count
    while rest > 0 {
      lines.append(UInt8(ascii: "0") + UInt8(rest % 10))
      rest /= 10
    }
    lines[start...].reverse()
  }

  private func ids() throws(ClientFailure) -> [String] {
    guard !parsed.positionals.isEmpty else {
      throw ClientFailure("missing job ID (haul jobs lists them)", exit: .usage)
    }
    for id in parsed.positionals where id.count != 16 || !id.allSatisfy(\.isHexDigit) {
      throw ClientFailure(
        "'\(id)' is not a job ID (16 hex digits; haul jobs lists them)", exit: .usage)
    }
    return parsed.positionals
  }

  static func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
  }

  /// The daemon's JSON answer, as it sent it.
  static func raw(_ client: DaemonClient, _ method: String, _ path: String)
    async throws(ClientFailure) -> String
  {
    let data = try await call { () async throws(DaemonError) in
      try await client.raw(method, path)
    }
    return String(decoding: data, as: UTF8.self)
  }
}

/// Runs one client call, turning its error into the command's message and exit status.
func call<T>(_ body: () async throws(DaemonError) -> T) async throws(ClientFailure) -> T {
  do throws(DaemonError) {
    return try await body()
  } catch {
    throw ClientFailure(error)
  }
}

/// Why a client command failed: its message and exit status.
struct ClientFailure: Error {
  var message: String
  var exit: ExitCode
  var underlying: DaemonError?

  init(_ message: String, exit: ExitCode) {
    self.message = message
    self.exit = exit
  }

  init(_ error: DaemonError) {
    underlying = error
    switch error {
    case .noDaemon(let address):
      message = "no daemon at \(address) (start one with haul serve)"
      exit = .usage
    case .api(_, let code, let text):
      message = text.isEmpty ? code : text
      exit =
        ["manifest", "usage", "not_found", "path_refused", "too_large"].contains(code)
        ? .usage : .failures
    default:
      message = error.description
      exit = .failures
    }
  }
}
