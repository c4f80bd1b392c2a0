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
/// slots bound them: it is spread again, so that its per-file work uses every loop. Plain
/// http is always HTTP/1.1 here (no h2c) and is never routed.
///
/// Until an origin's first connection has told which (its exchanges wait for it with
/// `CURLOPT_PIPEWAIT`), the loop that claimed it carries them all, so the first exchanges of
/// an HTTP/2 origin open one connection, not one per loop.
///
/// Threading: every method may be called from any thread; a lock guards the table.
final class CurlRoutes: Sendable {
  private enum Route: Sendable {
    /// The loop at this index carries the origin's exchanges.
    case loop(Int)
    /// Any loop may.
    case spread
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

  /// The loop that carries `origin`'s exchanges, which `claimant` becomes when none does
  /// yet; `nil` when any loop may.
  func loop(for origin: String, claimant: Int) -> Int? {
    routes.withLock { table in
      switch table[origin] {
      case .loop(let index)?: return index
      case .spread?: return nil
      case nil:
        table[origin] = .loop(claimant)
        return claimant
      }
    }
  }

  /// The loop that carries `origin`'s exchanges, if one does; claims nothing.
  func owner(of origin: String) -> Int? {
    routes.withLock { table in
      if case .loop(let index)? = table[origin] { return index }
      return nil
    }
  }

  /// A connection to `origin` agreed on HTTP/1.1: any loop may carry its exchanges from now
  /// on.
  func spread(_ origin: String) {
    routes.withLock { $0[origin] = .spread }
  }

  /// Whether a job's exchange handed from another loop is cancelled as it arrives: the loop
  /// it came from had carried out `mark` cancels of the jobs when it took the job's step,
  /// and the loop it arrives at `carried`. Each cancel reaches every loop, so the arriving
  /// loop carried out one the other had not, which would have stopped the exchange there.
  static func cancelsOnArrival(mark: Int, carried: Int) -> Bool { carried > mark }
}
