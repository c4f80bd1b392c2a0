import Foundation
import Synchronization

/// Lets at most `limit` exchanges run at once per host (host name and port), in arrival order.
///
/// Why: corelibs arms a task's idle timer (the stall timeout) when the task starts, and only
/// libcurl callbacks restart it. A task that libcurl holds back because the host already has
/// `CURLMOPT_MAX_HOST_CONNECTIONS` connections gets no callback, so it failed with `timeout`
/// after the stall timeout without sending a byte. Waiting here instead, before the task is
/// created, keeps that wait outside the timer.
///
/// Cancellation: a caller cancelled while waiting leaves the line at once (`enter` returns
/// `false`). Continuations are resumed after leaving the lock.
final class HostGate: Sendable {
  private struct Waiter {
    var id: UInt64
    var continuation: CheckedContinuation<Bool, Never>
  }

  private struct State {
    var running: [String: Int] = [:]
    var waiting: [String: [Waiter]] = [:]
    /// Callers between taking a number and reaching the line; a cancelled one is removed.
    var arriving: Set<UInt64> = []
    var lastID: UInt64 = 0
  }

  private let limit: Int
  private let state = Mutex(State())

  init(limit: Int) {
    self.limit = max(1, limit)
  }

  /// The gate key of `url`: its host (lowercased) and port.
  static func key(for url: URL) -> String {
    let host = (url.host ?? "").lowercased()
    let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    return "\(host):\(port)"
  }

  /// Waits for a free slot for `key`; `false` when the calling task was cancelled first.
  /// After `true`, call `leave(key)` exactly once.
  func enter(_ key: String) async -> Bool {
    let id = state.withLock { state in
      state.lastID += 1
      state.arriving.insert(state.lastID)
      return state.lastID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let answer: Bool? = state.withLock { state in
          if state.arriving.remove(id) == nil { return false }
          if state.running[key, default: 0] < limit {
            state.running[key, default: 0] += 1
            return true
          }
          state.waiting[key, default: []].append(Waiter(id: id, continuation: continuation))
          return nil
        }
        if let answer { continuation.resume(returning: answer) }
      }
    } onCancel: {
      let waiter: Waiter? = state.withLock { state in
        if state.arriving.remove(id) != nil { return nil }
        guard let index = state.waiting[key]?.firstIndex(where: { $0.id == id }) else {
          return nil
        }
        let waiter = state.waiting[key]?.remove(at: index)
        if state.waiting[key]?.isEmpty == true { state.waiting[key] = nil }
        return waiter
      }
      waiter?.continuation.resume(returning: false)
    }
  }

  /// Frees the slot taken by a successful `enter(key)`, handing it to the next waiter.
  func leave(_ key: String) {
    let next: Waiter? = state.withLock { state in
      if var line = state.waiting[key], !line.isEmpty {
        let next = line.removeFirst()
        state.waiting[key] = line.isEmpty ? nil : line
        return next
      }
      let running = state.running[key, default: 1] - 1
      state.running[key] = running > 0 ? running : nil
      return nil
    }
    next?.continuation.resume(returning: true)
  }
}
