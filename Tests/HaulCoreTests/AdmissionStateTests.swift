import HaulCore
import Testing

@Suite("Admission: global and per-host limits, politeness, outages")
struct AdmissionStateTests {
  @Test func admits_up_to_the_global_limit_then_queues() {
    var state = AdmissionState<String>(limit: 2, perHost: 8)
    #expect(state.request(id: 1, host: "a", now: 0) == true)
    #expect(state.request(id: 2, host: "b", now: 0) == true)
    #expect(state.request(id: 3, host: "c", now: 0) == false)
    #expect(state.running == 2)
    #expect(state.release(host: "a", now: 0) == [3])
    #expect(state.running == 2)
  }

  @Test func a_busy_host_does_not_block_others() {
    var state = AdmissionState<String>(limit: 4, perHost: 1)
    #expect(state.request(id: 1, host: "a", now: 0) == true)
    #expect(state.request(id: 2, host: "a", now: 0) == false)
    #expect(state.request(id: 3, host: "b", now: 0) == true)
    #expect(state.runningPerHost == ["a": 1, "b": 1])
    #expect(state.release(host: "b", now: 0) == [])
    #expect(state.release(host: "a", now: 0) == [2])
    #expect(state.runningPerHost == ["a": 1])
  }

  @Test func waiters_of_one_host_keep_their_order() {
    var state = AdmissionState<String>(limit: 1, perHost: 1)
    #expect(state.request(id: 1, host: "a", now: 0) == true)
    #expect(state.request(id: 2, host: "a", now: 0) == false)
    #expect(state.request(id: 3, host: "a", now: 0) == false)
    #expect(state.release(host: "a", now: 0) == [2])
    #expect(state.release(host: "a", now: 0) == [3])
    #expect(state.release(host: "a", now: 0) == [])
    #expect(state.running == 0)
  }

  @Test func cancelling_withdraws_every_waiter_so_none_is_admitted_later() {
    var state = AdmissionState<String>(limit: 1, perHost: 1)
    #expect(state.request(id: 1, host: "a", now: 0) == true)
    #expect(state.request(id: 2, host: "a", now: 0) == false)
    #expect(state.request(id: 3, host: "b", now: 0) == false)
    #expect(Set(state.withdrawAll()) == [2, 3])
    #expect(state.waitingCount == 0)
    #expect(state.release(host: "a", now: 0) == [])
  }

  @Test func a_host_that_multiplexes_takes_streams_up_to_its_connections_worth() {
    var state = AdmissionState<String>(limit: 64, perHost: 2)
    state.streamsPerConnection = 10
    for id in 1...2 { #expect(state.request(id: id, host: "h2", now: 0) == true) }
    for id in 3...30 { #expect(state.request(id: id, host: "h2", now: 0) == false) }
    #expect(state.ceiling(for: "h2") == 2)
    #expect(state.markMultiplexed(host: "h2") == true)
    #expect(state.markMultiplexed(host: "h2") == false)
    #expect(state.ceiling(for: "h2") == 20)
    #expect(state.admitWaiting(now: 0) == Array(3...20))
    #expect(state.runningPerHost["h2"] == 20)
    // A throttle halves the stream limit, and it grows back to the stream ceiling.
    state.throttled(host: "h2", retryAfter: nil, now: 0)
    #expect(state.limit(for: "h2") == 10)
    _ = state.admitWaiting(now: 100)
    #expect(state.limit(for: "h2") == 20)
    // Another host keeps the connection ceiling.
    #expect(state.request(id: 31, host: "h1", now: 100) == true)
    #expect(state.request(id: 32, host: "h1", now: 100) == true)
    #expect(state.request(id: 33, host: "h1", now: 100) == false)
  }

  @Test func a_throttle_halves_the_host_limit_and_holds_it_until_retry_after() {
    var state = AdmissionState<String>(limit: 16, perHost: 8)
    for id in 1...8 { #expect(state.request(id: id, host: "a", now: 0) == true) }
    state.throttled(host: "a", retryAfter: 5, now: 1)
    #expect(state.limit(for: "a") == 4)
    for _ in 1...8 { _ = state.release(host: "a", now: 1) }
    #expect(state.request(id: 9, host: "a", now: 2) == false)
    #expect(state.request(id: 10, host: "b", now: 2) == true)
    #expect(state.nextChange(now: 2) == 6)
    #expect(state.admitWaiting(now: 5.9) == [])
    #expect(state.admitWaiting(now: 6) == [9])
  }

  @Test func the_limit_grows_back_by_one_per_quiet_interval_up_to_the_ceiling() {
    var state = AdmissionState<String>(limit: 16, perHost: 8)
    state.throttled(host: "a", retryAfter: nil, now: 0)
    state.throttled(host: "a", retryAfter: nil, now: 0)
    #expect(state.limit(for: "a") == 2)
    _ = state.admitWaiting(now: 10)
    #expect(state.limit(for: "a") == 3)
    _ = state.admitWaiting(now: 35)
    #expect(state.limit(for: "a") == 5)
    _ = state.admitWaiting(now: 1000)
    #expect(state.limit(for: "a") == 8)
  }

  @Test func the_limit_never_falls_below_one() {
    var state = AdmissionState<String>(limit: 16, perHost: 2)
    for _ in 1...5 { state.throttled(host: "a", retryAfter: nil, now: 0) }
    #expect(state.limit(for: "a") == 1)
  }

  @Test func a_down_host_gets_nothing_until_it_is_up() {
    var state = AdmissionState<String>(limit: 4, perHost: 4)
    state.markDown(host: "a")
    #expect(state.request(id: 1, host: "a", now: 0) == false)
    #expect(state.request(id: 2, host: "b", now: 0) == true)
    #expect(state.markUp(host: "a", now: 1) == [1])
  }

  @Test func a_long_queue_behind_a_full_host_leaves_others_their_slots() {
    var state = AdmissionState<String>(limit: 16, perHost: 4)
    for id in 1...1000 { _ = state.request(id: id, host: "slow", now: 0) }
    #expect(state.runningPerHost == ["slow": 4])
    #expect(state.waitingCount == 996)
    for id in 1001...1004 { #expect(state.request(id: id, host: "fast", now: 0) == true) }
    #expect(state.request(id: 1005, host: "fast", now: 0) == false)
    #expect(state.request(id: 1006, host: "fast", now: 0) == false)
    #expect(state.release(host: "fast", now: 0) == [1005])
    #expect(state.release(host: "fast", now: 0) == [1006])
    #expect(state.release(host: "slow", now: 0) == [5])
  }

  @Test func the_oldest_waiter_among_hosts_with_room_goes_first() {
    var state = AdmissionState<String>(limit: 2, perHost: 2)
    #expect(state.request(id: 1, host: "a", now: 0) == true)
    #expect(state.request(id: 2, host: "b", now: 0) == true)
    #expect(state.request(id: 3, host: "b", now: 0) == false)
    #expect(state.request(id: 4, host: "a", now: 0) == false)
    #expect(state.request(id: 5, host: "c", now: 0) == false)
    #expect(state.release(host: "a", now: 0) == [3])
    #expect(state.release(host: "b", now: 0) == [4])
    #expect(state.release(host: "b", now: 0) == [5])
    #expect(state.waitingCount == 0)
  }
}
