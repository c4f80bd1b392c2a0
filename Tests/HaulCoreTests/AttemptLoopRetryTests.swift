import Testing

@testable import HaulCore

/// The one retry loop (`AttemptLoop.retry`) that an entry's attempts and a listing's requests
/// both go through: what it tries, what it announces, how it counts and when it stops. The
/// policy's base delay is 0, so no back-off is waited out.
@Suite("Attempt loop: the retry loop every kind of attempt goes through")
struct AttemptLoopRetryTests {
  let policy = RetryPolicy(retries: 2, base: 0, cap: 0)

  /// Records what the loop asked for and announced.
  final class Log {
    var attempts: [(source: Int, number: Int)] = []
    var retries: [(number: Int, code: TransferError.Code)] = []
  }

  static func failure(_ code: TransferError.Code) -> AttemptFailure {
    AttemptFailure(error: TransferError(code, "test"))
  }

  @Test func transient_failures_are_retried_on_one_source_then_the_next_one_gives_the_file()
    async
  {
    var loop = AttemptLoop(sources: 2, policy: policy)
    loop.begin()
    let log = Log()
    let result = await loop.retry(
      attempt: { source, number -> AttemptLoop.Made<String> in
        log.attempts.append((source, number))
        let result: Result<String, AttemptFailure> =
          source == 0 ? .failure(Self.failure(.http(503))) : .success("mirror")
        return .init(result: result, attempts: number)
      },
      retrying: { number, code, _ in log.retries.append((number, code)) })
    #expect((try? result.get()) == "mirror")
    #expect(log.attempts.map(\.source) == [0, 0, 0, 1])
    #expect(log.attempts.map(\.number) == [1, 2, 3, 4])
    #expect(log.retries.map(\.number) == [2, 3, 4])
    #expect(log.retries.allSatisfy { $0.code == .http(503) })
  }

  @Test func an_entry_ending_failure_gives_up_at_once_with_that_failure() async {
    var loop = AttemptLoop(sources: 2, policy: policy)
    loop.begin()
    let log = Log()
    let result = await loop.retry(
      attempt: { source, number -> AttemptLoop.Made<String> in
        log.attempts.append((source, number))
        return .init(result: .failure(Self.failure(.diskFull)), attempts: number)
      },
      retrying: { number, code, _ in log.retries.append((number, code)) })
    guard case .failure(let failure) = result else {
      Issue.record("expected a failure")
      return
    }
    #expect(failure.error.code == .diskFull)
    #expect(log.attempts.count == 1)
    #expect(log.retries.isEmpty)
  }

  @Test func a_first_failure_made_elsewhere_is_decided_before_any_attempt_here() async {
    var loop = AttemptLoop(sources: 1, policy: policy)
    loop.begin()
    let log = Log()
    let result = await loop.retry(
      after: Self.failure(.timeout),
      attempt: { source, number -> AttemptLoop.Made<Int> in
        log.attempts.append((source, number))
        return .init(result: .success(number), attempts: number)
      },
      retrying: { number, code, _ in log.retries.append((number, code)) })
    #expect((try? result.get()) == 2)
    #expect(log.attempts.map(\.number) == [2])
    #expect(log.retries.map(\.code) == [.timeout])
  }

  @Test func attempts_counted_within_an_attempt_number_the_next_ones_and_use_up_no_retry()
    async
  {
    var loop = AttemptLoop(sources: 1, policy: RetryPolicy(retries: 1, base: 0, cap: 0))
    loop.begin()
    let log = Log()
    _ = await loop.retry(
      attempt: { source, number -> AttemptLoop.Made<Int> in
        log.attempts.append((source, number))
        // The first attempt fetched its file from zero as well: two attempts in all.
        return .init(result: .failure(Self.failure(.timeout)), attempts: number + 1)
      },
      retrying: { number, code, _ in log.retries.append((number, code)) })
    #expect(log.attempts.map(\.number) == [1, 3])
    #expect(loop.attempts == 4)
  }

  @Test func an_outage_excuses_a_connection_failure_without_using_up_a_retry() async {
    var loop = AttemptLoop(sources: 1, policy: RetryPolicy(retries: 0, base: 0, cap: 0))
    loop.begin()
    let log = Log()
    var excuses = 0
    let result = await loop.retry(
      attempt: { source, number -> AttemptLoop.Made<Int> in
        log.attempts.append((source, number))
        return .init(
          result: number < 3 ? .failure(Self.failure(.connection)) : .success(number),
          attempts: number)
      },
      excused: { failure, _ in
        excuses += 1
        return failure.error.code == .connection
      },
      retrying: { number, code, _ in log.retries.append((number, code)) })
    #expect((try? result.get()) == 3)
    #expect(excuses == 2)
    #expect(log.retries.map(\.number) == [2, 3])
  }

  @Test func a_failure_once_cancelled_ends_the_loop_as_cancelled_whatever_its_code() async {
    let task = Task { [policy] in
      var loop = AttemptLoop(sources: 2, policy: policy)
      loop.begin()
      var made = 0
      let result = await loop.retry(
        attempt: { _, number -> AttemptLoop.Made<Int> in
          made += 1
          withUnsafeCurrentTask { $0?.cancel() }
          // Transient, with another source left: only the cancellation ends the loop.
          let failure = AttemptFailure(error: TransferError(.http(503), "busy"), transient: true)
          return .init(result: .failure(failure), attempts: number)
        })
      return (result, made)
    }
    let (result, made) = await task.value
    guard case .failure(let failure) = result else {
      Issue.record("expected a failure")
      return
    }
    #expect(failure.error.code == .cancelled)
    #expect(made == 1)
  }
}
