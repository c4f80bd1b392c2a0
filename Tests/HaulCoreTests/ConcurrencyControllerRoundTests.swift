import HaulCore
import Testing

/// Drives a `ConcurrencyController` with answer times, transfer by transfer, against a
/// modelled server some round trips away; time is simulated, in steps of a millisecond.
@Suite("-j auto: rounds of answer times judge each level within about one round trip")
struct ConcurrencyControllerRoundTests {
  /// A server `roundTrip` seconds away that works on `capacity` requests at once: beyond
  /// that, answers queue and take longer in proportion.
  struct LatencyModel {
    var roundTrip: Double
    var capacity: Int

    func answerTime(inFlight: Int) -> Double {
      roundTrip * max(1, Double(inFlight) / Double(capacity))
    }
  }

  struct Outcome {
    /// Simulated seconds until the last file answered.
    var seconds: Double
    /// Each level the controller chose, in order.
    var levels: [Int]
  }

  /// Runs `files` transfers of 16 KiB, as many in flight as the controller allows (or
  /// `fixed`), ticking the controller every 50 ms as the scheduler does.
  func run(
    _ model: LatencyModel, files: Int, fixed: Int? = nil,
    controller: inout ConcurrencyController
  ) -> Outcome {
    let step = 0.001
    var now = 0.0
    var bytes: Int64 = 0
    var started = 0
    var answered = 0
    var inFlight: [(start: Double, end: Double)] = []
    var levels = [controller.limit]
    var nextTick = 0.05
    func limit(_ controller: ConcurrencyController) -> Int { fixed ?? controller.limit }
    func note(_ change: Int?) {
      if let change { levels.append(change) }
    }
    func fill(_ controller: ConcurrencyController) {
      while started < files, inFlight.count < limit(controller) {
        inFlight.append((now, now + model.answerTime(inFlight: inFlight.count + 1)))
        started += 1
      }
    }
    while answered < files {
      // One answer at a time, each slot refilled before the next, as the scheduler does;
      // the answer is noted before its slot is freed.
      while let index = inFlight.firstIndex(where: { $0.end <= now }) {
        let transfer = inFlight[index]
        let bound = started < files && inFlight.count >= limit(controller)
        note(
          controller.answered(
            answer: transfer.end - transfer.start, started: transfer.start, now: now,
            bytes: bytes, bound: bound))
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
      _ = controller.answered(answer: 0.04, started: 0, now: 0.04, bytes: 0, bound: true)
    }
    #expect(controller.limit == 32)
    // Slow answers of transfers started before the change say nothing of 32.
    for _ in 0..<100 {
      _ = controller.answered(answer: 1, started: 0.02, now: 0.05, bytes: 0, bound: true)
    }
    #expect(controller.limit == 32)
    // 32 answering as fast as 16 did scales in proportion: the level quadruples.
    for _ in 0..<16 {
      _ = controller.answered(answer: 0.04, started: 0.04, now: 0.08, bytes: 0, bound: true)
    }
    #expect(controller.limit == 128)
  }

  @Test func answers_while_the_limit_bounds_nothing_change_nothing() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    for _ in 0..<1_000 {
      _ = controller.answered(answer: 0.04, started: 0, now: 0.04, bytes: 0, bound: false)
    }
    #expect(controller.limit == 16)
  }
}
