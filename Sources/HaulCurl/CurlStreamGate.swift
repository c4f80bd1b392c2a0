import HaulCore

/// Hands a loop's exchanges to an HTTP/2 origin to libcurl no faster than its connections
/// can carry them as streams, so that a burst beyond a full connection opens one further
/// connection, not one per waiting exchange.
///
/// libcurl 7.88 waits for an origin's first connection (`CURLOPT_PIPEWAIT`) only while it
/// does not know whether the origin multiplexes; once it does and every connection carries
/// `CURLMOPT_MAX_CONCURRENT_STREAMS` streams, each further exchange added opens a connection
/// of its own while the others are still being set up, up to `CURLMOPT_MAX_HOST_CONNECTIONS`:
/// 256 exchanges added at once to an h2 server opened 8 connections under `--per-host 8` and
/// 157 under `--per-host 256`, where 3 carry them. The gate lets in what the origin's known
/// connections have room for, plus one exchange that opens the next connection (the opener),
/// and holds the rest until that connection is up or streams come free.
///
/// Before an https origin's first connection has told its protocol, only its first exchange
/// goes in (libcurl would make the others wait for it anyway); a connection that agreed on
/// HTTP/1.1 opens the gate for good, since there each exchange is a connection and the
/// scheduler's per-host slots bound them. Plain http, and exchanges that do not offer
/// HTTP/2 (uploads), pass.
///
/// The count of connections is what the loop saw open; a connection the server closes is
/// not subtracted, so the gate errs towards letting in more, as libcurl alone would. A server
/// that allows fewer streams per connection than `streamsPerConnection` gets what libcurl
/// alone gives it.
///
/// The decisions are `StreamGate`'s, a value with pure tests; this class holds it for one
/// loop and tells each exchange which gate hears of its connection.
///
/// Threading: made by one `CurlLoop` on its thread, which owns it (`state` is `@LoopBound`).
final class CurlStreamGate {
  /// An exchange as the gate's value names it: by identity.
  struct Ticket: Hashable {
    let exchange: CurlExchange

    static func == (lhs: Ticket, rhs: Ticket) -> Bool { lhs.exchange === rhs.exchange }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(exchange)) }
  }

  @LoopBound private var state: StreamGate<Ticket>

  init(streamsPerConnection: Int = 100) {
    _state = LoopBound(wrappedValue: StreamGate(streamsPerConnection: streamsPerConnection))
  }

  /// The origin under which the gate counts `exchange`: its https origin, unless it goes
  /// over HTTP/1.1 whatever the server offers.
  private static func origin(of exchange: CurlExchange) -> String? {
    exchange.goesOverHTTP11 ? nil : exchange.httpsOrigin
  }

  /// Whether `exchange` may go into libcurl now; when not, the gate holds it until
  /// `takeReady` hands it back.
  func admits(_ exchange: CurlExchange) -> Bool {
    guard let origin = Self.origin(of: exchange) else { return true }
    exchange.gate = self
    return state.admit(Ticket(exchange: exchange), to: origin)
  }

  /// `exchange` has its connection (`CURLOPT_PREREQFUNCTION`); `opened`: it opened that
  /// connection, which agreed on HTTP/2 when `multiplexes`. Called inside libcurl: what it
  /// lets go in, `takeReady` hands out afterwards.
  func connected(_ exchange: CurlExchange, opened: Bool, multiplexes: Bool) {
    state.connected(Ticket(exchange: exchange), opened: opened, multiplexes: multiplexes)
  }

  /// `exchange` left libcurl.
  func left(_ exchange: CurlExchange) {
    guard exchange.gate === self else { return }
    exchange.gate = nil
    state.left(Ticket(exchange: exchange))
  }

  /// The held exchanges that may go in now, oldest first per origin, each counted in.
  func takeReady() -> [CurlExchange] {
    state.takeReady().map(\.exchange)
  }

  /// Takes the held `exchange` out of the gate; returns whether it was held.
  func release(_ exchange: CurlExchange) -> Bool {
    state.release(Ticket(exchange: exchange), from: exchange.httpsOrigin)
  }

  /// Takes every held exchange for which `matches` holds out of the gate.
  func releaseAll(where matches: (CurlExchange) -> Bool) -> [CurlExchange] {
    state.releaseAll { matches($0.exchange) }.map(\.exchange)
  }
}

@available(*, unavailable)
extension CurlStreamGate: Sendable {}
