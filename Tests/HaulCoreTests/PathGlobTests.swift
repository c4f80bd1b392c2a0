import Foundation
import Testing

@testable import HaulCore

@Suite("PathGlob and PathFilter: --include and --exclude over a listed file's path")
struct PathGlobTests {
  @Test(arguments: [
    ("*.txt", "a.txt", true),
    ("*.txt", "sub/a.txt", false),
    ("*", "a/b", false),
    ("a?c", "abc", true),
    ("a?c", "a/c", false),
    ("a?c", "ac", false),
    ("**", "a/b/c", true),
    ("**.txt", "a/b/c.txt", true),
    ("**/*.txt", "c.txt", true),
    ("**/*.txt", "a/b/c.txt", true),
    ("**/*.txt", "a/b/c.txt.gz", false),
    ("a/**/b", "a/b", true),
    ("a/**/b", "a/x/y/b", true),
    ("a/**/b", "ab", false),
    ("a/**/b", "a/xb", false),
    ("a/**", "a/x/y", true),
    ("a/**", "b/x", false),
    ("data/*/part-?.csv", "data/2024/part-1.csv", true),
    ("data/*/part-?.csv", "data/2024/06/part-1.csv", false),
    ("[ab]*.log", "b1.log", true),
    ("[ab]*.log", "c1.log", false),
    ("[!ab]*.log", "c1.log", true),
    ("[^ab]*.log", "a1.log", false),
    ("file[0-9]", "file7", true),
    ("file[0-9]", "filex", false),
    ("x[/]y", "x/y", false),
    ("[]]", "]", true),
    ("\\*", "*", true),
    ("\\*", "a", false),
    ("ä*", "äpfel", true),
    ("*", "", true),
    ("a*b*c*d", "aXbYcZd", true),
    ("a*a*a*a*a*b", String(repeating: "a", count: 60), false),
  ])
  func a_pattern_matches_the_whole_path(pattern: String, path: String, matches: Bool) throws {
    #expect(try PathGlob(pattern).matches(path) == matches, "\(pattern) against \(path)")
  }

  @Test(arguments: ["", "[ab", "a\\", "[z-a]"])
  func a_bad_pattern_is_refused(pattern: String) {
    #expect(throws: PathGlob.Problem.self) { try PathGlob(pattern) }
  }

  @Test func a_file_is_taken_when_it_matches_an_include_and_no_exclude() throws {
    let filter = PathFilter(
      include: [try PathGlob("**/*.csv"), try PathGlob("README")],
      exclude: [try PathGlob("tmp/**")])
    #expect(filter.takes("README"))
    #expect(filter.takes("a/b.csv"))
    #expect(!filter.takes("tmp/b.csv"))
    #expect(!filter.takes("a/b.txt"))
    #expect(!filter.takesAll)
    #expect(PathFilter().takes("anything/at/all"))
    let excludeOnly = PathFilter(exclude: [try PathGlob("*.iso")])
    #expect(excludeOnly.takes("sub/x.iso"))
    #expect(!excludeOnly.takes("x.iso"))
  }

  @Test func a_listed_file_outside_the_filter_or_too_deep_is_left_out() throws {
    let folder = ManifestEntry(
      line: 3, text: "{}", url: URL(string: "http://127.0.0.1/d/")!, path: "out/")
    let options = FolderOptions(depth: 2, filter: PathFilter(exclude: [try PathGlob("*.tmp")]))
    func item(_ path: String) -> ListingItem? {
      ListingItem(
        ListedFile(url: URL(string: "http://127.0.0.1/d/" + path), source: "s", relativePath: path),
        of: folder, folders: options)
    }
    #expect(item("x.tmp") == nil)
    #expect(item("a/b/c") == nil, "three segments below a depth of 2")
    guard case .entry(let entry) = item("a/x.tmp") else {
      Issue.record("a/x.tmp is taken: *.tmp stays within the top segment")
      return
    }
    #expect(entry.path == "out/a/x.tmp")
    #expect(entry.line == 3)
    guard case .ended(_, let error) = item("../x") else {
      Issue.record("a name that leaves the folder is refused")
      return
    }
    #expect(error.code == .pathRefused)
  }
}
