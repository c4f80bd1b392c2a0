import HaulCore
import Testing

@Suite("Admission: global and per-host limits")
struct AdmissionStateTests {
  @Test func admits_up_to_the_global_limit_then_queues() {
    var state = AdmissionState(limit: 2, perHost: 8)
    do { let r = state.request(id: 1, host: "a"); #expect(r) }
    do { let r = state.request(id: 2, host: "b"); #expect(r) }
    do { let r = state.request(id: 3, host: "c"); #expect(!r) }
    #expect(state.running == 2)
    do { let r = state.release(host: "a"); #expect(r == [3]) }
    #expect(state.running == 2)
  }

  @Test func a_busy_host_does_not_block_others() {
    var state = AdmissionState(limit: 4, perHost: 1)
    do { let r = state.request(id: 1, host: "a"); #expect(r) }
    do { let r = state.request(id: 2, host: "a"); #expect(!r) }
    do { let r = state.request(id: 3, host: "b"); #expect(r) }
    #expect(state.runningPerHost == ["a": 1, "b": 1])
    do { let r = state.release(host: "b"); #expect(r == []) }
    do { let r = state.release(host: "a"); #expect(r == [2]) }
    #expect(state.runningPerHost == ["a": 1])
  }

  @Test func waiters_of_one_host_keep_their_order() {
    var state = AdmissionState(limit: 1, perHost: 1)
    do { let r = state.request(id: 1, host: "a"); #expect(r) }
    do { let r = state.request(id: 2, host: "a"); #expect(!r) }
    do { let r = state.request(id: 3, host: "a"); #expect(!r) }
    do { let r = state.release(host: "a"); #expect(r == [2]) }
    do { let r = state.release(host: "a"); #expect(r == [3]) }
    do { let r = state.release(host: "a"); #expect(r == []) }
    #expect(state.running == 0)
  }

  @Test func a_withdrawn_waiter_is_never_admitted() {
    var state = AdmissionState(limit: 1, perHost: 1)
    do { let r = state.request(id: 1, host: "a"); #expect(r) }
    do { let r = state.request(id: 2, host: "a"); #expect(!r) }
    do { let r = state.withdraw(id: 2); #expect(r) }
    do { let r = state.release(host: "a"); #expect(r == []) }
    do { let r = state.withdraw(id: 2); #expect(!r) }
  }
}
