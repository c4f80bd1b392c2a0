/// The decisions of `CurlStreamGate`, as a value: which exchanges to an HTTP/2 origin go into
/// libcurl now, which wait, and which of those waiting go in once a connection came up or
/// streams came free. `Ticket` names an exchange (the gate's exchanges; numbers in
/// `StreamGateTests`).
///
/// An origin's known connections take `streamsPerConnection` exchanges each, plus one
/// exchange that opens the next connection (the opener); the rest wait, oldest first. Before
/// an origin's first connection has told its protocol, only its first exchange goes in; a
/// connection that agreed on HTTP/1.1 opens the gate for the origin for good. The count of
/// connections is what was seen open: one the server closes is not subtracted.
struct StreamGate<Ticket: Hashable> {
  private struct Origin {
    /// Whether its connections multiplex; `nil` until its first connection told.
    var multiplexes: Bool?
    /// Connections opened to it that agreed on HTTP/2.
    var connections = 0
    /// Its exchanges inside libcurl.
    var inside = 0
    /// The exchange let in to open the next connection, until it has a connection.
    var opener: Ticket?
    /// Exchanges waiting to go in, oldest first.
    var held: [Ticket] = []
    var heldHead = 0

    var hasHeld: Bool { heldHead < held.count }

    mutating func popHeld() -> Ticket {
      let ticket = held[heldHead]
      heldHead += 1
      if heldHead == held.count {
        held.removeAll(keepingCapacity: true)
        heldHead = 0
      }
      return ticket
    }
  }

  /// Streams one connection carries: libcurl's default `CURLMOPT_MAX_CONCURRENT_STREAMS`.
  let streamsPerConnection: Int
  private var origins: [String: Origin] = [:]
  /// Origins whose held exchanges may go in now (a connection came up, streams came free).
  private var ready: Set<String> = []
  /// The origin of each exchange counted in, until it leaves.
  private var counted: [Ticket: String] = [:]

  init(streamsPerConnection: Int = 100) {
    self.streamsPerConnection = max(1, streamsPerConnection)
  }

  /// Whether `ticket`, an exchange to `origin`, may go in now (it is then counted in); when
  /// not, it is held until `takeReady` hands it back. A `nil` origin (plain http, or an
  /// exchange that does not offer HTTP/2) always passes, uncounted.
  mutating func admit(_ ticket: Ticket, to origin: String?) -> Bool {
    guard let key = origin else { return true }
    var state = origins[key, default: Origin()]
    defer { origins[key] = state }
    if state.multiplexes == false { return true }
    guard !state.hasHeld, room(state) else {
      state.held.append(ticket)
      return false
    }
    enter(ticket, key, &state)
    return true
  }

  /// Whether an origin takes one more exchange: a stream of a known connection, or the
  /// opener of the next one.
  private func room(_ state: Origin) -> Bool {
    state.inside < state.connections * streamsPerConnection || state.opener == nil
  }

  private mutating func enter(_ ticket: Ticket, _ key: String, _ state: inout Origin) {
    if state.inside >= state.connections * streamsPerConnection { state.opener = ticket }
    state.inside += 1
    counted[ticket] = key
  }

  /// `ticket` has its connection; `opened`: it opened that connection, which agreed on
  /// HTTP/2 when `multiplexes`. What this lets go in, `takeReady` hands out.
  mutating func connected(_ ticket: Ticket, opened: Bool, multiplexes: Bool) {
    guard let key = counted[ticket], var state = origins[key] else { return }
    if opened {
      if multiplexes {
        state.connections += 1
        state.multiplexes = true
      } else if state.multiplexes == nil {
        state.multiplexes = false
      }
    }
    if state.opener == ticket { state.opener = nil }
    origins[key] = state
    if state.hasHeld { ready.insert(key) }
  }

  /// `ticket` left libcurl; nothing for one that was not counted in.
  mutating func left(_ ticket: Ticket) {
    guard let key = counted.removeValue(forKey: ticket), var state = origins[key] else {
      return
    }
    state.inside -= 1
    if state.opener == ticket { state.opener = nil }
    if state.inside == 0, !state.hasHeld, state.opener == nil {
      // An origin that never told is forgotten with its last exchange.
      origins[key] = state.multiplexes == nil ? nil : state
    } else {
      origins[key] = state
    }
    if state.hasHeld { ready.insert(key) }
  }

  /// The held exchanges that may go in now, oldest first per origin, each counted in (but
  /// for an origin that turned out HTTP/1.1).
  mutating func takeReady() -> [Ticket] {
    guard !ready.isEmpty else { return [] }
    var out: [Ticket] = []
    for key in ready {
      guard var state = origins[key] else { continue }
      while state.hasHeld, state.multiplexes == false || room(state) {
        let ticket = state.popHeld()
        if state.multiplexes != false { enter(ticket, key, &state) }
        out.append(ticket)
      }
      origins[key] = state
    }
    ready.removeAll(keepingCapacity: true)
    return out
  }

  /// Takes the held `ticket`, an exchange to `origin`, out of the gate; returns whether it
  /// was held.
  mutating func release(_ ticket: Ticket, from origin: String?) -> Bool {
    guard let key = origin, var state = origins[key],
      let index = state.held[state.heldHead...].firstIndex(of: ticket)
    else { return false }
    state.held.remove(at: index)
    origins[key] = state
    return true
  }

  /// Takes every held exchange for which `matches` holds out of the gate.
  mutating func releaseAll(where matches: (Ticket) -> Bool) -> [Ticket] {
    var out: [Ticket] = []
    for key in Array(origins.keys) {
      guard var state = origins[key], state.hasHeld else { continue }
      let waiting = state.held[state.heldHead...]
      out.append(contentsOf: waiting.filter(matches))
      state.held = waiting.filter { !matches($0) }
      state.heldHead = 0
      origins[key] = state
      if state.hasHeld { ready.insert(key) }
    }
    return out
  }
}
