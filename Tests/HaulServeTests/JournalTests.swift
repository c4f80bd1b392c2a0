import Foundation
import Testing

@testable import HaulServe

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Journal: the daemon's jobs, outcomes and events in SQLite")
struct JournalTests {
  // MARK: Jobs

  @Test func jobs_round_trip_and_list_in_queue_order() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }

    // Given three jobs added out of queue order, one with every optional column set.
    let first = sampleJob("00000000000000a1", position: 2)
    var second = sampleJob("00000000000000b2", position: 0.5)
    second.expectedBytes = 32_768_000
    second.started = 1_765_123_201.25
    let third = sampleJob("00000000000000c3", position: 1)
    try journal.write { (transaction) throws(JournalError) in
      for job in [first, second, third] { try transaction.insertJob(job) }
    }

    // Then they come back whole, by position.
    #expect(try journal.jobs() == [second, third, first])
    #expect(try journal.job(second.id) == second)
    #expect(try journal.job("ffffffffffffffff") == nil)

    // When one is updated, every column changes with it.
    var ended = second
    ended.state = .complete
    ended.position = 9
    ended.options = #"{"max-rate": "10M"}"#
    ended.succeeded = 1_999
    ended.skipped = 1
    ended.bytes = 32_768_000
    ended.ended = 1_765_123_999.5
    try journal.write { (transaction) throws(JournalError) in try transaction.updateJob(ended) }
    #expect(try journal.job(second.id) == ended)
    #expect(try journal.jobs().map(\.id) == [third.id, first.id, second.id])
  }

  @Test func a_duplicate_job_or_an_update_of_a_missing_one_is_refused() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let job = sampleJob("0123456789abcdef", position: 0)
    try journal.write { (transaction) throws(JournalError) in try transaction.insertJob(job) }

    let duplicate = #expect(throws: JournalError.self) {
      try journal.write { (transaction) throws(JournalError) in try transaction.insertJob(job) }
    }
    #expect(duplicate?.kind == .constraint)
    #expect((duplicate?.sqliteCode ?? 0) & 0xff == 19)  // SQLITE_CONSTRAINT

    let missing = #expect(throws: JournalError.self) {
      try journal.write { (transaction) throws(JournalError) in
        try transaction.updateJob(sampleJob("fedcba9876543210", position: 0))
      }
    }
    #expect(missing?.kind == .notFound)
    #expect(try journal.jobs() == [job])
  }

  @Test func deleting_a_job_forgets_its_entries_and_events_but_not_the_event_ids() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let gone = "00000000000000a1"
    let kept = "00000000000000b2"
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(sampleJob(gone, position: 0))
      try transaction.insertJob(sampleJob(kept, position: 1))
      try transaction.recordOutcomes([outcome(gone, 1, .ok), outcome(kept, 1, .ok)])
      try transaction.appendEvents([
        sampleEvent(1, "job-added", job: gone), sampleEvent(2, "job-added", job: kept),
        sampleEvent(3, "job-ended", job: gone),
      ])
    }

    let deleted = try journal.write { (transaction) throws(JournalError) -> Bool in
      try transaction.deleteJob(gone)
    }
    let again = try journal.write { (transaction) throws(JournalError) -> Bool in
      try transaction.deleteJob(gone)
    }

    #expect(deleted && !again)
    #expect(try journal.jobs().map(\.id) == [kept])
    #expect(try journal.entries(job: gone, limit: 10).isEmpty)
    #expect(try journal.entries(job: kept, limit: 10).count == 1)
    #expect(try journal.events(after: 0, limit: 10).map(\.id) == [2])
    #expect(try journal.lastEventID() == 3)
  }

  // MARK: Entries

  @Test func outcomes_round_trip_by_status_and_page_and_are_counted() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let id = "0123456789abcdef"
    #expect(try !journal.hasEntries(job: id))
    let statuses: [EntryRecord.Status] = [.ok, .failed, .skipped, .ok, .ok, .failed, .ok]
    let outcomes = statuses.enumerated().map { index, status in
      outcome(id, index + 1, status, bytes: Int64(100 * (index + 1)))
    }
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(sampleJob(id, position: 0))
      // Recorded out of line order, and next to another job's.
      try transaction.recordOutcomes(outcomes.reversed())
      try transaction.recordOutcomes([outcome("ffffffffffffffff", 1, .ok)])
    }

    #expect(try journal.entries(job: id, limit: 100) == outcomes)
    #expect(try journal.hasEntries(job: id) && !journal.hasEntries(job: "0000000000000000"))
    #expect(try journal.entries(job: id, offset: 2, limit: 3) == Array(outcomes[2..<5]))
    #expect(
      try journal.entries(job: id, status: .failed, limit: 100) == [outcomes[1], outcomes[5]])
    #expect(
      try journal.entries(job: id, status: .ok, offset: 1, limit: 2) == [
        outcomes[3], outcomes[4],
      ])
    #expect(try journal.entries(job: id, status: .skipped, offset: 1, limit: 2).isEmpty)
    let counts = try journal.entryCounts(job: id)
    #expect(counts.ok == 4 && counts.skipped == 1 && counts.failed == 2)
    #expect(counts.bytes == 2_800)

    // When the entries are cleared, the job has none; the other job's stay.
    let cleared = try journal.write { (transaction) throws(JournalError) -> Int in
      try transaction.clearEntries(id)
    }
    #expect(cleared == 7)
    #expect(try journal.entries(job: id, limit: 100).isEmpty)
    #expect(try journal.entryCounts(job: id) == (0, 0, 0, 0))
    #expect(try journal.entries(job: "ffffffffffffffff", limit: 100).count == 1)
  }

  @Test func a_skipped_outcome_never_replaces_an_ok_one() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let id = "0123456789abcdef"
    // Given a first run: line 1 fetched, line 2 failed, line 3 already complete.
    let fetched = outcome(id, 1, .ok, bytes: 4_096)
    try journal.write { (transaction) throws(JournalError) in
      try transaction.recordOutcomes([fetched, outcome(id, 2, .failed), outcome(id, 3, .skipped)])
    }

    // When the job runs again after a crash: every file is complete on disk now.
    let rerun = [outcome(id, 1, .skipped), outcome(id, 2, .skipped), outcome(id, 3, .skipped)]
    try journal.write { (transaction) throws(JournalError) in
      try transaction.recordOutcomes(rerun)
    }

    // Then the fetched file is still reported fetched; the others take the new outcome.
    #expect(try journal.entries(job: id, limit: 10) == [fetched, rerun[1], rerun[2]])

    // And any other outcome still replaces an earlier one, also an ok one.
    let refetched = outcome(id, 3, .ok, bytes: 10)
    let failedNow = outcome(id, 1, .failed)
    try journal.write { (transaction) throws(JournalError) in
      try transaction.recordOutcomes([refetched, failedNow, outcome(id, 3, .skipped)])
    }
    #expect(try journal.entries(job: id, limit: 10) == [failedNow, rerun[1], refetched])
  }

  @Test func for_each_entry_streams_in_line_order_and_stops_when_asked() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let id = "0123456789abcdef"
    // More than two pages, with lines that are not contiguous.
    let outcomes = (1...2_500).map { outcome(id, $0 * 3, $0 % 4 == 0 ? .failed : .ok) }
    try journal.write { (transaction) throws(JournalError) in
      try transaction.recordOutcomes(outcomes)
    }

    var seen: [EntryRecord] = []
    try journal.forEachEntry(job: id) { entry in
      seen.append(entry)
      return true
    }
    #expect(seen == outcomes)

    var failedLines: [Int] = []
    try journal.forEachEntry(job: id, status: .failed) { entry in
      failedLines.append(entry.line)
      return true
    }
    #expect(failedLines == outcomes.filter { $0.status == .failed }.map(\.line))

    // The body runs outside the lock: it may call the journal, and it stops on `false`.
    var visited = 0
    try journal.forEachEntry(job: id) { entry in
      visited += 1
      #expect((try? journal.entryCounts(job: id))?.ok == 1_875)
      return entry.line < 1_500
    }
    #expect(visited == 500)
  }

  // MARK: Transactions

  @Test func a_write_whose_closure_throws_leaves_nothing() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let id = "0123456789abcdef"
    let abort = JournalError(.constraint, "the daemon changed its mind")

    // When a write does a bit of everything, then throws.
    let thrown = #expect(throws: JournalError.self) {
      try journal.write { (transaction) throws(JournalError) in
        try transaction.insertJob(sampleJob(id, position: 0))
        try transaction.recordOutcomes([outcome(id, 1, .ok)])
        try transaction.appendEvents([sampleEvent(7, "job-added", job: id)])
        try transaction.setMeta("token", "secret")
        throw abort
      }
    }

    // Then its error comes out as thrown, and nothing of it stays.
    #expect(thrown == abort)
    #expect(try journal.jobs().isEmpty)
    #expect(try journal.entries(job: id, limit: 10).isEmpty)
    #expect(try journal.events(after: 0, limit: 10).isEmpty)
    #expect(try journal.lastEventID() == 0)
    #expect(try journal.meta("token") == nil)
    // The journal is usable afterwards.
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(sampleJob(id, position: 0))
    }
    #expect(try journal.jobs().count == 1)
  }

  @Test func meta_round_trips_and_the_journal_keys_are_reserved() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }

    try journal.write { (transaction) throws(JournalError) in
      try transaction.setMeta("token", "one")
      try transaction.setMeta("token", "two")
      try transaction.setMeta("gone", "soon")
    }
    try journal.write { (transaction) throws(JournalError) in
      try transaction.setMeta("gone", nil)
    }
    #expect(try journal.meta("token") == "two")
    #expect(try journal.meta("gone") == nil)

    let reserved = #expect(throws: JournalError.self) {
      try journal.write { (transaction) throws(JournalError) in
        try transaction.setMeta("journal.last_event_id", "0")
      }
    }
    #expect(reserved?.kind == .constraint)
  }

  // MARK: Events

  @Test func event_ids_must_increase_also_after_their_events_are_gone() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    #expect(try journal.lastEventID() == 0)
    #expect(try journal.oldestEventID() == nil)

    let events = [
      sampleEvent(1, "job-added", job: "0123456789abcdef"), sampleEvent(2, "shutdown"),
      sampleEvent(5, "entry-done", job: "0123456789abcdef"),
    ]
    try journal.write { (transaction) throws(JournalError) in
      try transaction.appendEvents(events)
    }
    #expect(try journal.events(after: 0, limit: 10) == events)
    #expect(try journal.events(after: 1, limit: 1) == [events[1]])
    #expect(try journal.oldestEventID() == 1)
    #expect(try journal.lastEventID() == 5)

    // An id that is not after the last one is refused, within one call too, and the whole
    // call is rolled back.
    for ids in [[5], [3], [6, 6], [8, 7]] as [[Int64]] {
      let refused = #expect(throws: JournalError.self) {
        try journal.write { (transaction) throws(JournalError) in
          try transaction.appendEvents(ids.map { sampleEvent($0, "entry-done") })
        }
      }
      #expect(refused?.kind == .eventOutOfOrder)
    }
    #expect(try journal.events(after: 0, limit: 10) == events)
    #expect(try journal.lastEventID() == 5)

    // When every event is pruned, the next id still has to be after 5.
    try journal.pruneEvents(keeping: 0)
    #expect(try journal.events(after: 0, limit: 10).isEmpty)
    #expect(try journal.lastEventID() == 5)
    let afterPruning = #expect(throws: JournalError.self) {
      try journal.write { (transaction) throws(JournalError) in
        try transaction.appendEvents([sampleEvent(4, "entry-done")])
      }
    }
    #expect(afterPruning?.kind == .eventOutOfOrder)
    try journal.write { (transaction) throws(JournalError) in
      try transaction.appendEvents([sampleEvent(6, "entry-done")])
    }
    #expect(try journal.lastEventID() == 6)
  }

  @Test func pruning_keeps_the_newest_events_and_the_end_of_every_listed_job() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let listed = "00000000000000a1"
    let forgotten = "00000000000000b2"
    // Given ten events, each committed alone: the ends of a listed job (2) and of a job no
    // longer listed (3).
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(sampleJob(listed, position: 0))
    }
    for id in Int64(1)...10 {
      let event =
        switch id {
        case 2: sampleEvent(id, "job-ended", job: listed)
        case 3: sampleEvent(id, "job-ended", job: forgotten)
        case 4: sampleEvent(id, "entry-done", job: listed)
        default: sampleEvent(id, "entry-done", job: nil)
        }
      try journal.write { (transaction) throws(JournalError) in
        try transaction.appendEvents([event])
      }
    }

    // When the log is pruned to its three newest events.
    let deleted = try journal.pruneEvents(keeping: 3)

    // Then the newest three stay, and the end of the listed job.
    #expect(deleted == 6)
    #expect(try journal.events(after: 0, limit: 100).map(\.id) == [2, 8, 9, 10])
    #expect(try journal.oldestEventID() == 2)
    #expect(try journal.prunedEventID() == 7)
    #expect(try journal.lastEventID() == 10)

    // Pruning to more events than are held deletes nothing and moves no mark.
    #expect(try journal.pruneEvents(keeping: 100) == 0)
    #expect(try journal.prunedEventID() == 7)

    // Once the job is forgotten, its end can go too (deleting it took it already).
    try journal.write { (transaction) throws(JournalError) in
      try transaction.deleteJob(listed)
    }
    #expect(try journal.events(after: 0, limit: 100).map(\.id) == [8, 9, 10])
    #expect(try journal.pruneEvents(keeping: 1) == 2)
    #expect(try journal.events(after: 0, limit: 100).map(\.id) == [10])
    #expect(try journal.prunedEventID() == 9)
  }

  @Test func entry_events_committed_together_are_one_batch_read_back_in_id_order() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let a = "00000000000000a1"
    let b = "00000000000000b2"
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(sampleJob(a, position: 0))
      try transaction.insertJob(sampleJob(b, position: 1))
    }
    // Given a commit of job a's entry events around its pause, then one of b's and a's.
    let first = [
      sampleEvent(1, "entry-started", job: a), sampleEvent(2, "entry-done", job: a),
      sampleEvent(3, "job-paused", job: a), sampleEvent(4, "entry-failed", job: a),
      sampleEvent(5, "entry-done", job: a),
    ]
    let second = [
      sampleEvent(7, "entry-done", job: b), sampleEvent(8, "entry-done", job: b),
      sampleEvent(9, "entry-done", job: a),
    ]
    for events in [first, second] {
      try journal.write { (transaction) throws(JournalError) in
        try transaction.appendEvents(events)
      }
    }

    // Then they are read back as they were given, from any id and a page at a time.
    let all = first + second
    #expect(try journal.events(after: 0, limit: 100) == all)
    #expect(try journal.events(after: 1, limit: 3) == Array(all[1..<4]))
    #expect(try journal.events(after: 5, limit: 2) == [all[5], all[6]])
    #expect(try journal.events(after: 9, limit: 2).isEmpty)
    #expect(try journal.oldestEventID() == 1)
    #expect(try journal.lastEventID() == 9)
    let rows = try journal.withDatabase { (database) throws(JournalError) -> Int64? in
      try JournalSQL.integer("SELECT count(*) FROM entry_events", in: database)
    }
    #expect(rows == 4)

    // Pruning keeps a batch that holds an event to keep whole: keeping the newest two keeps
    // the batch of 7 and 8 and the one of 9.
    #expect(try journal.pruneEvents(keeping: 2) == 5)
    #expect(try journal.events(after: 0, limit: 100).map(\.id) == [7, 8, 9])
    #expect(try journal.prunedEventID() == 5)

    // Forgetting a job takes its batches with it.
    try journal.write { (transaction) throws(JournalError) in
      try transaction.deleteJob(b)
    }
    #expect(try journal.events(after: 0, limit: 100).map(\.id) == [9])
    #expect(try journal.lastEventID() == 9)
  }

  @Test func calls_from_many_threads_run_one_at_a_time() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: false)
    defer { journal.close() }
    let workers = 8
    let batches = 20
    let batch = 250

    // When eight threads record their own job's outcomes while counting everyone's.
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      let id = String(format: "%016x", worker + 1)
      do throws(JournalError) {
        try journal.write { (transaction) throws(JournalError) in
          try transaction.insertJob(sampleJob(id, position: Double(worker)))
        }
        for start in stride(from: 1, through: batches * batch, by: batch) {
          let outcomes = (start..<start + batch).map { outcome(id, $0, .ok, bytes: 1) }
          try journal.write { (transaction) throws(JournalError) in
            try transaction.recordOutcomes(outcomes)
          }
          let counts = try journal.entryCounts(job: id)
          #expect(counts.ok == start + batch - 1)
          _ = try journal.jobs()
        }
      } catch {
        Issue.record("worker \(worker): \(error)")
      }
    }

    // Then every write is there, whole.
    let jobs = try journal.jobs()
    #expect(jobs.count == workers)
    for job in jobs {
      #expect(
        try journal.entryCounts(job: job.id) == (batches * batch, 0, 0, Int64(batches * batch)))
    }
  }

  // MARK: The file

  @Test func reopening_after_close_keeps_everything() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let path = scratch.file("journal.db")
    let id = "0123456789abcdef"
    var job = sampleJob(id, position: 3)
    job.state = .paused
    job.started = 1_765_123_300
    let outcomes = [outcome(id, 1, .ok), outcome(id, 2, .failed), outcome(id, 3, .skipped)]
    let events = [sampleEvent(41, "job-added", job: id), sampleEvent(42, "job-paused", job: id)]

    let journal = try Journal(path: path, fsync: true)
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(job)
      try transaction.recordOutcomes(outcomes)
      try transaction.appendEvents(events)
      try transaction.setMeta("token", "abc")
    }
    try journal.pruneEvents(keeping: 1)
    journal.close()
    journal.close()

    // A closed journal refuses every call.
    let closed = #expect(throws: JournalError.self) { try journal.jobs() }
    #expect(closed?.kind == .closed)
    #expect(throws: JournalError.self) {
      try journal.write { (transaction) throws(JournalError) in try transaction.insertJob(job) }
    }
    // Closing checkpointed the WAL into the file and removed it.
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

    let reopened = try Journal(path: path, fsync: false)
    defer { reopened.close() }
    #expect(try reopened.jobs() == [job])
    #expect(try reopened.entries(job: id, limit: 10) == outcomes)
    #expect(try reopened.events(after: 0, limit: 10) == [events[1]])
    #expect(try reopened.lastEventID() == 42)
    #expect(try reopened.prunedEventID() == 41)
    #expect(try reopened.meta("token") == "abc")
    #expect(
      try reopened.withDatabase { (database) throws(JournalError) in
        try database.pragma("user_version")
      } == String(JournalSchema.version))
  }

  @Test func a_committed_write_survives_a_crash_and_an_uncommitted_one_does_not() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let path = scratch.file("journal.db")
    let crashed = scratch.file("crashed.db")
    let id = "0123456789abcdef"
    let job = sampleJob(id, position: 0)
    let outcomes = (1...100).map { outcome(id, $0, .ok) }

    // Given a journal that commits a job, its outcomes and an event, and is never closed.
    let journal = try Journal(path: path, fsync: true)
    defer { journal.close() }
    #expect(
      try journal.withDatabase { (database) throws(JournalError) in
        try database.pragma("synchronous")
      } == "2")  // FULL
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(job)
      try transaction.recordOutcomes(outcomes)
      try transaction.appendEvents([sampleEvent(1, "job-added", job: id)])
    }

    // When the files are copied as they are on disk in the middle of the next transaction,
    // which is what a killed daemon leaves behind (nothing closed, nothing checkpointed).
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(sampleJob("fedcba9876543210", position: 1))
      try transaction.appendEvents([sampleEvent(2, "job-added", job: "fedcba9876543210")])
      do {
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: crashed + "-wal")
      } catch {
        Issue.record("cannot copy the journal: \(error)")
      }
    }

    // Then the committed write was in the WAL, and the file is in WAL mode by itself
    // (bytes 18 and 19 of the header are 2 for WAL).
    let walSize = try FileManager.default.attributesOfItem(atPath: crashed + "-wal")[.size]
    #expect((walSize as? Int ?? 0) > 0)
    let header = try #require(FileManager.default.contents(atPath: crashed)).prefix(20)
    #expect(Array(header.suffix(2)) == [2, 2])

    // And opening the copy recovers the committed write, not the uncommitted one.
    let recovered = try Journal(path: crashed, fsync: false)
    defer { recovered.close() }
    #expect(try recovered.jobs() == [job])
    #expect(try recovered.entries(job: id, limit: 1_000) == outcomes)
    #expect(try recovered.lastEventID() == 1)
    #expect(
      try recovered.withDatabase { (database) throws(JournalError) in
        try database.pragma("journal_mode")
      } == "wal")
    #expect(
      try recovered.withDatabase { (database) throws(JournalError) in
        try database.pragma("integrity_check")
      } == "ok")
  }

  @Test func the_files_are_private_to_their_owner() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let path = scratch.file("journal.db")
    let journal = try Journal(path: path, fsync: false)
    defer { journal.close() }
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(sampleJob("0123456789abcdef", position: 0))
    }

    for file in [path, path + "-wal", path + "-shm"] {
      var status = stat()
      #expect(stat(file, &status) == 0, "\(file) exists")
      #expect(status.st_mode & 0o777 == 0o600, "\(file) has mode 0600")
    }
  }

  @Test func a_journal_of_a_newer_haul_is_refused_and_left_alone() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let path = scratch.file("journal.db")
    let database = try SQLiteDatabase(path: path, fsync: false)
    try database.exec("PRAGMA user_version = \(JournalSchema.version + 1)")
    database.close()

    let refused = #expect(throws: JournalError.self) { try Journal(path: path, fsync: false) }

    #expect(refused?.kind == .newerSchema)
    let reread = try SQLiteDatabase(path: path, fsync: false)
    defer { reread.close() }
    #expect(try reread.pragma("user_version") == String(JournalSchema.version + 1))
    #expect(try reread.pragma("table_info(jobs)") == nil)
  }

  // MARK: A job of a million entries

  @Test func a_million_outcomes_recorded_in_batches_are_counted_and_streamed_back() async throws {
    try await onOwnThread { try Self.recordAndReadAMillion() }
  }

  /// The million-outcome test's body: seconds of blocking work.
  private static func recordAndReadAMillion() throws {
    let scratch = try JournalScratch()
    defer { scratch.remove() }
    let journal = try Journal(path: scratch.file("journal.db"), fsync: true)
    defer { journal.close() }
    let id = "0123456789abcdef"
    let total = 1_000_000
    let batch = 5_000
    // Every 100th line failed, every other 10th was complete already, the rest fetched.
    func status(_ line: Int) -> EntryRecord.Status {
      line % 100 == 0 ? .failed : line % 10 == 0 ? .skipped : .ok
    }
    func bytes(_ line: Int) -> Int64 { status(line) == .ok ? Int64(line % 65_536) : 0 }
    try journal.write { (transaction) throws(JournalError) in
      try transaction.insertJob(sampleJob(id, position: 0))
    }

    // When the outcomes arrive in batches of a few thousand, one transaction each.
    var wall = 0.0
    var cpu = 0.0
    for start in stride(from: 1, through: total, by: batch) {
      let outcomes = (start..<start + batch).map { line in
        outcome(id, line, status(line), bytes: bytes(line))
      }
      let (wallBefore, cpuBefore) = (seconds(CLOCK_MONOTONIC), seconds(CLOCK_THREAD_CPUTIME_ID))
      try journal.write { (transaction) throws(JournalError) in
        try transaction.recordOutcomes(outcomes)
      }
      wall += seconds(CLOCK_MONOTONIC) - wallBefore
      cpu += seconds(CLOCK_THREAD_CPUTIME_ID) - cpuBefore
    }
    print(
      "journal: \(total) outcomes in batches of \(batch), synchronous=FULL: "
        + "\(Int(Double(total) / wall)) outcomes/s (\(wall) s), "
        + "\(Int(Double(total) / cpu)) outcomes per second of CPU")

    // Then they are counted back exactly.
    let expected = (1...total).reduce(into: (ok: 0, skipped: 0, failed: 0, bytes: Int64(0))) {
      counts, line in
      switch status(line) {
      case .ok: counts.ok += 1
      case .skipped: counts.skipped += 1
      case .failed: counts.failed += 1
      }
      counts.bytes += bytes(line)
    }
    let counts = try journal.entryCounts(job: id)
    #expect(counts == expected)

    // And streamed back in line order, every one of them, each whole.
    var next = 1
    var mismatches = 0
    let streaming = try ContinuousClock().measure {
      try journal.forEachEntry(job: id) { entry in
        if entry != outcome(id, next, status(next), bytes: bytes(next)) { mismatches += 1 }
        next += 1
        return true
      }
    }
    print("journal: \(total) outcomes streamed back and compared in \(streaming)")
    #expect(next == total + 1)
    #expect(mismatches == 0)
    var failed = 0
    try journal.forEachEntry(job: id, status: .failed) { entry in
      failed += entry.line % 100 == 0 ? 1 : 0
      return true
    }
    #expect(failed == expected.failed)
    #expect(
      try journal.entries(job: id, status: .failed, offset: 9_999, limit: 5).map(\.line) == [
        1_000_000
      ])
  }
}

// MARK: - Fixtures

/// A job with every required column filled in.
private func sampleJob(_ id: String, position: Double) -> JobRecord {
  JobRecord(
    id: id, position: position, output: "/data/mirror", options: "{}",
    manifest: "/var/lib/haul/jobs/\(id).jsonl", name: "manifest.jsonl", total: 2_000,
    created: 1_765_123_200 + position)
}

/// The outcome of line `line` of `job`, with a report object as the report shows it.
private func outcome(
  _ job: String, _ line: Int, _ status: EntryRecord.Status, bytes: Int64 = 0
) -> EntryRecord {
  let path = "mirror/dir-\(line / 1_000)/file-\(line).bin"
  let code: String? = status == .failed ? "http_404" : nil
  let report =
    #"{"line":\#(line),"path":"\#(path)","status":"\#(status.rawValue)","bytes":\#(bytes)"#
    + (code.map { #","error":{"code":"\#($0)"}}"# } ?? "}")
  return EntryRecord(
    job: job, line: line, path: path, url: "https://downloads.example.com/\(path)",
    status: status, code: code, bytes: bytes, report: report)
}

private func sampleEvent(_ id: Int64, _ type: String, job: String? = nil) -> EventRecord {
  EventRecord(
    id: id, type: type, job: job, data: #"{"job":"\#(job ?? "")","n":\#(id)}"#,
    time: 1_765_123_200 + Double(id) / 8)
}

/// The time of `clock` in seconds: `CLOCK_MONOTONIC`, or the thread's CPU time.
private func seconds(_ clock: clockid_t) -> Double {
  var time = timespec()
  clock_gettime(clock, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// A fresh directory for one test's journal files, removed by `remove()`.
private struct JournalScratch {
  let path: String

  init() throws {
    var template = Array("\(NSTemporaryDirectory())/haul-journal.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: "haul-journal"])
    }
    path = String(cString: made)
  }

  func file(_ name: String) -> String { "\(path)/\(name)" }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}
