/// Chooses how many transfers are in flight under `-j auto`: the number grows while it
/// makes the run faster and shrinks when the servers push back.
///
/// It climbs like a slow start. At each level it lets the transfers started at the new
/// level get under way (one settling window), then measures files and bytes per second
/// over a window of its own. While a doubling still raised either rate by `growthGain`,
/// it doubles again (and quadruples after one that scaled nearly in proportion,
/// `linearGain`, as a link bound by its round trip does), up to `ceiling`; once it no longer does, it settles on the better of
/// the last two levels and holds there, probing one step (`probeFactor`) higher now and
/// then, since what a server can take changes during a long run. An overload answer (429,
/// 503, a refused or reset connection, a timeout) halves the level, never below `floor`,
/// and holds it.
///
/// Only a level that bounds the run is judged: a window in which no transfer waited for a
/// slot of the global limit (the manifest is ending, or per-host limits bound the run) says
/// nothing about the limit and changes nothing.
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
    if bound { window.boundTicks += 1 }
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
      if let previous, rate.gain(over: previous.rate) < configuration.growthGain {
        // The doubling stopped paying: keep it only if it helped at all.
        let keep = rate.gain(over: previous.rate) >= configuration.keepGain
        phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
        return keep ? nil : change(to: previous.limit, now: now, bytes: bytes)
      }
      guard limit < configuration.ceiling else {
        phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
        return nil
      }
      let factor =
        previous.map { rate.gain(over: $0.rate) >= configuration.linearGain } == true ? 4 : 2
      phase = .growing(previous: Level(limit: limit, rate: rate))
      return change(to: min(limit * factor, configuration.ceiling), now: now, bytes: bytes)
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
        guard limit < configuration.ceiling else {
          phase = .holding(windowsLeft: configuration.windowsBeforeProbe)
          return nil
        }
        phase = .growing(previous: Level(limit: limit, rate: rate))
        return change(to: min(limit * 2, configuration.ceiling), now: now, bytes: bytes)
      }
      probeBackoff = min(probeBackoff * 2, 16)
      phase = .holding(windowsLeft: configuration.windowsBeforeProbe * probeBackoff)
      return change(to: from, now: now, bytes: bytes)
    }
  }

  private mutating func change(to level: Int, now: Double, bytes: Int64) -> Int? {
    window = Window(start: now, bytesAtStart: bytes, settling: true)
    guard level != limit else { return nil }
    limit = level
    return level
  }
}
