import Foundation
import Testing

@testable import HaulWeb

/// The byte-level checks a listed name takes as a link of a page is read.
struct ListedNameTests {
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

  @Test func one_segment_links_of_dots_and_escapes_are_read_as_before() {
    let folder = URL(string: "http://127.0.0.1:8080/tree/")!
    #expect(ListedName.child("...", of: folder)?.name == "...")
    #expect(
      ListedName.child(".hidden/", of: folder).map { [$0.name, "\($0.isFolder)"] }
        == [".hidden", "true"])
    #expect(ListedName.child(".%2E", of: folder)?.name == "..")
    #expect(ListedName.child("a:b", of: folder) == nil)
  }
}
