import Foundation
import Synchronization

/// A thread that notices a client hanging up on a stream that has nothing to send.
///
/// Such a stream's connection is put aside (`MHD_suspend_connection`), and libmicrohttpd
/// watches no socket of a connection put aside; nor would it see a hang-up before its next
/// write. So this thread polls those sockets for `POLLRDHUP` (an event stream's client
/// never half-closes: a FIN means it has gone) and reports each one that hangs up; the
/// listener then ends the stream and wakes the connection, which libmicrohttpd closes.
///
/// The sockets to poll are asked for again after every wake-up, so a socket whose
/// connection was woken meanwhile (and perhaps closed, its number reused) is dropped; the
/// listener checks each report against the connections it still holds aside.
///
/// Threading: `refresh()` and `stop()` may be called from any thread; the state is the
/// wake-up pipe (immutable descriptors) and an atomic flag.
final class HTTPStreamWatcher: Sendable {
  private let wakePipe: WakePipe
  /// A refresh is asked for and the thread has not yet asked for the sockets again: later
  /// refreshes need not write to the pipe. When many streams are put aside at once (every
  /// reader after a commit), the thread wakes once for them, not once each.
  private let refreshPending = Atomic<Bool>(false)
  private let started = Atomic<Bool>(false)
  private let stopping = Atomic<Bool>(false)
  private let finished = DispatchSemaphore(value: 0)

  /// Makes the wake-up pipe; `start` starts the thread.
  init() throws(HTTPServerError) {
    wakePipe = try WakePipe()
  }

  /// Starts the thread. `sockets` lists the sockets to poll (it is called on the watcher's
  /// thread and must not block); `hangUp` is told each one that hung up. Both are dropped
  /// when the thread ends.
  func start(
    sockets: @escaping @Sendable () -> [Int32], hangUp: @escaping @Sendable (Int32) -> Void
  ) {
    guard !started.exchange(true, ordering: .sequentiallyConsistent) else { return }
    // The thread holds the watcher until `stop()` ends it.
    let thread = Thread { [self] in
      run(sockets: sockets, hangUp: hangUp)
      finished.signal()
    }
    thread.name = "haul-http-watcher"
    thread.start()
  }

  /// Makes the thread ask for the sockets again (a stream was put aside).
  func refresh() {
    guard !refreshPending.exchange(true, ordering: .sequentiallyConsistent) else { return }
    wakePipe.wake()
  }

  /// Ends the thread, if it started, and returns once it has ended.
  func stop() {
    guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
    if started.load(ordering: .sequentiallyConsistent) {
      wakePipe.wake()
      finished.wait()
    }
    wakePipe.close()
  }

  private func run(sockets: () -> [Int32], hangUp: (Int32) -> Void) {
    var polled: [pollfd] = []
    while !stopping.load(ordering: .sequentiallyConsistent) {
      polled.removeAll(keepingCapacity: true)
      polled.append(pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0))
      // Cleared before the sockets are asked for: a stream put aside after this point
      // writes to the pipe again, so the poll below returns for it.
      refreshPending.store(false, ordering: .sequentiallyConsistent)
      for socket in sockets() {
        polled.append(pollfd(fd: socket, events: WakePipe.peerHangUp, revents: 0))
      }
      guard poll(&polled, nfds_t(polled.count), -1) > 0 else { continue }
      if polled[0].revents != 0 { wakePipe.drain() }
      let gone = WakePipe.peerHangUp | Int16(POLLHUP) | Int16(POLLERR)
      for entry in polled.dropFirst() where entry.revents & gone != 0 {
        hangUp(entry.fd)
      }
    }
  }
}
