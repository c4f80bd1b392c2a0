import Foundation
import Testing

@testable import HaulCore

/// The byte-level checks a listed name takes on its way from the page to the outcome.
struct ListingByteChecksTests {
  @Test func utf8_contains_finds_a_byte_in_small_large_and_sliced_text() {
    let large = String(repeating: "abcdefgh", count: 8) + "/tail"
    #expect("a/b".utf8Contains(UInt8(ascii: "/")))
    #expect(!"ab".utf8Contains(UInt8(ascii: "/")))
    #expect(!"".utf8Contains(UInt8(ascii: "/")))
    #expect(large.utf8Contains(UInt8(ascii: "/")))
    #expect(!large.utf8Contains(UInt8(ascii: "%")))
    #expect("日本%41".utf8Contains(UInt8(ascii: "%")))
    let slice = large.dropLast(5)
    #expect(!slice.utf8Contains(UInt8(ascii: "/")))
    #expect(large.dropFirst(64).utf8Contains(UInt8(ascii: "/")))
  }

  @Test func only_one_or_two_dots_make_a_dot_segment() {
    for name in [".", ".."] { #expect(name.isDotSegment, "\(name)") }
    for name in ["", "...", ".a", "a.", ". ", "x"] { #expect(!name.isDotSegment, "\(name)") }
  }

  @Test func a_fingerprint_reads_the_names_below_the_folder_whatever_its_place() {
    func page(_ names: [String], below prefix: String) -> ListingPage {
      ListingPage(
        files: names.map {
          ListedFile(urlText: "http://h/\(prefix)\($0)", relativePath: prefix + $0)
        })
    }
    let top = ListedFolder(url: URL(string: "http://h/a/")!, relativePath: "a/", depth: 2)
    let deep = ListedFolder(url: URL(string: "http://h/a/b/c/")!, relativePath: "a/b/c/", depth: 4)
    #expect(
      page(["x", "日"], below: "a/").fingerprint(below: top)
        == page(["x", "日"], below: "a/b/c/").fingerprint(below: deep))
    #expect(
      page(["ab", "c"], below: "a/").fingerprint(below: top)
        != page(["a", "bc"], below: "a/").fingerprint(below: top))
  }
}
