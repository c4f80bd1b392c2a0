/// One attempt of an entry on one source, as a value: after each event (the attempt was
/// prepared, its exchange ended, its digest was checked) it says which step comes next,
/// and does no I/O of its own. The engine (`EntryJob`, on the transport's thread) and a task
/// (`EntryRunner.attempt`) drive the same machine and only execute its actions, so the rules
/// of an attempt (one restart from zero, one fetch from zero of a resumed file that failed
/// its check, the digest's wait, what the slot's release says of the host) are written once.
/// A transfer in parts (a segmented download) is the same attempt: its rounds report to this
/// machine, which decides its restart from zero and its digest check as for one exchange.
/// See `AttemptMachineTests`.
///
///                 restart, once
///                  ┌──────┐
///     idle ─start─▶ split ─partsReceived─▶ completingParts ─completed──────▶ finished
///      │              ├─splitEnded, restart again─────────────────────────────▶ ▲
///      │              └─splitDeclined─┐                                          │
///      └─start──────────────────▶ preparing ─prepared─▶ sending ─received─▶ completing
///                                   ▲  │                  │  │              or awaitingDigest
///                       restart,    ├──┼──────────────────┘  │                 │  └─completed─┘
///                       once        │  └─failed──────────────┴─failed, unchanged─▶ finished
///                                   └─refetch: a resumed file failed its digest or size, once
///
/// `Attempt` is what the executor prepared (an `AttemptSteps`); the machine only carries it,
/// so that every action names the attempt it concerns and none can be missing.
struct AttemptMachine<Attempt> {
  enum State {
    /// Not started.
    case idle
    /// The transfer goes in parts (a segmented download, a multipart upload), in a task;
    /// `fresh`: from the first byte, after a restart.
    case split(fresh: Bool)
    /// The parts are all in; their digest is being finished and checked.
    case completingParts
    /// The attempt is being prepared; `fresh`: from the first byte, ignoring any partial.
    case preparing(fresh: Bool)
    /// The attempt's exchange is in flight; `resumed`: it continues a partial file.
    case sending(Attempt, fresh: Bool, resumed: Bool)
    /// The body was received; it is being checked and finished on the calling thread.
    case completing(Attempt, resumed: Bool)
    /// The body was received; its digest is being finished by a worker thread.
    case awaitingDigest(Attempt, resumed: Bool)
    /// The attempt is over.
    case finished
  }

  /// What the executor does next, reporting the outcome back as the named event.
  enum Action {
    /// Carry one round of the transfer in parts, in a task, from the first byte (dropping
    /// the partial file and its state) when `fresh`; then `partsReceived`, `splitRestart`,
    /// `splitEnded` (which finishes the attempt), or `splitDeclined` when it cannot be split.
    case split(fresh: Bool)
    /// Wait for the received parts' digest, then check and finish the file; then
    /// `completed`.
    case completeParts
    /// Close `closing` (the attempt a restart ends) if any, then prepare the attempt, from
    /// the first byte when `fresh`; then `prepared` or `prepareFailed`. `refetch`: a resumed
    /// file failed its check with this code and is fetched once more from the first byte,
    /// which counts as one more attempt of the entry (told as a `retry` with no delay).
    case prepare(fresh: Bool, closing: Attempt?, refetch: TransferError.Code? = nil)
    /// Send the attempt's request; then `exchangeEnded`.
    case send(Attempt)
    /// Check and finish the received attempt now; then `completed`.
    case complete(Attempt)
    /// Wait for the received attempt's digest, then check and finish it; then `completed`.
    case awaitDigest(Attempt)
    /// The attempt is over (see `Finish`).
    case finish(Finish)
  }

  /// The end of an attempt, for the executor to carry out: close `closing` if any, give the
  /// slot back as `end.release` says, and carry the entry on with `end.result` (its end, or
  /// the retry rules).
  struct Finish {
    var end: AttemptEnd
    var closing: Attempt?
  }

  private(set) var state = State.idle

  /// Starts the attempt: in parts when `split`, otherwise as one exchange.
  mutating func start(split: Bool) -> Action {
    guard case .idle = state else { invalid("start") }
    if split {
      state = .split(fresh: false)
      return .split(fresh: false)
    }
    state = .preparing(fresh: false)
    return .prepare(fresh: false, closing: nil)
  }

  /// The transfer cannot be split (its size, the server's ranges or validator): it goes as
  /// one exchange, which may still restart from zero unless a round in parts did.
  mutating func splitDeclined() -> Action {
    guard case .split(let fresh) = state else { invalid("splitDeclined") }
    state = .preparing(fresh: fresh)
    return .prepare(fresh: fresh, closing: nil)
  }

  /// The transfer in parts ended in `result` short of its check: an upload's parts, or a
  /// round that failed.
  mutating func splitEnded(_ result: Result<AttemptSuccess, AttemptFailure>) -> Finish {
    guard case .split = state else { invalid("splitEnded") }
    state = .finished
    return Finish(end: AttemptEnd(result), closing: nil)
  }

  /// A part's answer was no part of the version the round fetches (the whole file, or a
  /// range of another version), for `reason`: the transfer starts over from the first
  /// byte, once; a second time, the attempt fails as `protocol`.
  mutating func splitRestart(_ reason: String) -> Action {
    guard case .split(let fresh) = state else { invalid("splitRestart") }
    guard fresh else {
      state = .split(fresh: true)
      return .split(fresh: true)
    }
    state = .finished
    return .finish(
      Finish(
        end: AttemptEnd(.failure(AttemptFailure(error: TransferError(.protocol, reason)))),
        closing: nil))
  }

  /// Every part was received: the file's digest is finished and checked.
  mutating func partsReceived() -> Action {
    guard case .split = state else { invalid("partsReceived") }
    state = .completingParts
    return .completeParts
  }

  /// The attempt was prepared: its exchange goes. `resumed`: it continues a partial file
  /// (asks for the bytes after it).
  mutating func prepared(_ attempt: Attempt, resumed: Bool = false) -> Action {
    guard case .preparing(let fresh) = state else { invalid("prepared") }
    state = .sending(attempt, fresh: fresh, resumed: resumed && !fresh)
    return .send(attempt)
  }

  /// The attempt could not be prepared.
  mutating func prepareFailed(_ setback: AttemptSetback) -> Action {
    guard case .preparing(let fresh) = state else { invalid("prepareFailed") }
    return self.setback(setback, fresh: fresh, resumed: false, closing: nil)
  }

  /// The exchange ended as `verdict` says; `digestReady`: a received body's digest needs no
  /// wait (`AttemptSteps.digestIsReady`).
  mutating func exchangeEnded(_ verdict: AttemptVerdict, digestReady: Bool) -> Action {
    guard case .sending(let attempt, let fresh, let resumed) = state else {
      invalid("exchangeEnded")
    }
    switch verdict {
    case .received where digestReady:
      state = .completing(attempt, resumed: resumed)
      return .complete(attempt)
    case .received:
      state = .awaitingDigest(attempt, resumed: resumed)
      return .awaitDigest(attempt)
    case .unchanged:
      state = .finished
      return .finish(
        Finish(end: AttemptEnd(.success(AttemptSuccess(unchanged: true))), closing: attempt))
    case .setback(let setback):
      return self.setback(setback, fresh: fresh, resumed: resumed, closing: attempt)
    }
  }

  /// The received attempt was checked and finished (or failed its checks): the attempt is
  /// over, unless a resumed file failed its digest (see `refetch`). A file in parts is not
  /// fetched again so: its parts resumed on their own, and a mismatch ends the attempt.
  mutating func completed(_ result: Result<AttemptSuccess, AttemptFailure>) -> Action {
    switch state {
    case .completingParts:
      state = .finished
      return .finish(Finish(end: AttemptEnd(result), closing: nil))
    case .completing(let attempt, let resumed), .awaitingDigest(let attempt, let resumed):
      if resumed, case .failure(let failure) = result, let action = refetch(failure, attempt) {
        return action
      }
      state = .finished
      return .finish(Finish(end: AttemptEnd(result), closing: attempt))
    default:
      invalid("completed")
    }
  }

  /// A partial file that is no prefix of the resource starts the attempt over from the
  /// first byte, once; a second time, the attempt fails as `protocol`.
  private mutating func setback(
    _ setback: AttemptSetback, fresh: Bool, resumed: Bool, closing: Attempt?
  ) -> Action {
    switch setback {
    case .restart where !fresh:
      state = .preparing(fresh: true)
      return .prepare(fresh: true, closing: closing)
    case .restart(let reason):
      state = .finished
      return .finish(
        Finish(
          end: AttemptEnd(.failure(AttemptFailure(error: TransferError(.protocol, reason)))),
          closing: closing))
    case .failed(let failure):
      if resumed, let closing, let action = refetch(failure, closing) { return action }
      state = .finished
      return .finish(Finish(end: AttemptEnd(.failure(failure)), closing: closing))
    }
  }

  /// A resumed file that fails its digest or size check may owe the failure to the bytes it
  /// kept (a partial file changed on disk, a resume of another version under the same
  /// validator): it is fetched once more from the first byte before the entry fails. The
  /// fresh attempt resumes nothing, so it is never fetched again this way.
  private mutating func refetch(_ failure: AttemptFailure, _ closing: Attempt) -> Action? {
    let code = failure.error.code
    guard code == .checksumMismatch || code == .sizeMismatch else { return nil }
    state = .preparing(fresh: true)
    return .prepare(fresh: true, closing: closing, refetch: code)
  }

  private func invalid(_ event: String) -> Never {
    preconditionFailure("attempt machine: \(event) in state \(state)")
  }
}

extension AttemptMachine: Sendable where Attempt: Sendable {}
extension AttemptMachine.State: Sendable where Attempt: Sendable {}
extension AttemptMachine.Action: Sendable where Attempt: Sendable {}
extension AttemptMachine.Finish: Sendable where Attempt: Sendable {}
