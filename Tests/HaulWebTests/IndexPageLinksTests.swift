import Testing

@testable import HaulWeb

/// How an index page's links are found in its bytes.
struct IndexPageLinksTests {
  @Test func links_are_found_past_text_holding_other_angle_brackets() {
    let page = Array(
      #"a < b <b>bold</b> <A HREF='x.bin'>x</A> <abbr>no</abbr> <a href="y&amp;z">y</a> <"#.utf8)
    #expect(IndexPage.links(in: page) == ["x.bin", "y&z"])
    #expect(IndexPage.links(in: Array("<".utf8)).isEmpty)
    #expect(IndexPage.links(in: []).isEmpty)
  }
}
