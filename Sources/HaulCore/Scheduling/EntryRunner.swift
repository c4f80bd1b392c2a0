import Foundation

/// Carries a run's entries from start to end: the skip check as the manifest is read, then
/// attempts over each entry's sources with retries as `RetryPolicy` decides, each attempt
/// holding a slot of the run (`RunState`).
///
/// Two paths, one set of rules. `dispatch` hands an entry that holds its first slot to the
/// transport's engine when there is one (`EntryJob`, no task per entry) and otherwise to a
/// task; everything that must wait (back-off, mirrors, outages, `--auth-command`, segments)
/// runs in a task (`run`), which takes over from the engine after a failed first attempt.
/// Both make their attempts with `DownloadAttempt` and `UploadAttempt`.
///
/// Its parts, by concern: `+Feeding` (the skip check before a slot), `+Dispatch` (engine or
/// task), `+Slots`, `+Retries` (the slow path), `+Attempt` (an attempt in a task),
/// `+Requests`, `+Segments`, `+Ending`.
final class EntryRunner: Sendable {
  /// The scheduler that runs this runner, held weakly (`SchedulerLink`).
  let scheduler: SchedulerLink
  let transport: any Transport
  /// The transport's engine, when it has one and the run may use it.
  let engine: (any EngineTransport)?
  let directory: OutputDirectory
  let events: SerializedEventHandler
  let state: RunState
  let options: SchedulerOptions
  let retryPolicy: RetryPolicy
  /// The run's interceptor when it adapts requests at once (the engine applies it).
  let immediate: (any ImmediateRequestInterceptor)?
  /// `--header` fields with `Want-Repr-Digest` after them (unless they set it), built once:
  /// the headers of a download's requests when its entry adds none.
  let downloadHeaders: [HTTPField]
  /// Where completions that sync to the disk run (`--fsync`); `nil` without it.
  let finisher: FileFinisher?

  typealias Failure = AttemptFailure
  typealias Success = AttemptSuccess

  /// How an entry ended, as the run records it in one step.
  struct Ending: Sendable {
    var outcome: EntryOutcome
    /// The entry's bytes toward `ProgressSnapshot.completedBytes`.
    var completedBytes: Int64 = 0
    /// The entry's id among the active transfers, when it became one.
    var activeID: Int?
    /// The ended entry's job, kept by the run until the feeder drops it (see
    /// `RunState.takeRetired`).
    var retired: EntryJob?
    /// Whether the manifest gives the entry's size (else `completedBytes` is a size learned).
    var sizeInManifest: Bool
  }

  init(scheduler: Scheduler, directory: OutputDirectory, events: SerializedEventHandler) {
    self.scheduler = SchedulerLink(scheduler)
    transport = scheduler.transport
    options = scheduler.options
    retryPolicy = scheduler.retryPolicy
    downloadHeaders =
      options.headers.contains { $0.hasName(ServerDigests.wantReprDigest.name) }
      ? options.headers : options.headers + [ServerDigests.wantReprDigest]
    self.directory = directory
    self.events = events
    finisher = options.fsync ? FileFinisher() : nil
    state = RunState(
      concurrency: options.concurrency, perHost: options.perHost,
      retryAfterCap: scheduler.retryPolicy.retryAfterCap,
      controller: options.automaticConcurrency
        ? ConcurrencyController(ceiling: options.concurrency) : nil,
      hostLimits: options.hostLimits)
    // An interceptor that must wait (`--auth-command` runs a command) sends every attempt
    // through a task; one that adapts at once (`--s3` signing) keeps the engine.
    immediate = options.interceptor as? any ImmediateRequestInterceptor
    engine =
      options.interceptor == nil || immediate != nil
      ? scheduler.transport as? any EngineTransport : nil
    state.setDispatcher { [unowned self] jobs in dispatch(jobs) }
  }
}
