import Foundation
import Synchronization

/// Which loop carries the exchanges of each https origin, when the transport has several
/// (`TransportOptions.loops`).
///
/// Each loop's multi handle keeps connections of its own, so an origin's exchanges spread
/// over the loops would have every loop open connections to it. Over HTTP/2 that is what a
/// server pays for: the origin stays on the loop that first spoke to it, where its exchanges
/// are streams of that loop's connections, at most `CURLMOPT_MAX_HOST_CONNECTIONS`
/// (`--per-host`) of them, the documented ceiling. An origin whose first connection agreed on
/// HTTP/1.1 has one connection per exchange wherever it runs, and the scheduler's per-host
/// slots bound them: it is spread, so that its per-file work uses every loop. Plain http is
/// always HTTP/1.1 here (no h2c) and is never routed.
///
/// Until an origin's first connection has told which, the loop that opened it decides: it
/// starts the origin's exchanges (they wait for that connection with `CURLOPT_PIPEWAIT`),
/// and the other loops hold theirs (`Placement.hold`) until it has told (`settle`), then
/// start them where the answer puts them. So the first exchanges of an HTTP/2 origin open
/// one connection, not one per loop, and those of an HTTP/1.1 origin stay spread over the
/// loops they were started on, each opening its connection there.
///
/// Threading: every method may be called from any thread; a lock guards the table.
final class CurlRoutes: Sendable {
  private enum Route: Sendable {
    /// The loop at this index carries the origin's exchanges (HTTP/2).
    case loop(Int)
    /// The loop at this index opened the origin's first connection, which has not told yet
    /// whether it multiplexes.
    case deciding(Int)
    /// Any loop may.
    case spread
  }

  /// Where a loop puts an exchange to an https origin.
  enum Placement: Equatable {
    /// Start it on the asking loop.
    case here
    /// Hand it to the loop at this index, which carries the origin.
    case handOver(Int)
    /// Keep it until the origin's first connection has told (`settle`), then ask again.
    case hold
  }

  /// Every loop's mailbox, by index: where an exchange routed to a loop goes.
  let mailboxes: [CurlMailbox]
  private let routes = Mutex<[String: Route]>([:])

  init(mailboxes: [CurlMailbox]) {
    self.mailboxes = mailboxes
  }

  /// The key of `url`'s origin when it is https (`host:port`); `nil` for any other URL,
  /// which is never routed.
  static func origin(of url: URL) -> String? {
    origin(of: url, https: isHTTPS(url.scheme))
  }

  /// `origin(of:)` for a URL whose scheme was already found to be https or not (`isHTTPS`).
  static func origin(of url: URL, https: Bool) -> String? {
    guard https, let host = url.host else { return nil }
    return "\(host.lowercased()):\(url.port ?? 443)"
  }

  /// Whether `scheme` is https, ASCII case ignored, without the lower-cased copy
  /// `lowercased()` would allocate.
  static func isHTTPS(_ scheme: String?) -> Bool {
    guard let scheme, scheme.utf8.count == 5 else { return false }
    return scheme.hasPrefixIgnoringASCIICase("https")
  }

  /// Where the loop at `asking` puts an exchange to `origin`: the first one claims the
  /// origin's decision for `asking`, unless it cannot tell (`decides` false: it goes over
  /// HTTP/1.1 whatever the server offers), which starts where it is and claims nothing.
  func placement(of origin: String, asking: Int, decides: Bool = true) -> Placement {
    routes.withLock { table in
      switch table[origin] {
      case .loop(let index)?: return index == asking ? .here : .handOver(index)
      case .deciding(let index)?: return index == asking || !decides ? .here : .hold
      case .spread?: return .here
      case nil:
        guard decides else { return .here }
        table[origin] = .deciding(asking)
        return .here
      }
    }
  }

  /// The loop that carries or decides `origin`, if one does; claims nothing.
  func owner(of origin: String) -> Int? {
    routes.withLock { table in
      switch table[origin] {
      case .loop(let index)?, .deciding(let index)?: return index
      case .spread?, nil: return nil
      }
    }
  }

  /// A connection to `origin` told whether it `multiplexes` (HTTP/2): the deciding loop
  /// carries the origin from now on, or (HTTP/1.1) any loop may. Wakes every loop to start
  /// the exchanges it held, when this settled the origin.
  func settle(_ origin: String, multiplexes: Bool) {
    let settled = routes.withLock { table -> Bool in
      switch table[origin] {
      case .deciding(let index)?:
        table[origin] = multiplexes ? .loop(index) : .spread
        return true
      case .loop?:
        if !multiplexes { table[origin] = .spread }
        return false
      case .spread?, nil:
        return false
      }
    }
    if settled { release() }
  }

  /// An exchange of `origin` ended on the loop at `index` while that loop was still
  /// deciding the origin (its first connection failed before it told): any loop may carry
  /// the origin from now on, and the loops start the exchanges they held.
  func abandon(_ origin: String, by index: Int) {
    let abandoned = routes.withLock { table -> Bool in
      guard case .deciding(index)? = table[origin] else { return false }
      table[origin] = .spread
      return true
    }
    if abandoned { release() }
  }

  /// Wakes every loop to start the exchanges it held (`CurlMailbox.Command.released`).
  private func release() {
    for mailbox in mailboxes { _ = mailbox.post(.released) }
  }

  /// Whether a job's exchange handed from another loop is cancelled as it arrives: the loop
  /// it came from had carried out `mark` cancels of the jobs when it took the job's step,
  /// and the loop it arrives at `carried`. Each cancel reaches every loop, so the arriving
  /// loop carried out one the other had not, which would have stopped the exchange there.
  static func cancelsOnArrival(mark: Int, carried: Int) -> Bool { carried > mark }
}
