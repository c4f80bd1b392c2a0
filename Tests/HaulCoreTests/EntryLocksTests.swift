import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
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

    #expect(try first?.entryLocks.claim("a/f.bin") == true)
    let shard = EntryLocks.shard(of: EntryLocks.hash(of: "a/f.bin"))
    let lockFile = ".haul/" + EntryLocks.fileName(shard: shard)
    #expect(FileManager.default.fileExists(atPath: directory.file(lockFile)))
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.file(".haul"))
    #expect(
      Set(names) == [OtherRuns.fileName, EntryLocks.fileName(shard: shard)],
      "only the presence and the claim's own lock file are made")
    #expect(try !second.entryLocks.claim("a/f.bin"))
    #expect(try second.entryLocks.claim("a/g.bin"), "another entry is free")
    first?.entryLocks.release("a/f.bin")
    #expect(try second.entryLocks.claim("a/f.bin"))
    second.entryLocks.release("a/f.bin")

    #expect(try first?.entryLocks.claim("a/f.bin") == true)
    #expect(try !second.entryLocks.claim("a/f.bin"))
    // Closing the lock file (as the kernel does for a process that ends) lets go.
    first = nil
    #expect(try second.entryLocks.claim("a/f.bin"))
  }

  @Test func claims_spread_over_every_lock_file_and_each_excludes_another_opening() throws {
    let directory = try TemporaryDirectory(prefix: "haul-entry-locks")
    defer { directory.remove() }
    let first = try OutputDirectory(path: directory.path)
    let second = try OutputDirectory(path: directory.path)
    let paths = (0..<2_000).map { "d/file-\($0).bin" }
    for path in paths { #expect(try first.entryLocks.claim(path)) }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.file(".haul"))
    #expect(
      Set(names)
        == Set((0..<EntryLocks.shardCount).map(EntryLocks.fileName(shard:))).union([
          OtherRuns.fileName
        ]))
    for path in paths { #expect(try !second.entryLocks.claim(path)) }
    for path in paths { first.entryLocks.release(path) }
    for path in paths { #expect(try second.entryLocks.claim(path)) }
  }

  @Test func the_haul_folder_does_not_make_the_output_directory_count_as_used() throws {
    let directory = try TemporaryDirectory(prefix: "haul-entry-locks")
    defer { directory.remove() }
    let first = try OutputDirectory(path: directory.path)
    #expect(try first.entryLocks.claim("f.bin"))
    #expect(try OutputDirectory(path: directory.path).startedEmpty)
    try Data().write(to: URL(fileURLWithPath: directory.file("f.bin")))
    #expect(try !OutputDirectory(path: directory.path).startedEmpty)
  }

  @Test func a_lock_file_this_process_cannot_open_now_fails_the_claim_instead_of_granting_it()
    throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-entry-locks")
    defer { directory.remove() }
    let other = try OutputDirectory(path: directory.path)
    #expect(try other.entryLocks.claim("a/f.bin"))
    let root = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    try #require(root >= 0)
    defer { close(root) }
    // Given a run whose lock files cannot be opened for want of descriptors...
    let failure = Mutex<Int32?>(EMFILE)
    let runs = OtherRuns(root: root, shared: true)
    // The presence leaves below the root's descriptor, so before it is closed.
    defer { runs.leave() }
    let locks = EntryLocks(runs: runs) { name, folder in
      failure.withLock { $0 }.map { -$0 } ?? EntryLocks.openLockFile(name, in: folder)
    }
    // ...its claim on an entry the other run holds is an error, not a grant.
    do throws(TransferError) {
      _ = try locks.claim("a/f.bin")
      Issue.record("the claim succeeded without its lock file")
    } catch {
      #expect(error.code == .io)
      #expect(error.message.contains("Too many open files"), "\(error.message)")
    }
    // Once descriptors are free again, the next claim opens the file and sees the other run.
    failure.withLock { $0 = nil }
    #expect(try !locks.claim("a/f.bin"))
    other.entryLocks.release("a/f.bin")
    #expect(try locks.claim("a/f.bin"))
  }

  @Test func a_folder_that_refuses_the_lock_file_leaves_claims_untaken() throws {
    let directory = try TemporaryDirectory(prefix: "haul-entry-locks")
    defer { directory.remove() }
    let root = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    try #require(root >= 0)
    defer { close(root) }
    let opened = Mutex(0)
    let runs = OtherRuns(root: root, shared: true)
    defer { runs.leave() }
    let locks = EntryLocks(runs: runs) { _, _ in
      opened.withLock { $0 += 1 }
      return -EROFS
    }
    #expect(try locks.claim("a/f.bin"))
    #expect(try locks.claim("a/f.bin"), "a read-only folder is not another run's claim")
    #expect(opened.withLock { $0 } == 1, "a refusal is kept, not asked again")
  }
}
