import Foundation
import HaulCore
import HaulTestSupport
import Testing

/// docs/behaviour.md, "Two runs, one folder": a claim excludes every other opening of the
/// output directory (another process, or here another `OutputDirectory`, which opens the lock
/// file anew) until it is released or its holder goes.
@Suite("Entry claims on the output directory")
struct EntryLocksTests {
  @Test func a_claim_holds_off_another_opening_until_released_or_closed() throws {
    let directory = try TemporaryDirectory(prefix: "haul-entry-locks")
    defer { directory.remove() }
    var first: OutputDirectory? = try OutputDirectory(path: directory.path)
    let second = try OutputDirectory(path: directory.path)
    #expect(!FileManager.default.fileExists(atPath: directory.file(".haul")))

    #expect(first?.entryLocks.claim("a/f.bin") == true)
    let shard = EntryLocks.shard(of: EntryLocks.hash(of: "a/f.bin"))
    let lockFile = ".haul/" + EntryLocks.fileName(shard: shard)
    #expect(FileManager.default.fileExists(atPath: directory.file(lockFile)))
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.file(".haul"))
    #expect(names == [EntryLocks.fileName(shard: shard)], "only the claim's own lock file is made")
    #expect(!second.entryLocks.claim("a/f.bin"))
    #expect(second.entryLocks.claim("a/g.bin"), "another entry is free")
    first?.entryLocks.release("a/f.bin")
    #expect(second.entryLocks.claim("a/f.bin"))
    second.entryLocks.release("a/f.bin")

    #expect(first?.entryLocks.claim("a/f.bin") == true)
    #expect(!second.entryLocks.claim("a/f.bin"))
    // Closing the lock file (as the kernel does for a process that ends) lets go.
    first = nil
    #expect(second.entryLocks.claim("a/f.bin"))
  }

  @Test func claims_spread_over_every_lock_file_and_each_excludes_another_opening() throws {
    let directory = try TemporaryDirectory(prefix: "haul-entry-locks")
    defer { directory.remove() }
    let first = try OutputDirectory(path: directory.path)
    let second = try OutputDirectory(path: directory.path)
    let paths = (0..<2_000).map { "d/file-\($0).bin" }
    for path in paths { #expect(first.entryLocks.claim(path)) }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.file(".haul"))
    #expect(Set(names) == Set((0..<EntryLocks.shardCount).map(EntryLocks.fileName(shard:))))
    for path in paths { #expect(!second.entryLocks.claim(path)) }
    for path in paths { first.entryLocks.release(path) }
    for path in paths { #expect(second.entryLocks.claim(path)) }
  }

  @Test func the_haul_folder_does_not_make_the_output_directory_count_as_used() throws {
    let directory = try TemporaryDirectory(prefix: "haul-entry-locks")
    defer { directory.remove() }
    let first = try OutputDirectory(path: directory.path)
    #expect(first.entryLocks.claim("f.bin"))
    #expect(try OutputDirectory(path: directory.path).startedEmpty)
    try Data().write(to: URL(fileURLWithPath: directory.file("f.bin")))
    #expect(try !OutputDirectory(path: directory.path).startedEmpty)
  }
}
