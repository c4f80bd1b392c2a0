import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Process {
  /// Starts `binary` with `arguments` as a fixture's daemon or helper command: no standard
  /// input, its output discarded (the fixtures read the daemons' own log files), its
  /// standard error appended to the file at `errors` when given (created if missing).
  static func daemon(_ binary: String, _ arguments: [String], errors: String? = nil) throws
    -> Process
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    if let errors {
      if !FileManager.default.fileExists(atPath: errors) {
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
      }
      guard let handle = FileHandle(forWritingAtPath: errors) else {
        throw FixtureError("cannot open \(errors) for writing")
      }
      handle.seekToEndOfFile()
      process.standardError = handle
    }
    try process.run()
    return process
  }

  /// Whether the pid file at `path` names this process. nginx and tinyproxy write theirs
  /// only once their listening sockets are bound, so a fixture that also waits for it
  /// cannot mistake another server that took the port for its own daemon.
  func wrotePidFile(_ path: String) -> Bool {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == processIdentifier
  }

  /// Ends a fixture's daemon: SIGTERM, then SIGKILL once `grace` seconds have passed, and
  /// waits for it to exit, by the kernel's word (`hasExited`).
  func stop(grace: Double) {
    if !hasExited {
      kill(processIdentifier, SIGTERM)
      let deadline = Date().addingTimeInterval(grace)
      while !hasExited && Date() < deadline { usleep(10_000) }
      if !hasExited { kill(processIdentifier, SIGKILL) }
    }
    waitForExit()
  }
}
