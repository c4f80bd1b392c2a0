import HaulCore
import Testing

@Suite("Resume state: detected when damaged, never trusted")
struct ResumeStateTests {
  let state = ResumeState(
    url: "http://h/f", sha256: nil, size: 10, validator: "\"e1\"", total: 10)

  @Test func round_trips() {
    #expect(ResumeState.decode(state.encoded()) == state)
  }

  @Test func a_truncated_state_is_discarded() {
    let bytes = state.encoded()
    for cut in [1, bytes.count / 2, bytes.count - 1] {
      #expect(ResumeState.decode(Array(bytes.prefix(cut))) == nil)
    }
  }

  @Test func an_edited_state_is_discarded() {
    var bytes = state.encoded()
    bytes[10] ^= 0x01
    #expect(ResumeState.decode(bytes) == nil)
  }
}
