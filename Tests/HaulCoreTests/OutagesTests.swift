import HaulCore
import Testing

@Suite("Outages: one probe per host that is down, its waiters released together")
struct OutagesTests {
  @Test func the_first_waiter_starts_the_probe_and_the_end_releases_every_waiter() {
    var outages = Outages<Int>()
    #expect(outages.wait(1, for: "a") == true)
    #expect(outages.wait(2, for: "a") == false)
    #expect(outages.wait(3, for: "b") == true)
    #expect(outages.end("a") == [1, 2])
    #expect(outages.end("a") == [])
    // A host whose probe ended is down again at its next failure: a new probe starts.
    #expect(outages.wait(4, for: "a") == true)
    #expect(outages.endAll().sorted() == [3, 4])
    #expect(outages.wait(5, for: "b") == true)
  }

  @Test func probes_back_off_from_a_quarter_second_to_thirty() {
    var probe = OutageProbe(began: 0, limit: 600)
    var delays: [Double] = []
    for second in 0..<10 {
      guard
        case .wait(let delay) = probe.next(reachable: false, now: Double(second), cancelled: false)
      else { Issue.record("ended early"); return }
      delays.append(delay)
    }
    #expect(delays == [0.25, 0.5, 1, 2, 4, 8, 16, 30, 30, 30])
  }

  @Test func a_host_back_after_a_wait_excuses_the_failed_attempts() {
    var probe = OutageProbe(began: 0, limit: 600)
    #expect(probe.next(reachable: false, now: 0, cancelled: false) == .wait(0.25))
    #expect(probe.next(reachable: true, now: 1, cancelled: false) == .ended(excused: true))
  }

  @Test func a_host_that_answers_the_first_probe_excuses_nothing() {
    var probe = OutageProbe(began: 0, limit: 600)
    #expect(probe.next(reachable: true, now: 0, cancelled: false) == .ended(excused: false))
  }

  @Test func past_the_limit_or_on_cancel_the_attempts_count() {
    var late = OutageProbe(began: 0, limit: 10)
    #expect(late.next(reachable: false, now: 5, cancelled: false) == .wait(0.25))
    #expect(late.next(reachable: false, now: 11, cancelled: false) == .ended(excused: false))
    var cancelled = OutageProbe(began: 0, limit: 600)
    #expect(cancelled.next(reachable: false, now: 0, cancelled: false) == .wait(0.25))
    #expect(cancelled.next(reachable: true, now: 1, cancelled: true) == .ended(excused: false))
  }
}
