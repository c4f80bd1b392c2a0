import Foundation

/// `--auth-command`: sends the standard output of a command as `Authorization: Bearer
/// <token>` and runs the command again when a 401 says the token expired.
///
/// All transfers that got a 401 for the same token share one new run of the command. The
/// token is a secret: it is never printed, and it travels only to each entry's own origin
/// (as a transfer header, dropped on a redirect to another origin).
public actor CommandTokenInterceptor: RequestInterceptor {
  /// The command line, run with `/bin/sh -c`.
  public let command: String
  private var token: String?
  private var refreshing: Task<Result<String, TransferError>, Never>?

  public init(command: String) {
    self.command = command
  }

  /// Runs the command for the first token; call before the run starts, so that a broken
  /// command is a usage error rather than a run of failures.
  public func prime() async throws(TransferError) {
    _ = try await currentToken()
  }

  public func adapt(_ request: inout TransferRequest, for entry: ManifestEntry)
    async throws(TransferError)
  {
    let token = try await currentToken()
    request.headers.removeAll { $0.hasName("Authorization") }
    request.headers.append(HTTPField("Authorization", "Bearer \(token)"))
  }

  public func retry(after request: TransferRequest, for entry: ManifestEntry)
    async throws(TransferError) -> Bool
  {
    let sent = request.headers.value(for: "Authorization")
    if let token, sent != "Bearer \(token)" { return true }  // already refreshed meanwhile
    _ = try await refresh()
    return true
  }

  private func currentToken() async throws(TransferError) -> String {
    if let token { return token }
    return try await refresh()
  }

  private func refresh() async throws(TransferError) -> String {
    let task: Task<Result<String, TransferError>, Never>
    if let refreshing {
      task = refreshing
    } else {
      let command = command
      // The command blocks while it runs, so on a thread of its own: Swift's threads (one
      // per core) would all be held by it on a 1-core machine, SIGINT's cancel with them.
      task = Task.detached {
        await withCheckedContinuation { continuation in
          Thread { continuation.resume(returning: Self.run(command)) }.start()
        }
      }
      refreshing = task
    }
    let result = await task.value
    if refreshing == task { refreshing = nil }
    if case .success(let value) = result { token = value }
    return try result.get()
  }

  /// Runs `command` and returns its trimmed standard output; `auth` when it fails or prints
  /// nothing. Its standard error goes to haul's; its output is never echoed.
  static func run(_ command: String) -> Result<String, TransferError> {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardInput = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      return .failure(TransferError(.auth, "the auth command could not be started"))
    }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      return .failure(
        TransferError(.auth, "the auth command failed with status \(process.terminationStatus)"))
    }
    let token = String(decoding: output, as: UTF8.self).trimmingCharacters(
      in: .whitespacesAndNewlines)
    guard !token.isEmpty else {
      return .failure(TransferError(.auth, "the auth command printed no token"))
    }
    guard !token.contains(where: { $0 == "\r" || $0 == "\n" }) else {
      return .failure(TransferError(.auth, "the auth command printed more than one line"))
    }
    return .success(token)
  }
}
