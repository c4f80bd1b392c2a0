import Testing

@testable import HaulCore

@Suite("Attempt loop: sources, retries, Retry-After and the outage excuse")
struct AttemptLoopTests {
  let policy = RetryPolicy(retries: 2, base: 1, cap: 60)

  @Test func a_transient_failure_is_retried_on_the_same_source_until_retries_run_out() {
    var loop = AttemptLoop(sources: 1, policy: policy)
    loop.begin()
    #expect(
      loop.failed(.timeout, retryAfter: nil, excused: false, jitter: 0.5)
        == .attempt(
          source: 0, attempt: 2, delay: policy.delay(afterAttempt: 1, retryAfter: nil, jitter: 0.5))
    )
    #expect(
      loop.failed(.timeout, retryAfter: nil, excused: false, jitter: 0.5)
        == .attempt(
          source: 0, attempt: 3, delay: policy.delay(afterAttempt: 2, retryAfter: nil, jitter: 0.5))
    )
    #expect(loop.failed(.timeout, retryAfter: nil, excused: false, jitter: 0.5) == .giveUp)
    #expect(loop.attempts == 3)
  }

  @Test func a_fetch_from_zero_within_an_attempt_counts_and_uses_up_no_retry() {
    var loop = AttemptLoop(sources: 1, policy: RetryPolicy(retries: 1, base: 1, cap: 60))
    loop.begin()
    // The first attempt resumed, failed its digest and fetched the file again: two attempts.
    loop.refetched(upTo: 2)
    #expect(loop.attempts == 2)
    #expect(loop.attemptOfSource == 1)
    // The one retry is still there, numbered after both.
    #expect(
      loop.failed(.timeout, retryAfter: nil, excused: false, jitter: 0)
        == .attempt(
          source: 0, attempt: 3,
          delay: RetryPolicy(retries: 1, base: 1, cap: 60).delay(
            afterAttempt: 1, retryAfter: nil, jitter: 0)))
    // A count the loop has passed changes nothing.
    loop.refetched(upTo: 1)
    #expect(loop.attempts == 3)
    #expect(loop.failed(.timeout, retryAfter: nil, excused: false, jitter: 0) == .giveUp)
  }

  @Test func a_4xx_moves_to_the_next_source_at_once_and_the_last_one_ends_the_entry() {
    var loop = AttemptLoop(sources: 2, policy: policy)
    loop.begin()
    #expect(
      loop.failed(.http(404), retryAfter: nil, excused: false, jitter: 0)
        == .attempt(source: 1, attempt: 2, delay: 0))
    #expect(loop.attemptOfSource == 1)
    #expect(loop.failed(.http(404), retryAfter: nil, excused: false, jitter: 0) == .giveUp)
  }

  @Test func exhausted_retries_on_one_source_go_on_to_the_next() {
    var loop = AttemptLoop(sources: 2, policy: RetryPolicy(retries: 0, base: 1, cap: 60))
    loop.begin()
    #expect(
      loop.failed(.http(503), retryAfter: nil, excused: false, jitter: 0)
        == .attempt(source: 1, attempt: 2, delay: 0))
    #expect(loop.failed(.http(503), retryAfter: nil, excused: false, jitter: 0) == .giveUp)
  }

  @Test func retry_after_sets_the_delay() {
    var loop = AttemptLoop(sources: 1, policy: policy)
    loop.begin()
    #expect(
      loop.failed(.http(429), retryAfter: 7, excused: false, jitter: 0)
        == .attempt(source: 0, attempt: 2, delay: 7))
  }

  @Test func an_outage_excuse_costs_an_attempt_but_no_retry() {
    var loop = AttemptLoop(sources: 1, policy: RetryPolicy(retries: 0, base: 1, cap: 60))
    loop.begin()
    #expect(
      loop.failed(.connection, retryAfter: nil, excused: true, jitter: 0)
        == .attempt(source: 0, attempt: 2, delay: 0))
    #expect(
      loop.failed(.connection, retryAfter: nil, excused: true, jitter: 0)
        == .attempt(source: 0, attempt: 3, delay: 0))
    #expect(loop.failed(.connection, retryAfter: nil, excused: false, jitter: 0) == .giveUp)
  }

  @Test func a_local_error_ends_the_entry_whatever_sources_remain() {
    var loop = AttemptLoop(sources: 3, policy: policy)
    loop.begin()
    #expect(loop.failed(.diskFull, retryAfter: nil, excused: false, jitter: 0) == .giveUp)
  }
}
