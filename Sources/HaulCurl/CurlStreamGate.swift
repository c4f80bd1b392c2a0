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
/// Threading: owned by one `CurlLoop` and used on its thread only.
final class CurlStreamGate {
  private struct Origin {
    /// Whether its connections multiplex; `nil` until its first connection told.
    var multiplexes: Bool?
    /// Connections opened to it that agreed on HTTP/2.
    var connections = 0
    /// Its exchanges inside libcurl.
    var inside = 0
    /// The exchange let in to open the next connection, until it has a connection.
    var opener: ObjectIdentifier?
    /// Exchanges waiting to go in, oldest first.
    var held: [CurlExchange] = []
    var heldHead = 0

    var hasHeld: Bool { heldHead < held.count }

    mutating func popHeld() -> CurlExchange {
      let exchange = held[heldHead]
      heldHead += 1
      if heldHead == held.count {
        held.removeAll(keepingCapacity: true)
        heldHead = 0
      }
      return exchange
    }
  }

  /// Streams one connection carries: libcurl's default `CURLMOPT_MAX_CONCURRENT_STREAMS`.
  let streamsPerConnection: Int
  private var origins: [String: Origin] = [:]
  /// Origins whose held exchanges may go in now (a connection came up, streams came free).
  private var ready: Set<String> = []

  init(streamsPerConnection: Int = 100) {
    self.streamsPerConnection = max(1, streamsPerConnection)
  }

  /// Whether `exchange` may go into libcurl now; when not, the gate holds it until
  /// `takeReady` hands it back.
  func admits(_ exchange: CurlExchange) -> Bool {
    guard !exchange.goesOverHTTP11, let key = exchange.httpsOrigin else { return true }
    var origin = origins[key, default: Origin()]
    defer { origins[key] = origin }
    if origin.multiplexes == false { return true }
    guard !origin.hasHeld, Self.room(origin, streamsPerConnection) else {
      origin.held.append(exchange)
      return false
    }
    enter(exchange, &origin)
    return true
  }

  /// Whether `origin` takes one more exchange: a stream of a known connection, or the opener
  /// of the next one.
  private static func room(_ origin: Origin, _ streams: Int) -> Bool {
    origin.inside < origin.connections * streams || origin.opener == nil
  }

  private func enter(_ exchange: CurlExchange, _ origin: inout Origin) {
    if origin.inside >= origin.connections * streamsPerConnection {
      origin.opener = ObjectIdentifier(exchange)
    }
    origin.inside += 1
    exchange.gate = self
    exchange.isGated = true
  }

  /// `exchange` has its connection (`CURLOPT_PREREQFUNCTION`); `opened`: it opened that
  /// connection, which agreed on HTTP/2 when `multiplexes`. Called inside libcurl: what it
  /// lets go in, `takeReady` hands out afterwards.
  func connected(_ exchange: CurlExchange, opened: Bool, multiplexes: Bool) {
    guard exchange.isGated, let key = exchange.httpsOrigin, var origin = origins[key] else {
      return
    }
    if opened {
      if multiplexes {
        origin.connections += 1
        origin.multiplexes = true
      } else if origin.multiplexes == nil {
        origin.multiplexes = false
      }
    }
    if origin.opener == ObjectIdentifier(exchange) { origin.opener = nil }
    origins[key] = origin
    if origin.hasHeld { ready.insert(key) }
  }

  /// `exchange` left libcurl.
  func left(_ exchange: CurlExchange) {
    guard exchange.isGated, let key = exchange.httpsOrigin, var origin = origins[key] else {
      return
    }
    exchange.isGated = false
    origin.inside -= 1
    if origin.opener == ObjectIdentifier(exchange) { origin.opener = nil }
    if origin.inside == 0, !origin.hasHeld, origin.opener == nil {
      origins[key] = origin.multiplexes == nil ? nil : origin
    } else {
      origins[key] = origin
    }
    if origin.hasHeld { ready.insert(key) }
  }

  /// The held exchanges that may go in now, oldest first per origin, each counted in.
  func takeReady() -> [CurlExchange] {
    guard !ready.isEmpty else { return [] }
    var out: [CurlExchange] = []
    for key in ready {
      guard var origin = origins[key] else { continue }
      while origin.hasHeld,
        origin.multiplexes == false || Self.room(origin, streamsPerConnection)
      {
        let exchange = origin.popHeld()
        if origin.multiplexes != false { enter(exchange, &origin) }
        out.append(exchange)
      }
      origins[key] = origin
    }
    ready.removeAll(keepingCapacity: true)
    return out
  }

  /// Takes the held `exchange` out of the gate; returns whether it was held.
  func release(_ exchange: CurlExchange) -> Bool {
    guard let key = exchange.httpsOrigin, var origin = origins[key] else { return false }
    guard let index = origin.held[origin.heldHead...].firstIndex(where: { $0 === exchange })
    else { return false }
    origin.held.remove(at: index)
    origins[key] = origin
    return true
  }

  /// Takes every held exchange for which `matches` holds out of the gate.
  func releaseAll(where matches: (CurlExchange) -> Bool) -> [CurlExchange] {
    var out: [CurlExchange] = []
    for key in Array(origins.keys) {
      guard var origin = origins[key], origin.hasHeld else { continue }
      let waiting = origin.held[origin.heldHead...]
      out.append(contentsOf: waiting.filter(matches))
      origin.held = waiting.filter { !matches($0) }
      origin.heldHead = 0
      origins[key] = origin
      if origin.hasHeld { ready.insert(key) }
    }
    return out
  }
}

@available(*, unavailable)
extension CurlStreamGate: Sendable {}
