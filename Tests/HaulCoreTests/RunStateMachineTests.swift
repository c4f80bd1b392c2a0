import HaulCore
import Testing

@Suite("Run state: slots, the feeder, draining and cancelling as decisions")
struct RunStateMachineTests {
  typealias Machine = RunStateMachine<String, String, String>

  private func outcome(_ status: EntryOutcome.Status = .ok, bytes: Int64 = 0) -> EntryOutcome {
    EntryOutcome(
      line: 1, text: "", url: "http://a/x", path: "x", operation: .download, status: status,
      bytes: bytes, attempts: 1, seconds: 0, sha256: nil, error: nil)
  }

  @Test func entries_start_up_to_the_limit_and_a_release_starts_the_next() {
    var machine = Machine(concurrency: 2, perHost: 8, retryAfterCap: 600)
    #expect(machine.submit("j1", host: 0, now: 0) == .started)
    #expect(machine.submit("j2", host: 1, now: 0) == .started)
    #expect(machine.submit("j3", host: 2, now: 0) == .waiting(arm: nil))
    #expect(machine.live == 3)
    let admitted = machine.release(host: 0, status: 200, retryAfter: nil, answered: true, now: 1)
    #expect(admitted.jobs == ["j3"])
    #expect(admitted.waiters.isEmpty)
    #expect(machine.wasContacted(0))
    #expect(!machine.wasContacted(1))
  }

  @Test func a_waiting_further_attempt_is_resumed_by_a_release() {
    var machine = Machine(concurrency: 1, perHost: 1, retryAfterCap: 600)
    #expect(machine.submit("j1", host: 0, now: 0) == .started)
    let asked = machine.acquire("w1", host: 0, now: 0)
    #expect(asked.admitted == nil)
    let admitted = machine.release(host: 0, status: nil, retryAfter: nil, answered: false, now: 0)
    #expect(admitted.waiters == ["w1"])
    #expect(admitted.jobs.isEmpty)
  }

  @Test func a_503_holds_the_host_for_its_capped_retry_after_and_asks_for_a_timer() throws {
    var machine = Machine(concurrency: 8, perHost: 4, retryAfterCap: 30)
    #expect(machine.submit("j1", host: 0, now: 0) == .started)
    _ = machine.release(host: 0, status: 503, retryAfter: 3600, answered: true, now: 0)
    // Held: the next entry waits, and a timer is armed for the host's next change (its
    // limit regrows), then each firing arms the next, until the capped hold ends at 30 s.
    #expect(machine.submit("j2", host: 0, now: 1) == .waiting(arm: RunTimer(number: 1, at: 10)))
    #expect(machine.timer == RunTimer(number: 1, at: 10))
    var timer = RunTimer(number: 1, at: 10)
    var admitted: [String] = []
    while admitted.isEmpty {
      let fired = machine.timerFired(timer.number, now: timer.at)
      admitted = fired.jobs
      guard admitted.isEmpty else { break }
      let next = try #require(fired.arm)
      #expect(next.number == timer.number + 1 && next.at > timer.at && next.at <= 30)
      timer = next
    }
    #expect(admitted == ["j2"])
    #expect(timer.at == 30)
    #expect(machine.timer == nil)
  }

  /// A machine with host 0 held by a 503 until 30 s, and `j2` waiting for it.
  private func heldHost() -> Machine {
    var machine = Machine(concurrency: 8, perHost: 4, retryAfterCap: 30)
    _ = machine.submit("j1", host: 0, now: 0)
    _ = machine.release(host: 0, status: 503, retryAfter: 3600, answered: true, now: 0)
    _ = machine.submit("j2", host: 0, now: 1)
    return machine
  }

  @Test func a_timer_armed_already_for_an_earlier_moment_is_not_armed_again() {
    var machine = heldHost()
    #expect(machine.acquire("w", host: 0, now: 2).arm == nil)
    #expect(machine.timer == RunTimer(number: 1, at: 10))
  }

  @Test func a_timer_disarmed_fires_to_no_effect() {
    var machine = heldHost()
    // Cancelling disarms the timer: its firing later admits nothing and arms nothing.
    let cancellation = machine.cancel()
    #expect(cancellation?.disarmed == RunTimer(number: 1, at: 10))
    #expect(machine.timer == nil)
    let fired = machine.timerFired(1, now: 10)
    #expect(fired.jobs.isEmpty && fired.arm == nil)
  }

  @Test func an_ended_run_disarms_its_timer_and_arms_none() {
    var machine = heldHost()
    #expect(machine.close() == RunTimer(number: 1, at: 10))
    let fired = machine.timerFired(1, now: 10)
    #expect(fired.jobs.isEmpty && fired.arm == nil)
    #expect(machine.submit("j3", host: 0, now: 11) == .waiting(arm: nil))
    #expect(machine.timer == nil)
  }

  @Test func the_feeder_waits_while_enough_entries_wait_and_wakes_when_half_are_left() {
    var machine = Machine(concurrency: 1, perHost: 1, retryAfterCap: 600)
    #expect(machine.readyTarget == 64)
    #expect(machine.submit("first", host: 0, now: 0) == .started)
    for index in 0..<64 { _ = machine.submit("j\(index)", host: 0, now: 0) }
    #expect(!machine.hasRoom)
    let waits = machine.feederWaits("feeder")
    #expect(waits)
    var woken: String?
    for _ in 0..<40 {
      let admitted = machine.release(host: 0, status: 200, retryAfter: nil, answered: true, now: 0)
      if let feeder = admitted.feeder { woken = feeder }
      machine.record(outcome(), completedBytes: 0, sizeInManifest: true)
      _ = machine.ended(count: 1)
      if woken != nil { break }
    }
    #expect(woken == "feeder")
    #expect(machine.hasRoom)
  }

  @Test func the_feeder_reads_on_at_once_when_there_is_room() {
    var machine = Machine(concurrency: 4, perHost: 4, retryAfterCap: 600)
    #expect(machine.hasRoom)
    let waits = machine.feederWaits("feeder")
    #expect(!waits)
  }

  @Test func draining_waits_for_the_last_entry_and_counts_its_outcome() {
    var machine = Machine(concurrency: 4, perHost: 4, retryAfterCap: 600)
    _ = machine.submit("j1", host: 0, now: 0)
    machine.arrivedEnded(count: 1)
    machine.record(outcome(.skipped), completedBytes: 10, sizeInManifest: false)
    #expect(machine.ended(count: 1).isEmpty)
    let drained = machine.drain("scheduler")
    #expect(!drained)
    machine.record(outcome(bytes: 5), completedBytes: 5, sizeInManifest: true)
    #expect(machine.ended(count: 1) == ["scheduler"])
    #expect(machine.tally.total == 2)
    #expect(machine.tally.skipped == 1)
    #expect(machine.tally.bytes == 5)
    #expect(machine.tally.completedBytes == 15)
    #expect(machine.tally.learnedBytes == 10)
    #expect(machine.tally.learnedEntries == 1)
  }

  @Test func draining_an_empty_run_ends_at_once() {
    var machine = Machine(concurrency: 4, perHost: 4, retryAfterCap: 600)
    let drained = machine.drain("scheduler")
    #expect(drained)
  }

  @Test func cancelling_releases_every_waiting_entry_task_and_the_feeder_once() {
    var machine = Machine(concurrency: 1, perHost: 1, retryAfterCap: 600)
    _ = machine.submit("running", host: 0, now: 0)
    _ = machine.submit("waiting", host: 0, now: 0)
    _ = machine.acquire("retry", host: 0, now: 0)
    for index in 0..<64 { _ = machine.submit("j\(index)", host: 0, now: 0) }
    let waits = machine.feederWaits("feeder")
    #expect(waits)
    let cancellation = machine.cancel()
    #expect(cancellation?.jobs.count == 65)
    #expect(cancellation?.waiters == ["retry"])
    #expect(cancellation?.feeder == "feeder")
    #expect(machine.cancel() == nil)
    #expect(machine.submit("late", host: 0, now: 0) == .cancelled)
    #expect(machine.acquire("late", host: 0, now: 0).admitted == false)
    let waitsAfter = machine.feederWaits("feeder")
    #expect(!waitsAfter)
  }

  @Test func a_host_found_to_multiplex_admits_streams_beyond_its_connections() {
    var machine = Machine(concurrency: 64, perHost: 2, retryAfterCap: 600)
    for index in 0..<10 { _ = machine.submit("j\(index)", host: 0, now: 0) }
    #expect(machine.running == 2)
    #expect(machine.multiplexes(host: 0, bytes: 0, now: 0).jobs.count == 8)
    #expect(machine.multiplexes(host: 0, bytes: 0, now: 0).jobs.isEmpty)
    #expect(machine.running == 10)
  }

  /// A host's connections (`--per-host`) and the level its streams lift `-j auto` to: 8
  /// connections' worth of streams stop at the ceiling, one connection's below it.
  @Test(arguments: [(perHost: 8, level: 256), (perHost: 1, level: 100)])
  func under_auto_a_far_host_found_to_multiplex_lifts_the_global_limit_to_its_streams(
    perHost: Int, level: Int
  ) {
    var machine = Machine(
      concurrency: 256, perHost: perHost, retryAfterCap: 600,
      controller: ConcurrencyController(ceiling: 256))
    for index in 0..<300 { _ = machine.submit("j\(index)", host: 0, now: 0) }
    #expect(machine.running == perHost)
    // The TLS handshake took a round trip of 40 ms: the level jumps at once.
    #expect(
      machine.multiplexes(host: 0, handshake: 0.04, bytes: 0, now: 0.04).jobs.count
        == level - perHost)
    #expect(machine.limit == level)
    #expect(machine.running == level)
  }

  @Test func under_auto_a_near_host_that_multiplexes_is_left_to_its_first_answers() {
    var machine = Machine(
      concurrency: 256, perHost: 8, retryAfterCap: 600,
      controller: ConcurrencyController(ceiling: 256))
    for index in 0..<300 { _ = machine.submit("j\(index)", host: 0, now: 0) }
    // A handshake of a millisecond: the host's streams let 16 run, the level stays there
    // until answers say whether more pay.
    #expect(machine.multiplexes(host: 0, handshake: 0.001, bytes: 0, now: 0.001).jobs.count == 8)
    #expect(machine.limit == 16)
    #expect(machine.running == 16)
  }

  @Test func a_fixed_limit_is_never_tuned() {
    var machine = Machine(concurrency: 4, perHost: 4, retryAfterCap: 600)
    for index in 0..<10 { _ = machine.submit("j\(index)", host: index, now: 0) }
    for tick in 1...100 {
      #expect(machine.tune(bytes: Int64(tick) << 20, now: Double(tick)).jobs.isEmpty)
    }
    #expect(machine.limit == 4)
  }

  @Test func under_auto_a_grown_limit_admits_what_waits() {
    var configuration = ConcurrencyController.Configuration()
    configuration.initial = 2
    configuration.floor = 1
    let controller = ConcurrencyController(configuration: configuration, now: 0, bytes: 0)
    var machine = Machine(
      concurrency: 256, perHost: 256, retryAfterCap: 600, controller: controller)
    #expect(machine.limit == 2)
    for index in 0..<60 { _ = machine.submit("j\(index)", host: 0, now: 0) }
    // Two windows of 16 attempts each, every ended one replaced by a waiting entry: the
    // first lets the run get under way, the second is measured.
    var started: [String] = []
    for window in 1...2 {
      for _ in 0..<16 {
        started +=
          machine.release(
            host: 0, status: 200, retryAfter: nil, answered: true, now: Double(window) / 10
          ).jobs
      }
      if window == 1 { #expect(machine.tune(bytes: 1 << 20, now: 0.1).jobs.isEmpty) }
    }
    #expect(started.count == 32)
    #expect(machine.limit == 2)
    let admitted = machine.tune(bytes: 2 << 20, now: 0.2)
    #expect(machine.limit == 4)
    #expect(admitted.jobs.count == 2)
  }
}
