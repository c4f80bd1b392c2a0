import HaulCore
import Testing

/// Drives a `ConcurrencyController` with answer times, transfer by transfer, against a
/// modelled server some round trips away; time is simulated, in steps of a millisecond.
@Suite("-j auto: rounds of answer times judge each level within about one round trip")
struct ConcurrencyControllerRoundTests {
  /// How long a request takes to answer, from how many are in flight as it starts (itself
  /// included).
  protocol AnswerModel {
    func answerTime(inFlight: Int) -> Double
    /// How long until the answer's first byte.
    func firstByte(inFlight: Int) -> Double
  }

  /// A server `roundTrip` seconds away that works on `capacity` requests at once: beyond
  /// that, answers queue and take longer in proportion.
  struct LatencyModel: AnswerModel {
    var roundTrip: Double
    var capacity: Int

    func answerTime(inFlight: Int) -> Double {
      roundTrip * max(1, Double(inFlight) / Double(capacity))
    }

    func firstByte(inFlight: Int) -> Double { answerTime(inFlight: inFlight) }
  }

  /// A server `roundTrip` seconds away that answers `rate` requests a second, one after
  /// another in the order they came: a burst answers spread out, each request after those
  /// ahead of it.
  struct QueueModel: AnswerModel {
    var roundTrip: Double
    var rate: Double

    func answerTime(inFlight: Int) -> Double { roundTrip + Double(inFlight) / rate }

    /// The answer's head leaves as the server takes the request up, after those ahead of it.
    func firstByte(inFlight: Int) -> Double { roundTrip + Double(inFlight - 1) / rate }
  }

  struct Outcome {
    /// Simulated seconds until the last file answered.
    var seconds: Double
    /// Each level the controller chose, in order.
    var levels: [Int]
  }

  /// Runs `files` transfers of 16 KiB, as many in flight as the controller allows (or
  /// `fixed`), ticking the controller every 50 ms as the scheduler does.
  /// `multiplexes`: the server speaks HTTP/2, which the first answer tells (with room for
  /// `streams` in flight), or, given `connected`, the connection at that time, before any
  /// answer, after a TLS handshake of `handshake` seconds (the curl transport learns it from
  /// TLS's ALPN as the first requests go out).
  func run(
    _ model: some AnswerModel, files: Int, fixed: Int? = nil, multiplexes streams: Int? = nil,
    connected: Double? = nil, handshake: Double = 0.04,
    controller: inout ConcurrencyController
  ) -> Outcome {
    let step = 0.001
    var now = 0.0
    var bytes: Int64 = 0
    var started = 0
    var answered = 0
    var inFlight: [(start: Double, first: Double, end: Double)] = []
    var levels = [controller.limit]
    var nextTick = 0.05
    var told = false
    func limit(_ controller: ConcurrencyController) -> Int { fixed ?? controller.limit }
    func note(_ change: Int?) {
      if let change { levels.append(change) }
    }
    func fill(_ controller: ConcurrencyController) {
      while started < files, inFlight.count < limit(controller) {
        let ahead = inFlight.count + 1
        inFlight.append(
          (now, now + model.firstByte(inFlight: ahead), now + model.answerTime(inFlight: ahead)))
        started += 1
      }
    }
    while answered < files {
      if let streams, let connected, !told, now >= connected {
        told = true
        note(
          controller.multiplexing(streams: streams, handshake: handshake, now: now, bytes: bytes))
        fill(controller)
      }
      // One answer at a time, each slot refilled before the next, as the scheduler does;
      // the answer is noted before its slot is freed.
      while let index = inFlight.firstIndex(where: { $0.end <= now }) {
        let transfer = inFlight[index]
        if answered == 0, let streams, connected == nil {
          note(
            controller.multiplexing(streams: streams, handshake: nil, now: now, bytes: bytes))
          fill(controller)
        }
        let bound = started < files && inFlight.count >= limit(controller)
        note(
          controller.answered(
            answer: transfer.end - transfer.start, firstByte: transfer.first - transfer.start,
            started: transfer.start, now: now, bytes: bytes, bound: bound))
        controller.attemptEnded(overload: false)
        inFlight.remove(at: index)
        bytes += 16_384
        answered += 1
        fill(controller)
      }
      fill(controller)
      if now >= nextTick {
        nextTick += 0.05
        let bound = started < files && inFlight.count >= limit(controller)
        note(controller.tick(now: now, bytes: bytes, bound: bound))
      }
      now += step
    }
    return Outcome(seconds: now, levels: levels)
  }

  @Test func on_a_link_bound_by_its_round_trip_it_reaches_the_ceiling_in_three_round_trips() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(
      LatencyModel(roundTrip: 0.04, capacity: 100_000), files: 5_000, controller: &controller)
    #expect(Array(outcome.levels.prefix(4)) == [16, 32, 128, 256])
    // 16 and 32 answer in a round trip each, 128 in one more; then the ceiling holds.
    var fixed = ConcurrencyController(now: 0, bytes: 0)
    let best = run(
      LatencyModel(roundTrip: 0.04, capacity: 100_000), files: 5_000, fixed: 256,
      controller: &fixed)
    #expect(outcome.seconds <= best.seconds + 3 * 0.04 + 0.01)
  }

  @Test func where_answers_slow_down_in_proportion_it_stops_near_the_servers_capacity() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(
      LatencyModel(roundTrip: 0.04, capacity: 64), files: 5_000, controller: &controller)
    #expect(outcome.levels.max()! <= 256)
    // 128 answers no sooner than 64 would, so what it settles on is within twice the
    // capacity; probes above may come and go.
    #expect(controller.limit >= 64)
    #expect(controller.limit <= 128)
  }

  @Test func a_server_saturated_at_the_start_keeps_the_initial_level() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(
      LatencyModel(roundTrip: 0.002, capacity: 8), files: 20_000, controller: &controller)
    // One blind doubling and probes above come back to where answers did not slow down.
    #expect(outcome.levels.max()! <= 32)
    #expect(controller.limit == 16)
  }

  @Test func answers_of_transfers_started_before_a_change_do_not_judge_the_new_level() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    // A first round at 16 doubles the level.
    for _ in 0..<16 {
      _ = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0, now: 0.04, bytes: 0, bound: true)
    }
    #expect(controller.limit == 32)
    // Slow answers of transfers started before the change say nothing of 32.
    for _ in 0..<100 {
      _ = controller.answered(
        answer: 1, firstByte: 1, started: 0.02, now: 0.05, bytes: 0, bound: true)
    }
    #expect(controller.limit == 32)
    // 32 answering as fast as 16 did scales in proportion: the level quadruples.
    for _ in 0..<16 {
      _ = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0.04, now: 0.08, bytes: 0, bound: true)
    }
    #expect(controller.limit == 128)
  }

  @Test func a_host_that_multiplexes_jumps_to_the_ceiling_after_its_first_round() {
    let link = LatencyModel(roundTrip: 0.04, capacity: 100_000)
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(link, files: 1_000, multiplexes: 800, controller: &controller)
    // The first answer tells HTTP/2; the first round's answers waited for a round trip.
    #expect(outcome.levels == [16, 256])
    var fixed = ConcurrencyController(now: 0, bytes: 0)
    let best = run(link, files: 1_000, fixed: 256, controller: &fixed)
    // The first round trip carries 16 instead of 256.
    #expect(outcome.seconds <= best.seconds + 0.04 + 0.01)
  }

  @Test func a_host_whose_far_connection_tells_it_multiplexes_jumps_before_any_answer() {
    let link = LatencyModel(roundTrip: 0.04, capacity: 100_000)
    var controller = ConcurrencyController(now: 0, bytes: 0)
    // The first 16 requests go out, and the connection says HTTP/2 as they do, after a
    // handshake of a round trip: no answer of the level left judges the jump, the answers'
    // spread does, and they came together.
    let outcome = run(
      link, files: 1_000, multiplexes: 800, connected: 0.001, controller: &controller)
    #expect(outcome.levels == [16, 256])
    var fixed = ConcurrencyController(now: 0, bytes: 0)
    let best = run(link, files: 1_000, fixed: 256, controller: &fixed)
    // 240 of the first round trip's transfers start a millisecond late.
    #expect(outcome.seconds <= best.seconds + 0.01)
    #expect(controller.limit == 256)
    #expect(controller.phase == .holding(windowsLeft: 8))
  }

  @Test func a_near_host_whose_answers_queue_never_jumps() {
    // No round trip, a server that answers 8,000 a second one after another, and a TLS
    // handshake of a millisecond: the first round's answers queued behind each other.
    let server = QueueModel(roundTrip: 0, rate: 8_000)
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(
      server, files: 5_000, multiplexes: 800, connected: 0.001, handshake: 0.001,
      controller: &controller)
    #expect(outcome.levels.max()! <= 32)
    var fixed = ConcurrencyController(now: 0, bytes: 0)
    let best = run(server, files: 5_000, fixed: 16, controller: &fixed)
    #expect(outcome.seconds <= best.seconds * 1.1)
  }

  @Test func a_near_handshake_leaves_the_jump_to_answers_that_waited_for_the_round_trip() {
    // A handshake that says little (a millisecond), then answers a round trip of 40 ms
    // away, all alike: the first round shows the link's length, and the level jumps then.
    let link = LatencyModel(roundTrip: 0.04, capacity: 100_000)
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(
      link, files: 1_000, multiplexes: 800, connected: 0.001, handshake: 0.001,
      controller: &controller)
    #expect(outcome.levels == [16, 256])
  }

  @Test func near_a_server_windows_judge_and_answers_that_came_together_do_not_jump() {
    // Two milliseconds away, a server that answers every request alike: the first round's
    // answers came together, but a round trip that short says nothing of what a hundred
    // streams move. The run's rate over windows decides: it doubles where the rate doubled.
    let link = LatencyModel(roundTrip: 0.002, capacity: 100_000)
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(
      link, files: 20_000, multiplexes: 800, connected: 0.0005, handshake: 0.001,
      controller: &controller)
    #expect(outcome.levels[1] == 32)
    #expect(outcome.levels.max()! >= 128)
    // No change before a window has measured a rate: the first settles, the second decides.
    var early = ConcurrencyController(now: 0, bytes: 0)
    let short = run(
      link, files: 800, multiplexes: 800, connected: 0.0005, handshake: 0.001,
      controller: &early)
    #expect(short.levels == [16])
  }

  @Test func a_jump_to_a_server_that_moves_no_more_goes_back_to_the_level_left() {
    // A handshake of 40 ms jumps at once; but the server, with no round trip, answers 8,000
    // a second one after another whatever the level: the 16 started before the jump answer
    // as fast as the 240 after it.
    let server = QueueModel(roundTrip: 0, rate: 8_000)
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(
      server, files: 5_000, multiplexes: 800, connected: 0.001, handshake: 0.04,
      controller: &controller)
    #expect(Array(outcome.levels.prefix(3)) == [16, 256, 16])
    var fixed = ConcurrencyController(now: 0, bytes: 0)
    let best = run(server, files: 5_000, fixed: 100, controller: &fixed)
    #expect(outcome.seconds <= best.seconds * 1.1)
  }

  @Test func a_jump_no_answer_judges_climbs_on_when_its_answers_came_together() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    // A host with room for one connection's streams (`--per-host 1`).
    #expect(controller.multiplexing(streams: 100, handshake: 0.04, now: 0, bytes: 0) == 100)
    // The level's new slots answer a round trip later, all alike: a long link.
    var changes: [Int] = []
    for _ in 0..<84 {
      if let change = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0, now: 0.04, bytes: 0, bound: true)
      {
        changes.append(change)
      }
    }
    #expect(changes == [200])
    // 200 answering as fast: a second connection's worth doubled what moved; the ceiling.
    for _ in 0..<50 {
      _ = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0.04, now: 0.08, bytes: 0, bound: true)
    }
    #expect(controller.limit == 256)
  }

  @Test func a_step_past_the_jump_is_judged_against_the_jumps_median() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    // A host with room for one connection's streams (`--per-host 1`).
    #expect(controller.multiplexing(streams: 100, handshake: 0.04, now: 0, bytes: 0) == 100)
    // The new slots answer together, 10 ms after the jump: no queue, so the climb goes on.
    for _ in 0..<84 {
      _ = controller.answered(
        answer: 0.01, firstByte: 0.01, started: 0, now: 0.01, bytes: 0, bound: true)
    }
    #expect(controller.limit == 200)
    // 200 answer in twice the time: they move what 100 did, though 200 over 20 ms is more
    // than the 84 answers the jump's round counted in its 10 ms. Back to 100, and hold.
    var changes: [Int] = []
    for _ in 0..<50 {
      if let change = controller.answered(
        answer: 0.02, firstByte: 0.02, started: 0.01, now: 0.03, bytes: 0, bound: true)
      {
        changes.append(change)
      }
    }
    #expect(changes == [100])
    #expect(controller.phase == .holding(windowsLeft: 8))
  }

  @Test func a_level_left_that_answers_faster_is_kept() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    // A host with room for one connection's streams (`--per-host 1`).
    #expect(controller.multiplexing(streams: 100, handshake: 0.04, now: 0, bytes: 0) == 100)
    // The level's 84 new slots answer over 17 ms, spread out as a server's queue spreads
    // them: 5,000 a second, and no answer of the level left to compare with.
    var changes: [Int] = []
    for index in 0..<84 {
      let answer = 0.0002 * Double(index + 1)
      if let change = controller.answered(
        answer: answer, firstByte: answer, started: 0, now: 0.0168, bytes: 0, bound: true)
      {
        changes.append(change)
      }
    }
    #expect(changes == [16])
    // 16 answering in 2 ms each: 8,000 a second, better than 100's: 16 holds.
    for _ in 0..<16 {
      #expect(
        controller.answered(
          answer: 0.002, firstByte: 0.002, started: 0.017, now: 0.03, bytes: 0, bound: true)
          == nil)
    }
    #expect(controller.limit == 16)
    #expect(controller.phase == .holding(windowsLeft: 8))
  }

  @Test func a_jump_that_did_not_pay_goes_back_and_holds() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    // The first answer tells the host multiplexes: 16 jumps to the ceiling.
    #expect(
      controller.multiplexing(
        streams: 800, handshake: 0.04, now: 0.04, bytes: 0) == 256)
    // The answers of transfers started at 16 judge 16: 400 transfers per second.
    for _ in 0..<16 {
      _ = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0, now: 0.04, bytes: 0, bound: true)
    }
    #expect(controller.limit == 256)
    // A server that slows every answer alike: 256 in flight answer 16 times later, so the
    // whole level has answered 0.66 s after the jump, no sooner than 16 would have.
    var changes: [Int] = []
    for _ in 0..<256 {
      let change = controller.answered(
        answer: 0.64, firstByte: 0.64, started: 0.04, now: 0.7, bytes: 0, bound: true)
      if let change { changes.append(change) }
    }
    #expect(changes == [16])
    #expect(controller.phase == .holding(windowsLeft: 8))
  }

  @Test func a_jump_that_paid_holds_at_the_streams() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    #expect(
      controller.multiplexing(
        streams: 800, handshake: 0.04, now: 0.04, bytes: 0) == 256)
    for _ in 0..<16 {
      _ = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0, now: 0.04, bytes: 0, bound: true)
    }
    // Answers slowed down by a quarter only: the whole level answered within 0.06 s, ten
    // times as fast as 16 would have.
    for index in 0..<256 {
      #expect(
        controller.answered(
          answer: 0.05, firstByte: 0.05, started: 0.04, now: 0.1, bytes: 0, bound: true) == nil)
      // A quarter of the level is not enough to judge a jump.
      if index == 63 { #expect(controller.phase == .growing(previous: nil)) }
    }
    #expect(controller.limit == 256)
    #expect(controller.phase == .holding(windowsLeft: 8))
    // It jumps once: a later answer over HTTP/2 changes nothing.
    #expect(
      controller.multiplexing(streams: 800, handshake: 0.04, now: 0.2, bytes: 0)
        == nil)
  }

  @Test func a_server_that_slows_in_proportion_sends_a_jump_back() {
    // Answers queue beyond 16 in flight: 256 streams move what 16 do.
    let link = LatencyModel(roundTrip: 0.04, capacity: 16)
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let outcome = run(link, files: 2_000, multiplexes: 800, controller: &controller)
    #expect(Array(outcome.levels.prefix(3)) == [16, 256, 16])
  }

  @Test func a_jump_goes_no_higher_than_the_streams_allowed() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    // Room for fewer streams than the level: nothing to jump to.
    #expect(
      controller.multiplexing(streams: 12, handshake: 0.04, now: 0.04, bytes: 0)
        == nil)
    #expect(controller.limit == 16)
    // One connection's worth of streams, below the ceiling.
    #expect(
      controller.multiplexing(
        streams: 100, handshake: 0.04, now: 0.05, bytes: 0) == 100)
  }

  @Test func windows_do_not_judge_a_jump_before_its_round() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    // One connection's worth of streams, so that a window could still double the level.
    #expect(
      controller.multiplexing(
        streams: 100, handshake: 0.04, now: 0.04, bytes: 0) == 100)
    // Windows that would climb from a level reached step by step: only the round decides.
    var completed: Int64 = 0
    for tick in 1...40 {
      for _ in 0..<300 { controller.attemptEnded(overload: false) }
      completed += 300 * 16_384
      #expect(
        controller.tick(now: 0.04 + Double(tick) * 0.05, bytes: completed, bound: true) == nil)
    }
    #expect(controller.limit == 100)
  }

  /// A folder being listed: the first answer says HTTP/2 while little waits; `unbound`
  /// tells the controller of seconds in which nothing waited for a slot; then the listing
  /// fills the level, which answers a whole level within 0.1 s. Returns the changes then.
  func jumpJudgedAfterAnUnboundStretch(
    _ unbound: (inout ConcurrencyController) -> Void
  ) -> (changes: [Int], controller: ConcurrencyController) {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    _ = controller.multiplexing(
      streams: 800, handshake: 0.04, now: 0.04, bytes: 0)
    for _ in 0..<16 {
      _ = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0, now: 0.04, bytes: 0, bound: true)
    }
    unbound(&controller)
    var changes: [Int] = []
    for _ in 0..<256 {
      let change = controller.answered(
        answer: 0.05, firstByte: 0.05, started: 4.96, now: 5.05, bytes: 0, bound: true)
      if let change { changes.append(change) }
    }
    return (changes, controller)
  }

  @Test func a_jump_is_judged_over_the_stretch_where_its_level_bounds_the_run() {
    // Counted from the jump, 256 answers in 5 s would be slower than 16's 400 a second.
    let byAnswer = jumpJudgedAfterAnUnboundStretch {
      _ = $0.answered(
        answer: 0.04, firstByte: 0.04, started: 4.9, now: 4.95, bytes: 0, bound: false)
    }
    #expect(byAnswer.changes.isEmpty)
    #expect(byAnswer.controller.limit == 256)
    #expect(byAnswer.controller.phase == .holding(windowsLeft: 8))
    let byTick = jumpJudgedAfterAnUnboundStretch {
      _ = $0.tick(now: 4.95, bytes: 0, bound: false)
    }
    #expect(byTick.changes.isEmpty)
    #expect(byTick.controller.limit == 256)
  }

  @Test func pushback_after_a_jump_halves_the_new_level_and_holds() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    #expect(
      controller.multiplexing(
        streams: 800, handshake: 0.04, now: 0.04, bytes: 0) == 256)
    for _ in 0..<16 {
      _ = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0, now: 0.04, bytes: 0, bound: true)
    }
    controller.attemptEnded(overload: true)
    #expect(controller.tick(now: 0.05, bytes: 0, bound: true) == 128)
    // Slow answers at the halved level do not send it back to 16: it holds.
    for _ in 0..<64 {
      #expect(
        controller.answered(answer: 1, firstByte: 1, started: 0.05, now: 1.1, bytes: 0, bound: true)
          == nil)
    }
    #expect(controller.limit == 128)
  }

  @Test func a_held_or_reduced_level_does_not_jump() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    controller.attemptEnded(overload: true)
    #expect(controller.tick(now: 0.05, bytes: 0, bound: true) == 8)
    #expect(
      controller.multiplexing(streams: 800, handshake: 0.04, now: 0.1, bytes: 0)
        == nil)
    #expect(controller.limit == 8)
  }

  @Test func answers_while_the_limit_bounds_nothing_change_nothing() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    for _ in 0..<1_000 {
      _ = controller.answered(
        answer: 0.04, firstByte: 0.04, started: 0, now: 0.04, bytes: 0, bound: false)
    }
    #expect(controller.limit == 16)
  }
}
