import Foundation
import Synchronization

/// aria2's notifications, sent to every open WebSocket of the aria2 port as the daemon's
/// events are committed: `{"jsonrpc":"2.0","method":"aria2.onDownloadStart","params":
/// [{"gid":"…"}]}`, no `id` (a JSON-RPC notification).
///
/// When each is sent follows aria2c 1.36 (`--enable-rpc`), watched side by side:
/// - `onDownloadStart`: a download starts, the first time or again after `unpause`
///   (`job-started`).
/// - `onDownloadPause`: a running download is paused. One that was waiting, or added
///   paused, is paused without a notification (`job-paused` of a job not running).
/// - `onDownloadStop`: a running download is removed. Removing one that was waiting or
///   paused sends nothing (`job-ended` in `removed`).
/// - `onDownloadComplete` and `onDownloadError`: a download ends well or in error
///   (`job-ended` in `complete` or `error`).
/// `onBtDownloadComplete`, which `system.listNotifications` lists as aria2's does, is never
/// sent: there is no BitTorrent.
///
/// Back-pressure: a notification is queued on each connection without waiting; a client
/// that reads too slowly is cut off (`WebSocketConnection.send`), never waited for.
///
/// Threading: `publish` runs under the daemon's lock (`Daemon.observeEvents`); `add` and
/// `remove` on the WebSocket thread. One lock covers the connections and the downloads
/// seen running.
final class Aria2Notifier: Sendable {
  private struct State {
    var connections: [ObjectIdentifier: WebSocketConnection] = [:]
    var running: Set<String> = []
  }

  private let state = Mutex(State())

  /// A connection that now receives the notifications.
  func add(_ connection: WebSocketConnection) {
    state.withLock { $0.connections[ObjectIdentifier(connection)] = connection }
  }

  /// A connection that closed.
  func remove(_ connection: WebSocketConnection) {
    _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
  }

  /// Sends the notifications `events` make to every connection; a connection that cannot
  /// take them (cut off, or closing) is dropped. Each notification is encoded and framed
  /// once, and a connection gets all of a commit's frames in one write.
  func publish(_ events: [EventRecord]) {
    state.withLock { state in
      var frames: [UInt8] = []
      for notification in Self.notifications(for: events, running: &state.running) {
        frames += WebSocketFrame(opcode: .text, payload: Self.encode(notification)).encoded()
      }
      guard !frames.isEmpty else { return }
      state.connections = state.connections.filter { _, connection in
        connection.send(frames: frames)
      }
    }
  }

  /// One notification: aria2's method and the download's GID.
  struct Notification: Equatable {
    var method: String
    var gid: String
  }

  /// The notifications `events` make, in order, given the downloads seen `running` (which
  /// it updates). Pure, for the tests.
  static func notifications(
    for events: [EventRecord], running: inout Set<String>
  ) -> [Notification] {
    var notifications: [Notification] = []
    for event in events {
      guard let gid = event.job else { continue }
      switch event.type {
      case "job-started":
        running.insert(gid)
        notifications.append(Notification(method: "aria2.onDownloadStart", gid: gid))
      case "job-paused":
        if running.remove(gid) != nil {
          notifications.append(Notification(method: "aria2.onDownloadPause", gid: gid))
        }
      case "job-ended":
        let wasRunning = running.remove(gid) != nil
        let state = (JSONText.object(event.data) as? [String: Any])?["state"] as? String
        switch state.flatMap(JobState.init(rawValue:)) {
        case .complete:
          notifications.append(Notification(method: "aria2.onDownloadComplete", gid: gid))
        case .error:
          notifications.append(Notification(method: "aria2.onDownloadError", gid: gid))
        case .removed where wasRunning:
          notifications.append(Notification(method: "aria2.onDownloadStop", gid: gid))
        default:
          break
        }
      default:
        continue
      }
    }
    return notifications
  }

  /// The notification's JSON text, keys in aria2's order.
  static func encode(_ notification: Notification) -> [UInt8] {
    Array(
      JSONText.encode(
        [
          "jsonrpc": "2.0", "method": notification.method, "params": [["gid": notification.gid]],
        ] as [String: Any]
      ).utf8)
  }
}
