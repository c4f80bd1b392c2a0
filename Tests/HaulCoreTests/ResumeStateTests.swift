import Foundation
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

  @Test func a_state_with_extra_or_missing_lines_is_discarded() {
    let bytes = state.encoded()
    #expect(ResumeState.decode(bytes + [0x0A]) == nil)
    #expect(ResumeState.decode(Array(bytes.dropLast())) == nil)
    #expect(ResumeState.decode([]) == nil)
    #expect(ResumeState.decode(Array("{}\n\n".utf8)) == nil)
  }

  @Test func a_state_whose_digest_matches_but_whose_record_is_not_a_state_is_discarded() {
    let line = Array(#"{"url": 5}"#.utf8)
    #expect(ResumeState.decode(line + [0x0A] + Array(SHA256.hex(of: line).utf8) + [0x0A]) == nil)
  }

  @Test func segment_progress_round_trips() {
    var segmented = state
    segmented.segments = SegmentProgress.plan(total: 10, count: 3)
    segmented.segments?[1].next = 5
    #expect(ResumeState.decode(segmented.encoded()) == segmented)
  }

  @Test func a_partial_belongs_only_to_the_same_url_digest_and_size() {
    func entry(_ url: String, sha256: String? = nil, size: Int64? = 10) -> ManifestEntry {
      ManifestEntry(
        line: 1, text: "", url: URL(string: url)!, path: "f", size: size, sha256: sha256)
    }
    #expect(state.belongs(to: entry("http://h/f")))
    #expect(state.belongs(to: entry("http://user:secret@h/f")), "userinfo is not part of it")
    #expect(!state.belongs(to: entry("http://h/g")))
    #expect(!state.belongs(to: entry("http://h/f?v=2")))
    #expect(!state.belongs(to: entry("http://h/f", size: 11)))
    #expect(!state.belongs(to: entry("http://h/f", size: nil)))
    #expect(!state.belongs(to: entry("http://h/f", sha256: String(repeating: "a", count: 64))))
  }

  @Test func a_listed_file_s_partial_belongs_only_under_the_etag_listed_when_it_began() {
    var listed = ManifestEntry(line: 1, text: "", url: URL(string: "http://h/t/f")!, path: "t/f")
    listed.listedETag = "\"v0\""
    let begun = ResumeState(for: listed)
    #expect(ResumeState.decode(begun.encoded())?.listedETag == "\"v0\"")
    #expect(begun.belongs(to: listed))
    listed.listedETag = "\"v1\""
    #expect(!begun.belongs(to: listed), "the listing names another version")
    listed.listedETag = nil
    #expect(!begun.belongs(to: listed), "a listing without ETags cannot vouch for it")
  }

  @Test func an_edited_state_is_discarded() {
    var bytes = state.encoded()
    bytes[10] ^= 0x01
    #expect(ResumeState.decode(bytes) == nil)
  }
}
