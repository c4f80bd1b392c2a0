import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore

/// `LocalTree` resolves symlinks below the output directory itself and opens nothing through
/// one that leads out (docs/behaviour.md, "Local files").
@Suite("Local tree: reads below the output directory's descriptor")
struct LocalTreeTests {
  let directory: TemporaryDirectory

  init() throws {
    directory = try TemporaryDirectory(prefix: "haul-local-tree")
    for folder in ["out/site/sub", "outside"] {
      try FileManager.default.createDirectory(
        atPath: directory.file(folder), withIntermediateDirectories: true)
    }
    #expect(
      FileManager.default.createFile(
        atPath: directory.file("out/site/a.bin"), contents: Data("a".utf8)))
    #expect(
      FileManager.default.createFile(
        atPath: directory.file("outside/s.bin"), contents: Data("s".utf8)))
    for (link, target) in [
      ("out/site/sub/up", "../a.bin"), ("out/absolute", directory.file("out/site/a.bin")),
      ("out/leads-out", "../outside/s.bin"), ("out/away", directory.file("outside")),
      ("out/site/loop", "loop"),
    ] {
      try FileManager.default.createSymbolicLink(
        atPath: directory.file(link), withDestinationPath: target)
    }
  }

  func withTree<T>(_ body: (LocalTree) throws -> T) throws -> T {
    try #require(
      LocalTree.withTree(at: directory.file("out")) { tree in Result { try body(tree) } }
    )
    .get()
  }

  @Test func links_inside_resolve_and_open() throws {
    defer { directory.remove() }
    try withTree { tree in
      #expect(try tree.resolve("site/sub/up", followsLinks: true) == ["site", "a.bin"])
      #expect(try tree.resolve("absolute", followsLinks: true) == ["site", "a.bin"])
      let fd = try tree.openFile("site/sub/up", followsLinks: true)
      close(fd)
      #expect(try tree.status(of: "site", followsLinks: true).isFolder)
      #expect(try tree.entries(of: ["site"]).map(\.0).sorted() == ["a.bin", "loop", "sub"])
    }
  }

  @Test func links_leading_out_are_refused() throws {
    defer { directory.remove() }
    try withTree { tree in
      for path in ["leads-out", "away/s.bin", "../outside/s.bin", "site/../../outside/s.bin"] {
        #expect(throws: LocalTree.Failure.self, "\(path)") {
          try tree.openFile(path, followsLinks: true)
        }
        do throws(LocalTree.Failure) {
          _ = try tree.resolve(path, followsLinks: true)
          Issue.record("\(path) resolved")
        } catch {
          guard case .refused = error else {
            Issue.record("\(path): \(error)")
            return
          }
        }
      }
      #expect(throws: LocalTree.Failure.refused("up is a symlink")) {
        try tree.resolve("site/sub/up", followsLinks: false)
      }
      #expect(throws: LocalTree.Failure.system(ELOOP)) {
        try tree.resolve("site/loop", followsLinks: true)
      }
      #expect(throws: LocalTree.Failure.self) { try tree.entries(of: ["away"]) }
    }
  }
}
