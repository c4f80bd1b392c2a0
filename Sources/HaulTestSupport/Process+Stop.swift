import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Process {
  /// Ends a fixture's daemon: SIGTERM, then SIGKILL once `grace` seconds have passed, and
  /// waits for it to exit.
  func stop(grace: Double) {
    if isRunning {
      kill(processIdentifier, SIGTERM)
      let deadline = Date().addingTimeInterval(grace)
      while isRunning && Date() < deadline { usleep(10_000) }
      if isRunning { kill(processIdentifier, SIGKILL) }
    }
    waitUntilExit()
  }
}
