import Testing

@testable import HaulCore

/// Every transition of `AttemptMachine`, with plain numbers standing for prepared attempts:
/// the machine only carries them, so which one each action names is what is checked.
@Suite("Attempt machine: prepare, send, restart, refetch, split, digest, finish")
struct AttemptMachineTests {
  typealias Machine = AttemptMachine<Int>

  /// An action, reduced to what can be compared.
  enum Step: Equatable {
    case split(fresh: Bool)
    case completeParts
    case prepare(fresh: Bool, closing: Int?, refetch: TransferError.Code? = nil)
    case send(Int)
    case complete(Int)
    case awaitDigest(Int)
    case finish(Ending, SlotRelease, closing: Int?)
  }

  enum Ending: Equatable {
    case ok
    case unchanged
    case failed(TransferError)
  }

  static func step(_ action: Machine.Action) -> Step {
    switch action {
    case .split(let fresh): .split(fresh: fresh)
    case .completeParts: .completeParts
    case .prepare(let fresh, let closing, let refetch):
      .prepare(fresh: fresh, closing: closing, refetch: refetch)
    case .send(let attempt): .send(attempt)
    case .complete(let attempt): .complete(attempt)
    case .awaitDigest(let attempt): .awaitDigest(attempt)
    case .finish(let finish): step(finish)
    }
  }

  static func step(_ finish: Machine.Finish) -> Step {
    let ending: Ending
    switch finish.end.result {
    case .success(let success): ending = success.unchanged ? .unchanged : .ok
    case .failure(let failure): ending = .failed(failure.error)
    }
    return .finish(ending, finish.end.release, closing: finish.closing)
  }

  let ok = Result<AttemptSuccess, AttemptFailure>.success(AttemptSuccess())
  let refused = AttemptFailure(error: TransferError(.connection, "refused"))
  let busy = AttemptFailure(
    error: TransferError(.http(503), "the server answered 503"), retryAfter: 7, answered: true)

  /// A machine that sent attempt `attempt` (fresh or not; continuing a partial file or not).
  func sending(_ attempt: Int, fresh: Bool = false, resumed: Bool = false) -> Machine {
    var machine = Machine()
    _ = machine.start(split: false)
    if fresh { _ = machine.prepareFailed(.restart("not a prefix")) }
    _ = machine.prepared(attempt, resumed: resumed)
    return machine
  }

  @Test func a_start_prepares_a_resumable_attempt_and_sends_what_was_prepared() {
    var machine = Machine()
    #expect(Self.step(machine.start(split: false)) == .prepare(fresh: false, closing: nil))
    #expect(Self.step(machine.prepared(1)) == .send(1))
  }

  @Test func a_split_start_goes_in_parts_and_its_end_finishes_the_attempt() {
    var machine = Machine()
    #expect(Self.step(machine.start(split: true)) == .split(fresh: false))
    #expect(
      Self.step(machine.splitEnded(ok)) == .finish(.ok, SlotRelease(status: 200), closing: nil))
    if case .finished = machine.state {} else { Issue.record("not finished: \(machine.state)") }
  }

  @Test func a_split_that_fails_finishes_with_its_failure_and_what_the_host_said() {
    var machine = Machine()
    _ = machine.start(split: true)
    #expect(
      Self.step(machine.splitEnded(.failure(busy)))
        == .finish(
          .failed(busy.error), SlotRelease(status: 503, retryAfter: 7, answered: true),
          closing: nil))
  }

  @Test func a_declined_split_goes_as_one_resumable_exchange() {
    var machine = Machine()
    _ = machine.start(split: true)
    #expect(Self.step(machine.splitDeclined()) == .prepare(fresh: false, closing: nil))
    #expect(Self.step(machine.prepared(4)) == .send(4))
  }

  @Test func a_split_restarted_from_zero_that_is_then_declined_restarts_no_more() {
    var machine = Machine()
    _ = machine.start(split: true)
    #expect(Self.step(machine.splitRestart("changed")) == .split(fresh: true))
    #expect(Self.step(machine.splitDeclined()) == .prepare(fresh: true, closing: nil))
    _ = machine.prepared(4, resumed: false)
    #expect(
      Self.step(machine.exchangeEnded(.setback(.restart("changed again")), digestReady: true))
        == .finish(
          .failed(TransferError(.protocol, "changed again")), SlotRelease(), closing: 4))
  }

  @Test func a_split_whose_part_is_of_another_version_starts_over_from_zero_once() {
    var machine = Machine()
    _ = machine.start(split: true)
    #expect(Self.step(machine.splitRestart("a 200 to a range")) == .split(fresh: true))
    #expect(
      Self.step(machine.splitRestart("a 200 to a range"))
        == .finish(
          .failed(TransferError(.protocol, "a 200 to a range")), SlotRelease(), closing: nil))
    if case .finished = machine.state {} else { Issue.record("not finished: \(machine.state)") }
  }

  @Test func a_split_restarted_once_may_still_receive_its_parts_and_complete() {
    var machine = Machine()
    _ = machine.start(split: true)
    _ = machine.splitRestart("changed")
    #expect(Self.step(machine.partsReceived()) == .completeParts)
    #expect(
      Self.step(machine.completed(ok)) == .finish(.ok, SlotRelease(status: 200), closing: nil))
  }

  @Test(arguments: [TransferError.Code.checksumMismatch, .sizeMismatch, .io])
  func received_parts_that_fail_their_check_finish_and_are_never_fetched_again(
    _ code: TransferError.Code
  ) {
    var machine = Machine()
    _ = machine.start(split: true)
    #expect(Self.step(machine.partsReceived()) == .completeParts)
    let failure = AttemptFailure(error: TransferError(code, "check"))
    #expect(
      Self.step(machine.completed(.failure(failure)))
        == .finish(.failed(failure.error), SlotRelease(), closing: nil))
    if case .finished = machine.state {} else { Issue.record("not finished: \(machine.state)") }
  }

  @Test func a_partial_that_cannot_be_hashed_back_restarts_the_preparation_from_zero_once() {
    var machine = Machine()
    _ = machine.start(split: false)
    #expect(
      Self.step(machine.prepareFailed(.restart("partial file shrank")))
        == .prepare(fresh: true, closing: nil))
    #expect(
      Self.step(machine.prepareFailed(.restart("partial file shrank")))
        == .finish(
          .failed(TransferError(.protocol, "partial file shrank")), SlotRelease(), closing: nil))
  }

  @Test func a_preparation_that_fails_finishes_the_attempt_with_nothing_to_close() {
    var machine = Machine()
    _ = machine.start(split: false)
    #expect(
      Self.step(machine.prepareFailed(.failed(refused)))
        == .finish(.failed(refused.error), SlotRelease(), closing: nil))
  }

  @Test func a_received_body_whose_digest_is_ready_completes_on_the_spot() {
    var machine = sending(1)
    #expect(Self.step(machine.exchangeEnded(.received, digestReady: true)) == .complete(1))
    #expect(Self.step(machine.completed(ok)) == .finish(.ok, SlotRelease(status: 200), closing: 1))
  }

  @Test func a_received_body_whose_digest_a_worker_finishes_waits_for_it() {
    var machine = sending(2)
    #expect(Self.step(machine.exchangeEnded(.received, digestReady: false)) == .awaitDigest(2))
    if case .awaitingDigest(2, resumed: false) = machine.state {
    } else {
      Issue.record("not awaiting: \(machine.state)")
    }
    let mismatch = AttemptFailure(error: TransferError(.checksumMismatch, "sha256 differs"))
    #expect(
      Self.step(machine.completed(.failure(mismatch)))
        == .finish(.failed(mismatch.error), SlotRelease(), closing: 2))
  }

  @Test func a_304_to_a_refresh_check_finishes_unchanged_and_closes_the_attempt() {
    var machine = sending(3)
    #expect(
      Self.step(machine.exchangeEnded(.unchanged, digestReady: true))
        == .finish(.unchanged, SlotRelease(status: 200), closing: 3))
  }

  @Test func a_failed_exchange_finishes_closing_the_attempt_and_tells_how_the_host_answered() {
    var machine = sending(5)
    #expect(
      Self.step(machine.exchangeEnded(.setback(.failed(busy)), digestReady: true))
        == .finish(
          .failed(busy.error), SlotRelease(status: 503, retryAfter: 7, answered: true),
          closing: 5))
  }

  @Test func an_answer_that_is_no_continuation_of_the_partial_restarts_from_zero_once() {
    var machine = sending(1)
    #expect(
      Self.step(machine.exchangeEnded(.setback(.restart("not a prefix")), digestReady: true))
        == .prepare(fresh: true, closing: 1))
    #expect(Self.step(machine.prepared(2)) == .send(2))
    #expect(
      Self.step(machine.exchangeEnded(.setback(.restart("not a prefix")), digestReady: true))
        == .finish(.failed(TransferError(.protocol, "not a prefix")), SlotRelease(), closing: 2))
  }

  @Test func a_fresh_attempt_received_completes_as_any_other() {
    var machine = sending(8, fresh: true)
    #expect(Self.step(machine.exchangeEnded(.received, digestReady: true)) == .complete(8))
  }

  let digestMismatch = AttemptFailure(
    error: TransferError(.checksumMismatch, "SHA-256 differs (manifest:sha256)"))
  let sizeMismatch = AttemptFailure(
    error: TransferError(.sizeMismatch, "received 9 bytes, expected 10"))

  @Test(arguments: [true, false])
  func a_resumed_file_whose_digest_fails_is_fetched_once_more_from_zero(digestReady: Bool) {
    var machine = sending(1, resumed: true)
    let received = machine.exchangeEnded(.received, digestReady: digestReady)
    #expect(Self.step(received) == (digestReady ? .complete(1) : .awaitDigest(1)))
    #expect(
      Self.step(machine.completed(.failure(digestMismatch)))
        == .prepare(fresh: true, closing: 1, refetch: .checksumMismatch))
    // The fetch from zero continues nothing: its own mismatch fails the attempt.
    #expect(Self.step(machine.prepared(2, resumed: false)) == .send(2))
    #expect(Self.step(machine.exchangeEnded(.received, digestReady: true)) == .complete(2))
    #expect(
      Self.step(machine.completed(.failure(digestMismatch)))
        == .finish(.failed(digestMismatch.error), SlotRelease(), closing: 2))
  }

  @Test func a_resumed_file_fetched_again_from_zero_finishes_as_its_fresh_fetch_ends() {
    var machine = sending(1, resumed: true)
    _ = machine.exchangeEnded(.received, digestReady: true)
    _ = machine.completed(.failure(digestMismatch))
    _ = machine.prepared(2)
    _ = machine.exchangeEnded(.received, digestReady: true)
    #expect(Self.step(machine.completed(ok)) == .finish(.ok, SlotRelease(status: 200), closing: 2))
  }

  @Test func a_resumed_file_whose_size_fails_is_fetched_once_more_from_zero() {
    var machine = sending(1, resumed: true)
    #expect(
      Self.step(machine.exchangeEnded(.setback(.failed(sizeMismatch)), digestReady: true))
        == .prepare(fresh: true, closing: 1, refetch: .sizeMismatch))
    _ = machine.prepared(2)
    #expect(
      Self.step(machine.exchangeEnded(.setback(.failed(sizeMismatch)), digestReady: true))
        == .finish(.failed(sizeMismatch.error), SlotRelease(), closing: 2))
  }

  @Test func a_file_fetched_from_zero_whose_digest_fails_finishes_at_once() {
    var machine = sending(1)
    _ = machine.exchangeEnded(.received, digestReady: true)
    #expect(
      Self.step(machine.completed(.failure(digestMismatch)))
        == .finish(.failed(digestMismatch.error), SlotRelease(), closing: 1))
  }

  @Test func a_restarted_attempt_is_never_resumed_so_its_mismatch_is_not_fetched_again() {
    // After a restart the preparation is fresh: whatever the executor says, it resumes nothing.
    var machine = sending(1, fresh: true, resumed: true)
    _ = machine.exchangeEnded(.received, digestReady: true)
    #expect(
      Self.step(machine.completed(.failure(digestMismatch)))
        == .finish(.failed(digestMismatch.error), SlotRelease(), closing: 1))
  }

  @Test func a_resumed_file_that_fails_otherwise_finishes_with_its_failure() {
    var machine = sending(1, resumed: true)
    #expect(
      Self.step(machine.exchangeEnded(.setback(.failed(busy)), digestReady: true))
        == .finish(
          .failed(busy.error), SlotRelease(status: 503, retryAfter: 7, answered: true),
          closing: 1))
    var received = sending(2, resumed: true)
    _ = received.exchangeEnded(.received, digestReady: true)
    let io = AttemptFailure(error: TransferError(.io, "cannot rename"))
    #expect(
      Self.step(received.completed(.failure(io)))
        == .finish(.failed(io.error), SlotRelease(), closing: 2))
  }

  @Test func a_slot_release_tells_the_status_retry_after_and_whether_the_host_answered() {
    #expect(SlotRelease(after: ok) == SlotRelease(status: 200))
    #expect(SlotRelease(after: .failure(refused)) == SlotRelease())
    #expect(
      SlotRelease(after: .failure(AttemptFailure(error: refused.error, answered: true)))
        == SlotRelease(answered: true))
    #expect(
      SlotRelease(after: .failure(busy)) == SlotRelease(status: 503, retryAfter: 7, answered: true))
    #expect(SlotRelease.plain == SlotRelease())
  }
}
