import Foundation
import HaulCore
import HaulTestSupport
import Synchronization
import Testing

/// Whether another run may have finished files in the output directory: known alone until
/// another run joins, and never alone beside one that is already there.
@Suite("Other runs on one output directory")
struct OtherRunsTests {
  @Test func a_run_is_alone_until_another_joins_and_never_alone_beside_one() throws {
    let directory = try TemporaryDirectory(prefix: "haul-runs")
    defer { directory.remove() }
    // Given a run alone in its folder (each OutputDirectory holds its own lock, as a process)
    let first = try OutputDirectory(path: directory.path)
    #expect(!first.otherRuns.mayHaveWritten)
    #expect(!first.otherRuns.mayHaveWritten)
    do {
      // When a second run joins, it sees the first, and the first sees it
      let second = try OutputDirectory(path: directory.path)
      #expect(second.otherRuns.mayHaveWritten)
      #expect(first.otherRuns.mayHaveWritten)
    }
    // Then a run that joins after both let go is alone again
    let third = try OutputDirectory(path: directory.path)
    #expect(first.otherRuns.mayHaveWritten)
    _ = consume first
    #expect(!third.otherRuns.mayHaveWritten)
  }
}

/// docs/behaviour.md, "Two runs, one folder": the last run to leave the output directory
/// removes `.haul`; a run that leaves beside another removes nothing the other needs, and a
/// run that joins while the files are removed waits, then joins on new ones.
@Suite("Leaving the output directory clean")
struct LeavingTests {
  /// The names in `.haul` of `directory`, `nil` when there is no `.haul`.
  /// Whether some process waits for a lock on the file of inode `inode` (a `->` line of
  /// `/proc/locks`) within a minute: a bound for a failure only.
  func waitsForLock(onInode inode: UInt64) async -> Bool {
    let suffix = ":\(inode)"
    for _ in 0..<12_000 {
      // Read to its end: /proc/locks says its size is 0, and a busy machine lists hundreds.
      let data = FileHandle(forReadingAtPath: "/proc/locks").map { handle in
        defer { try? handle.close() }
        return handle.readDataToEndOfFile()
      }
      let text = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
      let waiting = text.split(separator: "\n").contains { line in
        line.contains("->") && line.split(separator: " ").contains { $0.hasSuffix(suffix) }
      }
      if waiting { return true }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return false
  }

  func haulNames(_ directory: TemporaryDirectory) -> Set<String>? {
    (try? FileManager.default.contentsOfDirectory(atPath: directory.file(".haul"))).map(Set.init)
  }

  @Test func the_last_run_to_leave_removes_the_haul_folder_and_one_beside_another_keeps_it()
    throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-leave")
    defer { directory.remove() }
    let first = try OutputDirectory(path: directory.path)
    let second = try OutputDirectory(path: directory.path)
    #expect(try first.entryLocks.claim("a.bin"))
    #expect(try second.entryLocks.claim("b.bin"))
    // When the first leaves while the second holds a claim, nothing goes...
    first.leave()
    #expect(haulNames(directory)?.contains(OtherRuns.fileName) == true)
    // ...and the second's claim still holds against a run that comes after.
    let third = try OutputDirectory(path: directory.path)
    #expect(try !third.entryLocks.claim("b.bin"))
    third.leave()
    #expect(haulNames(directory) != nil)
    // Then the last to leave removes the folder.
    second.entryLocks.release("b.bin")
    second.leave()
    #expect(haulNames(directory) == nil)
    second.leave()
    // A run after that makes it anew.
    let fourth = try OutputDirectory(path: directory.path)
    #expect(try fourth.entryLocks.claim("b.bin"))
    _ = consume fourth
    #expect(haulNames(directory) == nil)
  }

  @Test func a_run_that_claims_nothing_removes_what_a_killed_run_left_and_no_one_elses_files()
    throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-leave-killed")
    defer { directory.remove() }
    // Given what a killed run leaves: lock files nobody holds.
    try FileManager.default.createDirectory(
      atPath: directory.file(".haul"), withIntermediateDirectories: false)
    for name in [OtherRuns.fileName, EntryLocks.fileName(shard: 3)] {
      #expect(
        FileManager.default.createFile(atPath: directory.file(".haul/" + name), contents: nil))
    }
    // A run that claims nothing removes them on leaving.
    try OutputDirectory(path: directory.path).leave()
    #expect(haulNames(directory) == nil)

    // An upload's pending state keeps `.haul` (its lock files go).
    let uploads = directory.file(".haul/uploads")
    try FileManager.default.createDirectory(atPath: uploads, withIntermediateDirectories: true)
    #expect(FileManager.default.createFile(atPath: uploads + "/pending.json", contents: nil))
    let run = try OutputDirectory(path: directory.path)
    #expect(try run.entryLocks.claim("f.bin"))
    run.leave()
    #expect(haulNames(directory) == ["uploads"])
    try FileManager.default.removeItem(atPath: directory.file(".haul"))

    // A user's own file named `.haul` is not haul's: claims go untaken, nothing is removed.
    #expect(
      FileManager.default.createFile(atPath: directory.file(".haul"), contents: Data("x".utf8)))
    let beside = try OutputDirectory(path: directory.path)
    #expect(try beside.entryLocks.claim("f.bin"))
    beside.leave()
    #expect(FileManager.default.contents(atPath: directory.file(".haul")) == Data("x".utf8))
  }

  @Test func a_run_that_joins_while_the_last_one_removes_the_files_waits_and_joins_anew()
    async throws
  {
    let directory = try TemporaryDirectory(prefix: "haul-leave-race")
    defer { directory.remove() }
    // Given a leaving run that holds the write lock on `runs` while it removes the files
    // (played here by the test, on a description of its own)...
    let shard = EntryLocks.fileName(shard: EntryLocks.shard(of: EntryLocks.hash(of: "f.bin")))
    try FileManager.default.createDirectory(
      atPath: directory.file(".haul"), withIntermediateDirectories: false)
    #expect(FileManager.default.createFile(atPath: directory.file(".haul/" + shard), contents: nil))
    let runs = open(directory.file(".haul/runs"), O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
    try #require(runs >= 0)
    var lock = flock()
    lock.l_type = Int16(F_WRLCK)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = 0
    lock.l_len = 1
    #expect(fcntl(runs, 37, &lock) == 0, "F_OFD_SETLK")
    // ...a run that claims meanwhile waits for it...
    let joining = try OutputDirectory(path: directory.path)
    // The claim blocks in fcntl until the lock goes: on a thread of its own, so that it
    // holds none of the few threads every test's tasks share.
    let claim = Task {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
        Thread { continuation.resume(returning: try? joining.entryLocks.claim("f.bin")) }.start()
      }
    }
    var status = stat()
    #expect(fstat(runs, &status) == 0)
    #expect(await waitsForLock(onInode: UInt64(status.st_ino)), "the claim never waited")
    unlink(directory.file(".haul/" + shard))
    unlink(directory.file(".haul/runs"))
    close(runs)
    rmdir(directory.file(".haul"))
    // ...then claims in new files, which keep its claim from another run.
    #expect(await claim.value == true)
    #expect(haulNames(directory) == [OtherRuns.fileName, shard])
    let other = try OutputDirectory(path: directory.path)
    #expect(try !other.entryLocks.claim("f.bin"))
    other.leave()
    joining.entryLocks.release("f.bin")
    joining.leave()
    #expect(haulNames(directory) == nil)
  }

  @Test func runs_joining_and_leaving_at_once_never_hold_one_claim_together() throws {
    let directory = try TemporaryDirectory(prefix: "haul-leave-churn")
    defer { directory.remove() }
    // Runs that start, claim one entry, and leave (the last removing `.haul`), four at a
    // time: whoever holds the claim holds it alone, and no claim fails, however the joins
    // and removals meet.
    let holders = Atomic(0)
    let overlaps = Atomic(0)
    let granted = Atomic(0)
    let errors = Atomic(0)
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      for _ in 0..<400 {
        guard let run = try? OutputDirectory(path: directory.path) else { continue }
        let claimed: Bool
        do throws(TransferError) {
          claimed = try run.entryLocks.claim("x.bin")
        } catch {
          errors.add(1, ordering: .relaxed)
          claimed = false
        }
        if claimed {
          granted.add(1, ordering: .relaxed)
          if holders.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
            overlaps.add(1, ordering: .relaxed)
          }
          usleep(200)
          holders.subtract(1, ordering: .sequentiallyConsistent)
          run.entryLocks.release("x.bin")
        }
        run.leave()
      }
    }
    #expect(overlaps.load(ordering: .relaxed) == 0)
    #expect(granted.load(ordering: .relaxed) > 0)
    // A join never ends in a folder another run removed under it.
    #expect(errors.load(ordering: .relaxed) == 0)
    #expect(haulNames(directory) == nil, "the last to leave removed the folder")
  }
}
