import Foundation
import HaulCore
import Synchronization

/// The background service's core: the queue of jobs (`JobQueue`), its journal (`Journal`),
/// the runs of the engine, and the event log that clients follow. The API calls it from the
/// HTTP server's threads, the engine from its own: every call is synchronous and short.
///
/// Nothing accepted is lost: a job is answered only once it is committed, and its state
/// changes are committed with their events before anyone sees them. Entry outcomes and their
/// events are gathered and committed together every `flushInterval` (or every few thousand),
/// and only then published, so an event a client saw is in the journal, and event ids never
/// go back across restarts. A crash between two commits loses at most the outcomes of the
/// last moments; the next run of the job skips the files they finished (they are in place)
/// and resumes the partial ones.
public final class Daemon: Sendable {
  /// How the daemon is set up.
  public struct Configuration: Sendable {
    /// The state directory: the journal and the jobs' manifests (mode 0700).
    public var stateDirectory: String
    /// Where jobs may write.
    public var roots: Roots
    /// Job runs that go at once, each with the daemon's whole `-j`. 1: the daemon's `-j` and
    /// `--per-host` bound all jobs together, and jobs start in queue order.
    public var maxRunning = 1
    /// Commit with `synchronous=FULL` (`--fsync`): a power cut loses no accepted job.
    public var fsync = false
    /// Events kept for replay beyond the job-ended ones.
    public var eventsKept = 10_000
    /// Seconds between `progress` events of a running job.
    public var progressInterval = 0.5
    /// Seconds between commits of entry outcomes.
    public var flushInterval = 0.1
    /// Called after each commit to the journal, under the daemon's lock: the recovery tests
    /// copy the state directory there, as a crash right after that commit would leave it.
    package var afterCommit: (@Sendable () -> Void)?

    public init(stateDirectory: String, roots: Roots) {
      self.stateDirectory = stateDirectory
      self.roots = roots
    }
  }

  /// Everything that changes, under one lock.
  struct Core: Sendable {
    /// Empty until `start()` restores it from `jobs`.
    var queue: JobQueue
    /// Every job the daemon lists, by id.
    var jobs: [String: JobRecord]
    /// The stop switch of each run going.
    var runs: [String: JobControl] = [:]
    var live: [String: LiveProgress] = [:]
    var subscribers: [EventSubscriber] = []
    /// Told of each batch of committed events (`observeEvents`).
    var observers: [@Sendable ([EventRecord]) -> Void] = []
    var eventsSincePrune = 0
    /// Set once shutdown began: no job starts, no job is accepted.
    var stopping = false
  }

  let configuration: Configuration
  let engine: any JobEngine
  let journal: Journal
  let core: Mutex<Core>
  /// What the engine's threads add between two commits, under a lock of its own: an
  /// entry's end never waits for a commit in progress. Taken inside `core` or alone, never
  /// the other way round.
  let pending: Mutex<Pending>
  /// Ends when the daemon has shut down.
  private let stopped = Mutex<[CheckedContinuation<Void, Never>]?>([])
  private let ticker = Mutex<Task<Void, Never>?>(nil)

  /// Opens the journal in the state directory and restores the queue it holds. Call
  /// `start()` to run the jobs.
  public init(configuration: Configuration, engine: any JobEngine) throws(ServiceError) {
    self.configuration = configuration
    self.engine = engine
    try Self.makePrivateDirectory(configuration.stateDirectory)
    try Self.makePrivateDirectory(Self.manifestsDirectory(configuration.stateDirectory))
    do throws(JournalError) {
      journal = try Journal(
        path: configuration.stateDirectory + "/journal.sqlite", fsync: configuration.fsync)
      let records = try journal.jobs()
      var jobs: [String: JobRecord] = [:]
      for record in records { jobs[record.id] = record }
      core = Mutex(Core(queue: JobQueue(maxRunning: configuration.maxRunning), jobs: jobs))
      pending = Mutex(Pending(nextEventID: try journal.lastEventID() + 1))
    } catch {
      throw ServiceError(.io, "cannot open the journal: \(error)")
    }
  }

  /// Runs the jobs the journal holds (those that were active first), and begins committing
  /// outcomes and sending progress.
  public func start() {
    core.withLock { core in
      let ordered = core.jobs.values.sorted { $0.position < $1.position }
      let (queue, actions) = JobQueue.restored(
        ordered.map { (id: $0.id, state: $0.state) }, maxRunning: configuration.maxRunning)
      core.queue = queue
      perform(actions, in: &core)
    }
    let interval = configuration.flushInterval
    let progressEvery = max(1, Int((configuration.progressInterval / interval).rounded()))
    let task = Task.detached { [weak self] in
      var tick = 0
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(interval))
        guard let self else { return }
        tick += 1
        self.core.withLock { core in
          self.flush(&core)
          if tick % progressEvery == 0 { self.publishProgress(&core) }
        }
      }
    }
    ticker.withLock { $0 = task }
  }

  /// Stops every run (their transfers keep their partial files), commits what is pending,
  /// ends every event stream and closes the journal. Jobs that were running stay `active`
  /// in the journal, so the next start runs them again. Returns once all of it is done.
  public func shutDown() async {
    let first = core.withLock { core -> Bool in
      guard !core.stopping else { return false }
      core.stopping = true
      perform(core.queue.shutDown(), in: &core)
      return true
    }
    if first {
      await waitForRuns()
      ticker.withLock { $0?.cancel() }
      core.withLock { core in
        flush(&core)
        for subscriber in core.subscribers { subscriber.stream.close() }
        core.subscribers = []
      }
      journal.close()
      let waiters = stopped.withLock { waiters in
        defer { waiters = nil }
        return waiters ?? []
      }
      for waiter in waiters { waiter.resume() }
    } else {
      await waitUntilStopped()
    }
  }

  /// Returns once `shutDown()` has finished.
  public func waitUntilStopped() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = stopped.withLock { waiters -> Bool in
        guard waiters != nil else { return true }
        waiters!.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Entry outcomes and events not yet committed, and each running job's outcomes so far.
  struct Pending: Sendable {
    var outcomes: [EntryRecord] = []
    var events: [EventRecord] = []
    /// The id the next event gets: ids are given in the order events happen.
    var nextEventID: Int64
    /// The outcomes of each running job's current run.
    var counts: [String: RunCounts] = [:]
  }

  /// How a run's entries ended so far.
  struct RunCounts: Sendable {
    var succeeded = 0
    var skipped = 0
    var failed = 0
    var bytes: Int64 = 0
    /// The job had no outcome journaled when the run started: the run's counts are the
    /// job's when it ends, without reading its outcomes back.
    var wholeJob = false
  }

  /// Whether `shutDown()` began (a client's `POST /v1/shutdown`, SIGTERM).
  public var isStopping: Bool { core.withLock { $0.stopping } }

  private func waitForRuns() async {
    while core.withLock({ !$0.runs.isEmpty }) {
      try? await Task.sleep(for: .milliseconds(20))
    }
  }

  /// Where the jobs' manifests are kept.
  static func manifestsDirectory(_ state: String) -> String { state + "/jobs" }

  /// Creates `path` with mode 0700 when missing; refuses one that others can enter.
  static func makePrivateDirectory(_ path: String) throws(ServiceError) {
    if mkdir(path, 0o700) != 0, errno != EEXIST {
      throw ServiceError(.io, "cannot create '\(path)': \(String(cString: strerror(errno)))")
    }
    var status = stat()
    guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
      throw ServiceError(.io, "'\(path)' is not a directory")
    }
    if status.st_mode & 0o077 != 0 { chmod(path, 0o700) }
  }

  /// The current time, in seconds since 1970, as the journal keeps times.
  static var now: Double { Date().timeIntervalSince1970 }
}
