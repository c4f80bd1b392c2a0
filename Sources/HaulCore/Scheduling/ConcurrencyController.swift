/// Chooses how many transfers are in flight under `-j auto`: the number grows while it
/// makes the run faster and shrinks when the servers push back.
///
/// It climbs like a slow start. Each answer brings the time its exchange took (from the
/// request to the end of the answer, connecting left out); once enough transfers started
/// at the current level have answered (a round), the level's throughput is estimated by
/// Little's law, level ÷ median time. While a step up raised that estimate by `growthGain`
/// (the answers did not slow down in proportion), it doubles again, and quadruples after a
/// step that scaled nearly in proportion (`linearGain`), as a link bound by its round trip
/// does: such a link reaches its level in a few round trips. Rounds judge only a link whose
/// answers wait for a round trip (`farRoundTrip`). Near a server what bounds the run is its
/// work and the client's, which the estimate does not see: a round of answers there takes
/// a millisecond or two, and the first of a run are slow while it gets under way, so steps
/// that scaled by chance would climb to levels that open connections the run does not need.
/// There, and where answers arrive too slowly for rounds (large files), rates measured over
/// windows of the run's own counts decide the same way. Once a step no longer pays, it
/// settles on the better of the last two levels and holds there, probing one step
/// (`probeFactor`) higher now and then, since what a server can take changes during a long
/// run. An overload answer (429, 503) halves the level, never below `floor`, and holds it.
///
/// A host that multiplexes (HTTP/2) skips the steps: streams cost its server a few
/// connections, so the level jumps to the streams the host allows, up to the ceiling
/// (`multiplexing`), where more streams can pay, on a server far enough away: told at once
/// by a long TLS handshake, else by a first round whose answers waited for the round trip
/// (`farRoundTrip`), not for each other. A near server only interleaves more answers on its
/// connection, and there the run's rate judges each step as for any near host. The
/// transport opens the further connections one at a time, each once the others are full.
/// The answers of transfers started before the jump still judge the level left; once a
/// whole level of transfers started at the new one has answered, their answers per second
/// (while the level bounds the run) judge it: against the level left's estimate when it had
/// one, else by their spread. Answers that all took about as long (`unqueuedSpread`) are a
/// link bound by its round trip, where the climb goes on from the jump's level, its next
/// step judged against the jump's median as any step of the climb; answers that spread out
/// are a server working through a queue, where the level left is tried again and the better
/// of the two held. A jump's round is the level's new slots (those it added to the level
/// left), so that it is judged one round trip after it, not two. A jump that did not beat
/// the level left by `keepGain` goes back and holds, as after any step that did not pay.
///
/// Only a level that bounds the run is judged: while no transfer waits for a slot of the
/// global limit (the manifest is ending, or per-host limits bound the run) nothing is
/// measured and nothing changes.
///
/// A value with no clock: time comes in as `now` (seconds on any monotonic scale) and rates
/// from the counts the run already keeps. `RunStateMachine` owns one. See
/// `ConcurrencyControllerTests`.
package struct ConcurrencyController: Sendable, Hashable {
  package struct Configuration: Sendable, Hashable {
    /// The level a run starts at: the fixed default's, so a run that never needs more
    /// behaves as before.
    package var initial = 16
    /// The lowest level pushback takes it to.
    package var floor = 4
    /// The highest level (`ConcurrencyController.defaultCeiling`).
    package var ceiling = ConcurrencyController.defaultCeiling
    /// The shortest window, in seconds: shorter ones measure the clock's jitter.
    package var minimumWindow = 0.05
    /// The longest window, in seconds, whatever it counted.
    package var maximumWindow = 2.0
    /// How much faster (×) a doubled level must be to double again.
    package var growthGain = 1.25
    /// How much faster (×) a doubled level must be to count as scaling in proportion, so
    /// that the next step quadruples: a long link then reaches its level in half the steps.
    package var linearGain = 1.8
    /// How much faster (×) a probed or doubled level must be to be kept.
    package var keepGain = 1.1
    /// How much higher (×) a probe from a held level goes.
    package var probeFactor = 1.5
    /// Measured windows at a held level before the next probe (doubling after each probe
    /// that did not pay, up to 16 times as many).
    package var windowsBeforeProbe = 8
    /// The fewest answers of transfers started at a level that judge it: fewer say more of
    /// the answers' spread than of the level.
    package var minimumRound = 16
    /// The share of a level that must answer to judge it (1/n): enough that the median is
    /// the level's, few enough that it is judged within about one answer time.
    package var roundDivisor = 4
    /// The least ratio of a jump's tenth-percentile answer time to its median that shows
    /// answers not queued at the server: a burst a server works through one by one answers
    /// spread evenly (a ratio near 0.2), a burst a long link carries answers together (near 1).
    package var unqueuedSpread = 0.5
    /// The shortest TLS handshake (seconds) that shows a server far enough away for a jump
    /// before any answer: a round trip of 10 ms or more (TLS 1.3 takes one, 1.2 two), where
    /// the host's streams pay whatever the server. A shorter one leaves the jump to
    /// the first round's answers (`multiplexing`), since on a near server the handshake's
    /// own work (a millisecond or two) is as long as the round trip it would measure.
    package var farHandshake = 0.02
    /// The shortest time to a first byte (seconds, the quickest of a round's answers) that
    /// shows a link whose answers wait for its round trip, where rounds judge a level: 10 ms,
    /// as `farHandshake`. Below it windows of the run's rate judge, and no jump is taken.
    package var farRoundTrip = 0.01

    package init() {}
  }

  /// What the controller is doing at the current level.
  package enum Phase: Sendable, Hashable {
    /// Doubling while it pays; `previous` is the level below, with its rate.
    case growing(previous: Level?)
    /// Staying at the level; probes after `windowsLeft` more measured windows.
    case holding(windowsLeft: Int)
    /// Trying a higher level; returns to `from` (with its rate) unless this one pays.
    case probing(from: Int, rate: Rate)
  }

  /// A level and the rate measured there.
  package struct Level: Sendable, Hashable {
    package var limit: Int
    package var rate: Rate
  }

  /// Completions and bytes per second over one window.
  package struct Rate: Sendable, Hashable {
    package var files: Double
    package var bytes: Double

    package init(files: Double, bytes: Double) {
      self.files = files
      self.bytes = bytes
    }

    /// How much faster (×) this is than `other`, by whichever of files or bytes grew more.
    package func gain(over other: Rate) -> Double {
      let files = other.files > 0 ? self.files / other.files : (self.files > 0 ? 2 : 1)
      let bytes = other.bytes > 0 ? self.bytes / other.bytes : (self.bytes > 0 ? 2 : 1)
      return max(files, bytes)
    }
  }

  /// A level and its throughput as a round estimated it (transfers per second).
  private struct Estimate: Sendable, Hashable {
    var limit: Int
    var throughput: Double
  }

  private struct Window: Sendable, Hashable {
    var start: Double
    var completions = 0
    var bytesAtStart: Int64
    /// Ticks in which the limit bounded the run (a transfer waited with every slot taken).
    var boundTicks = 0
    var ticks = 0
    /// The first window after a change only lets the new level get under way.
    var settling: Bool
  }

  /// The most transfers `-j auto` runs at once: each transfer in flight holds a file
  /// descriptor, an easy handle and its buffers, and a server's streams per connection
  /// (100 to 128) times a few connections is what one host takes.
  package static let defaultCeiling = 256

  package let configuration: Configuration
  /// Transfers allowed in flight now.
  package private(set) var limit: Int
  package private(set) var phase: Phase = .growing(previous: nil)
  private var window: Window
  private var overloaded = false
  private var probeBackoff = 1
  /// When the level last changed: only transfers started since answer for it.
  private var changedAt: Double
  /// Answer times (seconds) of transfers started at the current level, while it bound the
  /// run.
  private var round: [Double] = []
  /// The level below and its estimated throughput, from its round.
  private var previousRound: Estimate?
  /// After a jump (`multiplexing`): the level left, since when it was in force, and the
  /// answer times of transfers started at it, which judge it against the new level.
  private var jumpedFrom: Jump?
  /// The level left by a jump whose answers queued is being tried again: its round keeps
  /// the better of the two (`previousRound` holds the jump's).
  private var rechecking = false
  /// A jump the host's multiplexing allows, left to the current round's answers: taken when
  /// they show a link bound by its round trip (`multiplexing`).
  private var pendingJump: Int?
  /// The shortest time to the first byte among the current round's answers: the round trip
  /// and the server's time for one request, unqueued.
  private var roundFirstByte = Double.infinity

  private struct Jump: Sendable, Hashable {
    var limit: Int
    var since: Double
    var answers: [Double]
    /// Since when the new level has bound the run without a break: its answers per second
    /// count from then, so that a stretch with nothing waiting (a listing still being read)
    /// is not taken for slow answers.
    var boundSince: Double
  }

  /// A controller with the default configuration below `ceiling`, from a run's start.
  package init(ceiling: Int) {
    var configuration = Configuration()
    configuration.ceiling = max(1, ceiling)
    configuration.initial = min(configuration.initial, configuration.ceiling)
    configuration.floor = min(configuration.floor, configuration.ceiling)
    self.init(configuration: configuration, now: 0, bytes: 0)
  }

  package init(configuration: Configuration = .init(), now: Double, bytes: Int64) {
    self.configuration = configuration
    limit = min(max(configuration.initial, configuration.floor), configuration.ceiling)
    // The first window lets the run get under way: its connections open, and its first
    // answers arrive together.
    window = Window(start: now, bytesAtStart: bytes, settling: true)
    changedAt = now
  }

  /// An exchange answered in `answer` seconds (from its request to the end of its answer;
  /// its first byte after `firstByte`) after starting at `started`; `bytes` moved so far in
  /// the run; `bound`: a transfer waits for a global slot with every slot taken. Returns the
  /// new limit when it changed.
  package mutating func answered(
    answer: Double, firstByte: Double, started: Double, now: Double, bytes: Int64, bound: Bool
  ) -> Int? {
    guard case .growing = phase else { return nil }
    guard bound else {
      restartJudging(now: now)
      return nil
    }
    guard started >= changedAt else {
      if jumpedFrom.map({ started >= $0.since }) == true {
        jumpedFrom?.answers.append(max(answer, 1e-6))
      }
      return nil
    }
    round.append(max(answer, 1e-6))
    roundFirstByte = min(roundFirstByte, firstByte)
    if let jumped = jumpedFrom {
      // The level's new slots: the transfers left from before the jump hold the others.
      let whole = max(configuration.minimumRound, limit - jumped.limit)
      guard round.count >= whole else { return nil }
      jumpedFrom = nil
      let rate = Double(round.count) / max(now - jumped.boundSince, 1e-6)
      return judgeJump(from: jumped, rate: rate, now: now, bytes: bytes)
    }
    guard round.count >= max(configuration.minimumRound, limit / configuration.roundDivisor)
    else { return nil }
    guard rechecking || roundFirstByte >= configuration.farRoundTrip else {
      // Near the server answers wait for its work and the client's, not for a round trip,
      // and level ÷ answer time says nothing of what a level moves: windows of the run's
      // own rate decide (`tick`). A level left by a jump is still weighed against it.
      pendingJump = nil
      round.removeAll(keepingCapacity: true)
      roundFirstByte = .infinity
      return nil
    }
    let median = Self.median(&round)
    if let target = pendingJump {
      pendingJump = nil
      // The level's answers took about as long as the quickest first byte, a round trip: each
      // waited for the link, not behind the others, so more at once moves more.
      if target > limit, roundFirstByte >= median * configuration.unqueuedSpread {
        return jump(to: target, now: now, bytes: bytes)
      }
    }
    let measured = Estimate(limit: limit, throughput: Double(limit) / median)
    let previous = previousRound
    previousRound = measured
    guard let previous else { return grow(by: 2, from: nil, now: now, bytes: bytes) }
    if rechecking {
      // The level left, tried again after a jump whose answers queued: it stays unless the
      // jump moved more by `keepGain`; either way the level holds.
      rechecking = false
      phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
      return previous.throughput >= measured.throughput * configuration.keepGain
        ? change(to: previous.limit, now: now, bytes: bytes) : nil
    }
    let gain = measured.throughput / previous.throughput
    guard gain >= configuration.growthGain else {
      // The step up stopped paying: keep it only if it helped at all.
      phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
      return gain >= configuration.keepGain
        ? nil : change(to: previous.limit, now: now, bytes: bytes)
    }
    let factor = gain >= configuration.linearGain ? 4 : 2
    return grow(by: factor, from: nil, now: now, bytes: bytes)
  }

  /// A host multiplexes: its connections allow `streams` transfers in flight. While the
  /// level is still climbing, it jumps there (up to the ceiling) instead of climbing step by
  /// step: at once when the connection's TLS `handshake` (seconds; `nil` when an answer
  /// told) shows a far server (`farHandshake`), else when the current round has answered, if
  /// its answers waited for a round trip (`farRoundTrip`) rather than for each other
  /// (`unqueuedSpread`). Near a server, more streams only interleave its answers. Returns
  /// the new limit when it changed.
  package mutating func multiplexing(streams: Int, handshake: Double?, now: Double, bytes: Int64)
    -> Int?
  {
    let target = min(streams, configuration.ceiling)
    guard case .growing = phase, jumpedFrom == nil, target > limit else { return nil }
    guard let handshake, handshake >= configuration.farHandshake else {
      pendingJump = target
      return nil
    }
    return jump(to: target, now: now, bytes: bytes)
  }

  private mutating func jump(to target: Int, now: Double, bytes: Int64) -> Int? {
    let left = Jump(limit: limit, since: changedAt, answers: round, boundSince: now)
    previousRound = nil
    phase = .growing(previous: nil)
    let changed = change(to: target, now: now, bytes: bytes)
    jumpedFrom = left
    return changed
  }

  /// The level does not bound the run now: a jump's answers per second count again from
  /// the next moment it does.
  private mutating func restartJudging(now: Double) {
    guard jumpedFrom != nil else { return }
    jumpedFrom?.boundSince = now
    round.removeAll(keepingCapacity: true)
  }

  /// The level jumped to has answered a whole level's worth of transfers started at it, at
  /// `rate` answers per second while it bound the run.
  ///
  /// With an estimate of the level left: go back there and hold unless the jump beat it by
  /// `keepGain`; climb on from the jump if it beat it by `growthGain`, else hold. Without
  /// one (the connection told HTTP/2 before any answer): climb on if the round's answers
  /// were not queued (`unqueuedSpread`), else try the level left again, whose round then
  /// keeps the better of the two and holds.
  ///
  /// Why a whole level and a rate, not a quarter and a median as a step of the climb: the
  /// jump's transfers start in one burst, and the first of them to answer are the ones a
  /// server that queues requests served first, whose median says little of the level; how
  /// fast the whole level turns over does.
  private mutating func judgeJump(from left: Jump, rate: Double, now: Double, bytes: Int64)
    -> Int?
  {
    let jumped = Estimate(limit: limit, throughput: rate)
    var answers = left.answers
    guard answers.count * 2 >= configuration.minimumRound else {
      round.sort()
      let tenth = round[round.count / 10]
      let median = round[round.count / 2]
      guard tenth >= median * configuration.unqueuedSpread else {
        previousRound = jumped
        phase = .growing(previous: nil)
        let changed = change(to: left.limit, now: now, bytes: bytes)
        rechecking = true
        return changed
      }
      // The next step's round is judged by its median, as every step of the climb: the
      // jump's estimate must be of the same kind, or answers per second (which count the
      // run's own work between answers) would let any step past it look like a gain.
      previousRound = Estimate(limit: limit, throughput: Double(limit) / median)
      return grow(by: 2, from: nil, now: now, bytes: bytes)
    }
    let before = Double(left.limit) / Self.median(&answers)
    guard rate >= before * configuration.keepGain else {
      phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
      return change(to: left.limit, now: now, bytes: bytes)
    }
    guard rate >= before * configuration.growthGain else {
      phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
      return nil
    }
    previousRound = jumped
    return grow(by: 2, from: nil, now: now, bytes: bytes)
  }

  /// The median of `values`, which it sorts.
  private static func median(_ values: inout [Double]) -> Double {
    values.sort()
    return values[values.count / 2]
  }

  /// An attempt ended; `overload` when the server pushed back (429, 503, a refused or
  /// reset connection, a timeout).
  package mutating func attemptEnded(overload: Bool) {
    window.completions += 1
    if overload { overloaded = true }
  }

  /// Looks at the run now: `bytes` moved so far in the run, whether a transfer waits for a
  /// global slot with every slot taken. Returns the new limit when it changed.
  package mutating func tick(now: Double, bytes: Int64, bound: Bool) -> Int? {
    window.ticks += 1
    if bound { window.boundTicks += 1 } else { restartJudging(now: now) }
    if overloaded {
      overloaded = false
      let lowered = max(configuration.floor, limit / 2)
      phase = .holding(windowsLeft: configuration.windowsBeforeProbe * 2)
      return change(to: lowered, now: now, bytes: bytes)
    }
    let elapsed = now - window.start
    guard elapsed >= configuration.minimumWindow else { return nil }
    // Two turns of the level: over a long link answers come in bursts, one per round trip,
    // and a window of one burst measures where it was cut.
    let enough = window.completions >= max(16, limit * 2)
    guard enough || elapsed >= configuration.maximumWindow else { return nil }
    let wasBound = window.boundTicks * 2 > window.ticks
    let rate = Rate(
      files: Double(window.completions) / elapsed,
      bytes: Double(bytes - window.bytesAtStart) / elapsed)
    let settling = window.settling
    window = Window(start: now, bytesAtStart: bytes, settling: false)
    guard !settling else { return nil }
    guard wasBound else { return nil }
    return decide(rate, now: now, bytes: bytes)
  }

  private mutating func decide(_ rate: Rate, now: Double, bytes: Int64) -> Int? {
    switch phase {
    case .growing(let previous):
      // A jump is judged by its round of answers, not by windows.
      guard jumpedFrom == nil else { return nil }
      if let previous, rate.gain(over: previous.rate) < configuration.growthGain {
        // The doubling stopped paying: keep it only if it helped at all.
        let keep = rate.gain(over: previous.rate) >= configuration.keepGain
        phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
        return keep ? nil : change(to: previous.limit, now: now, bytes: bytes)
      }
      let factor =
        previous.map { rate.gain(over: $0.rate) >= configuration.linearGain } == true ? 4 : 2
      previousRound = nil
      return grow(by: factor, from: Level(limit: limit, rate: rate), now: now, bytes: bytes)
    case .holding(let windowsLeft):
      guard windowsLeft <= 1 else {
        phase = .holding(windowsLeft: windowsLeft - 1)
        return nil
      }
      let probe = min(
        configuration.ceiling, max(limit + 1, Int(Double(limit) * configuration.probeFactor)))
      guard probe > limit else {
        phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
        return nil
      }
      phase = .probing(from: limit, rate: rate)
      return change(to: probe, now: now, bytes: bytes)
    case .probing(let from, let base):
      if rate.gain(over: base) >= configuration.keepGain {
        // The server takes more now: climb again from here.
        probeBackoff = 1
        previousRound = nil
        return grow(by: 2, from: Level(limit: limit, rate: rate), now: now, bytes: bytes)
      }
      probeBackoff = min(probeBackoff * 2, 16)
      phase = .holding(windowsLeft: configuration.windowsBeforeProbe * probeBackoff)
      return change(to: from, now: now, bytes: bytes)
    }
  }

  /// Multiplies the level by `factor`, up to the ceiling (where it holds); `from`: the
  /// level left, with its rate over a window, when a window decided.
  private mutating func grow(by factor: Int, from level: Level?, now: Double, bytes: Int64)
    -> Int?
  {
    guard limit < configuration.ceiling else {
      phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
      return nil
    }
    phase = .growing(previous: level)
    return change(to: min(limit * factor, configuration.ceiling), now: now, bytes: bytes)
  }

  private mutating func change(to level: Int, now: Double, bytes: Int64) -> Int? {
    window = Window(start: now, bytesAtStart: bytes, settling: true)
    changedAt = now
    round.removeAll(keepingCapacity: true)
    roundFirstByte = .infinity
    jumpedFrom = nil
    pendingJump = nil
    rechecking = false
    guard level != limit else { return nil }
    limit = level
    return level
  }
}
