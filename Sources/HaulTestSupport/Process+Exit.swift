import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How a process ended: its exit status (or the number of the signal that ended it), as
/// `Process.terminationStatus` gives it, and whether it exited or a signal ended it.
public struct ProcessEnd: Sendable, Equatable {
  public var status: Int32
  public var reason: Process.TerminationReason
}

extension Process {
  /// How the process ended, once it has; `nil` while it runs.
  ///
  /// Read from the kernel with `waitid(WNOWAIT)`, which leaves the process for Foundation to
  /// reap, because `isRunning` can learn of an exit long after it: corelibs sees it when the
  /// child's end of a socket pair closes, and that end is inherited by any child another test
  /// spawns at the same moment (corelibs closes, in each child, the descriptors open when it
  /// built the spawn's actions, not one made just after), so `isRunning` stays `true` until
  /// that other process (a haul run, a server fixture) has ended too. Until Foundation has
  /// reaped it, `terminationStatus` and `terminationReason` stop the program: read these.
  public var end: ProcessEnd? {
    if !isRunning { return ProcessEnd(status: terminationStatus, reason: terminationReason) }
    let pid = processIdentifier
    var info = siginfo_t()
    // Fails (ECHILD) only once Foundation has reaped it: `isRunning` says so next time.
    guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return nil }
    let child = info._sifields._sigchld
    guard child.si_pid == pid else { return nil }
    let exited = info.si_code == Int32(CLD_EXITED)
    return ProcessEnd(status: child.si_status, reason: exited ? .exit : .uncaughtSignal)
  }

  /// Whether the process has exited, by the kernel's word (`end`).
  public var hasExited: Bool { end != nil }

  /// Waits until the process has ended, by the kernel's word (`end`), and says how:
  /// `waitUntilExit()` waits for Foundation to notice, which can be many seconds later.
  /// Blocks the calling thread; from async code, call it through `onOwnThread`.
  @discardableResult
  public func waitForEnd() -> ProcessEnd {
    while true {
      if let end { return end }
      usleep(5_000)
    }
  }

  /// The exit status once the process has ended (`waitForEnd`).
  @discardableResult
  public func waitForExit() -> Int32 { waitForEnd().status }
}
