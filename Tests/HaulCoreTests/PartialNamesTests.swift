import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// docs/behaviour.md, "Local files": side files keep the destination's name with a suffix
/// while it fits, and fit any name the file system takes when it does not.
@Suite("Partial and state file names")
struct PartialNamesTests {
  /// Every side file's name.
  func all(_ names: PartialNames) -> [String] {
    [names.partial, names.state, names.stateTemporary]
  }

  @Test func a_name_that_fits_keeps_its_suffixes() {
    let names = PartialNames(leaf: "f.bin")
    #expect(all(names) == ["f.bin.haul-partial", "f.bin.haul-state", "f.bin.haul-state.tmp"])
    // The longest that keeps the plain names: 240 bytes, 255 with `.haul-state.tmp`.
    let longest = String(repeating: "a", count: 240)
    #expect(PartialNames(leaf: longest).partial == longest + ".haul-partial")
  }

  @Test(arguments: [241, 250, 255])
  func a_long_name_gets_side_files_that_fit_and_stay_the_same(length: Int) {
    let leaf = String(repeating: "b", count: length)
    let names = PartialNames(leaf: leaf)
    #expect(all(names).allSatisfy { $0.utf8.count <= 255 }, "\(all(names))")
    #expect(names.partial.hasSuffix(".haul-partial"))
    #expect(names.state.hasSuffix(".haul-state"))
    #expect(names.stateTemporary == names.state + ".tmp")
    #expect(names.partial.hasPrefix(String(repeating: "b", count: 200)))
    #expect(!all(names).contains(leaf))
    // A rerun finds the same files.
    #expect(PartialNames(leaf: leaf) == names)
  }

  @Test func two_long_names_with_the_same_start_get_different_side_files() {
    let start = String(repeating: "c", count: 250)
    let one = PartialNames(leaf: start + "1.bin")
    let two = PartialNames(leaf: start + "2.bin")
    #expect(one.partial != two.partial)
    #expect(one.state != two.state)
  }

  @Test func a_shortened_name_is_cut_between_characters_within_the_limit() {
    // 2-byte characters: a cut in the middle of one would make a name that is not UTF-8.
    let leaf = String(repeating: "é", count: 127)
    #expect(leaf.utf8.count == 254)
    let names = PartialNames(leaf: leaf)
    #expect(all(names).allSatisfy { $0.utf8.count <= 255 })
    let start = names.partial.prefix { $0 == "é" }
    #expect(start.count > 100)
    #expect(names.partial.dropFirst(start.count).first == "-")
    // A file system with a lower limit gets names within it too.
    #expect(all(PartialNames(leaf: leaf, limit: 143)).allSatisfy { $0.utf8.count <= 143 })
  }
}
