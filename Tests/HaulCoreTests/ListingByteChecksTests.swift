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

  @Test func a_path_segment_passes_unescaped_exactly_the_bytes_it_may_hold() {
    let allowed = Set(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*,:@".utf8)
    for byte in UInt8.min...UInt8.max {
      #expect(ListedName.isSegmentByte(byte) == allowed.contains(byte), "\(byte)")
    }
  }

  @Test func links_with_white_space_at_their_ends_name_the_trimmed_child() {
    let folder = URL(string: "http://127.0.0.1:8080/tree/")!
    for (href, name, isFolder) in [
      (" a.bin", "a.bin", false), ("a.bin\n", "a.bin", false), ("\tsub/ ", "sub", true),
      ("plain", "plain", false), ("sub/", "sub", true),
    ] {
      let child = ListedName.child(href, of: folder)
      #expect(child?.name == name && child?.isFolder == isFolder, "\(href)")
    }
    #expect(ListedName.child(" ", of: folder) == nil)
    #expect(ListedName.child(" .. ", of: folder) == nil)
  }

  @Test func only_one_or_two_dots_make_a_dot_segment() {
    for name in [".", ".."] { #expect(name.isDotSegment, "\(name)") }
    for name in ["", "...", ".a", "a.", ". ", "x"] { #expect(!name.isDotSegment, "\(name)") }
  }

  @Test func one_segment_links_of_dots_and_escapes_are_read_as_before() {
    let folder = URL(string: "http://127.0.0.1:8080/tree/")!
    #expect(ListedName.child("...", of: folder)?.name == "...")
    #expect(
      ListedName.child(".hidden/", of: folder).map { [$0.name, "\($0.isFolder)"] }
        == [".hidden", "true"])
    #expect(ListedName.child(".%2E", of: folder)?.name == "..")
    #expect(ListedName.child("a:b", of: folder) == nil)
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
