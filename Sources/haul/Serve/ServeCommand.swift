import Dispatch
import Foundation
import Glibc
import HaulClient
import HaulCore
import HaulServe

/// `haul serve`: opens the journal, restores the queue, listens on the control socket (and
/// `--listen`), tells systemd it is ready, and runs until SIGTERM, SIGINT or `haul stop`.
struct ServeCommand {
  let parsed: ParsedArguments

  func execute() async -> ExitCode {
    let setup: Setup
    do throws(UsageError) {
      setup = try Setup(parsed)
    } catch {
      Console.error(error.text + "\n")
      return .usage
    }
    // The run options are checked once here, as a job with no options of its own.
    let defaults = Self.runArguments(parsed)
    var interceptor: (any RequestInterceptor)?
    if let command = parsed.value("auth-command") {
      let tokens = CommandTokenInterceptor(command: command)
      do throws(TransferError) {
        try await tokens.prime()
      } catch {
        Console.error(UsageError("--auth-command: \(error.message)", command: "serve").text + "\n")
        return .usage
      }
      interceptor = tokens
    }
    do throws(UsageError) {
      let options = try RunOptions(
        ParsedArguments.parse(defaults + ["--", "/dev/null"], for: Commands.run))
      if case .tooLow(let message) = OpenFileLimit.fit(options.concurrency) {
        throw UsageError(message, command: "serve")
      }
    } catch {
      Console.error(error.text + "\n")
      return .usage
    }

    let daemon: Daemon
    var configuration = Daemon.Configuration(stateDirectory: setup.state, roots: setup.roots)
    configuration.fsync = parsed.has("fsync")
    do throws(ServiceError) {
      daemon = try Daemon(
        configuration: configuration,
        engine: ServeEngine(defaults: defaults, interceptor: interceptor))
    } catch {
      Console.error("haul serve: \(error.message)\n")
      return .usage
    }
    let stopping = Locked(false)
    let stop: @Sendable () -> Void = {
      let first = stopping.withLock { stopped in
        defer { stopped = true }
        return !stopped
      }
      if first { Task { await daemon.shutDown() } }
    }
    let router = APIRouter(
      daemon: daemon, access: AccessGuard(token: setup.token, allowedOrigins: setup.origins),
      onShutdown: stop)
    let server = HTTPServer(maxBodySize: setup.maxRequestSize) { router.respond($0) }
    // aria2's JSON-RPC on its own listener, with the same token, Host and Origin rules.
    let aria2 = Aria2Endpoint(
      rpc: Aria2RPC(
        daemon: daemon, access: AccessGuard(token: setup.token, allowedOrigins: setup.origins),
        onShutdown: stop), maxMessageSize: setup.maxRequestSize)
    let aria2Server = HTTPServer(maxBodySize: setup.maxRequestSize) { aria2.respond($0) }
    do {
      try server.listen(unixSocket: setup.socket)
      if let (host, port) = setup.listen {
        let bound = try server.listen(host: host, port: port)
        Console.error("haul serve: listening on http://\(Self.hostText(host)):\(bound)/\n")
        // For `haul page`, which prints the page's address.
        try ListenFile.write(state: setup.state, address: "\(Self.hostText(host)):\(bound)")
      }
      if let (host, port) = setup.aria2 {
        let bound = try aria2Server.listen(host: host, port: port)
        Console.error(
          "haul serve: aria2 JSON-RPC on http://\(Self.hostText(host)):\(bound)/jsonrpc\n")
      }
    } catch {
      aria2Server.stop()
      server.stop()
      Console.error("haul serve: cannot listen: \(error)\n")
      return .usage
    }
    daemon.start()
    Console.error("haul serve: ready on \(setup.socket)\n")
    SystemdNotifier.ready()

    let signals = (0..<2).map { _ in DispatchQueue(label: "haul.serve.signals") }
    let sources = [SIGTERM, SIGINT].enumerated().map { index, number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: signals[index])
      source.setEventHandler { stop() }
      source.resume()
      return source
    }
    await daemon.waitUntilStopped()
    SystemdNotifier.stopping()
    server.stop()
    aria2Server.stop()
    unlink(setup.socket)
    if setup.listen != nil { ListenFile.remove(state: setup.state) }
    for source in sources { source.cancel() }
    Console.error("haul serve: stopped\n")
    return .ok
  }

  /// The run options `haul serve` was given, as `haul run` arguments.
  static func runArguments(_ parsed: ParsedArguments) -> [String] {
    var arguments: [String] = []
    for option in Commands.serveRunOptions where parsed.has(option.long) {
      if option.takesValue {
        for value in parsed.all(option.long) { arguments += ["--\(option.long)", value] }
      } else {
        arguments.append("--\(option.long)")
      }
    }
    return arguments
  }

  /// The socket clients find by default (`DaemonAddress.default`), so that `haul serve` and
  /// `haul add` meet without options.
  static func defaultSocket(_ environment: [String: String]) -> String {
    if case .socket(let path) = DaemonAddress.default(environment: environment) { return path }
    return ServicePaths.stateDirectory(environment) + "/haul.sock"
  }

  static func hostText(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

  /// Where the daemon lives and who may call it, from the command line and the environment.
  struct Setup {
    var state: String
    var socket: String
    var roots: Roots
    var token: String
    var origins: [String]
    var listen: (String, Int)?
    /// `--aria2-rpc`: where aria2's JSON-RPC listens.
    var aria2: (String, Int)?
    var maxRequestSize: Int

    init(_ parsed: ParsedArguments) throws(UsageError) {
      guard parsed.positionals.isEmpty else {
        throw UsageError("unexpected argument '\(parsed.positionals[0])'", command: "serve")
      }
      let environment = ProcessInfo.processInfo.environment
      state = parsed.value("state-dir") ?? ServicePaths.stateDirectory(environment)
      do throws(ServiceError) {
        try ServicePaths.makePrivateDirectories(state)
        socket = parsed.value("socket") ?? ServeCommand.defaultSocket(environment)
        try ServicePaths.makePrivateDirectories((socket as NSString).deletingLastPathComponent)
        let rootPaths = parsed.all("root")
        roots = try Roots(
          rootPaths.isEmpty ? [FileManager.default.currentDirectoryPath] : rootPaths)
        token = try ServicePaths.token(file: parsed.value("token-file"), state: state)
      } catch {
        throw UsageError(error.message, command: "serve")
      }
      origins = parsed.all("allow-origin")
      maxRequestSize = 64 << 20
      if let text = parsed.value("max-request-size") {
        maxRequestSize = Int(try OptionValues(command: "serve").size("max-request-size", text))
      }
      if let text = parsed.value("listen") {
        listen = try Self.address(text, option: "listen", parsed)
      }
      if let text = parsed.value("aria2-rpc") {
        aria2 = try Self.address(text, option: "aria2-rpc", parsed)
      }
    }

    /// `[ADDR:]PORT` (`6800`, `127.0.0.1:6800`, `[::1]:6800`): a loopback address unless
    /// `--listen-public` is given; no address is 127.0.0.1.
    static func address(
      _ text: String, option: String, _ parsed: ParsedArguments
    ) throws(UsageError) -> (String, Int) {
      var host = "127.0.0.1"
      var portText = Substring(text)
      if let colon = text.lastIndex(of: ":") {
        host = String(text[..<colon])
        portText = text[text.index(after: colon)...]
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "127.0.0.1" }
      }
      guard let port = Int(portText), (0...65535).contains(port) else {
        throw UsageError("--\(option) must be [ADDR:]PORT, not '\(text)'", command: "serve")
      }
      let loopback = host.hasPrefix("127.") || host == "::1" || host == "localhost"
      guard loopback || parsed.has("listen-public") else {
        throw UsageError(
          "--\(option) '\(text)' is not a loopback address; add --listen-public to serve other "
            + "hosts (the token then guards the daemon alone)", command: "serve")
      }
      return (host == "localhost" ? "127.0.0.1" : host, port)
    }
  }
}
