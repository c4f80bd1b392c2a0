import Foundation
import HaulCore
import Testing

@Suite("Retry policy: retry, next source, or give up")
struct RetryPolicyTests {
  let policy = RetryPolicy(retries: 2, base: 1, cap: 60)

  @Test(arguments: [
    TransferError.Code.connection, .timeout, .protocol, .http(408), .http(429), .http(500),
    .http(503),
  ])
  func transient_errors_are_retried_then_end_the_source(code: TransferError.Code) {
    #expect(
      policy.verdict(for: code, attemptOfSource: 1, retryAfter: nil, jitter: 0)
        == .retry(delay: 0.5))
    #expect(
      policy.verdict(for: code, attemptOfSource: 2, retryAfter: nil, jitter: 1) == .retry(delay: 2))
    #expect(
      policy.verdict(for: code, attemptOfSource: 3, retryAfter: nil, jitter: 0) == .nextSource)
  }

  @Test(arguments: [
    TransferError.Code.http(404), .http(403), .http(400), .redirectRefused, .tls,
    .sizeMismatch, .checksumMismatch,
  ])
  func source_ending_errors_move_to_the_next_source(code: TransferError.Code) {
    #expect(
      policy.verdict(for: code, attemptOfSource: 1, retryAfter: nil, jitter: 0) == .nextSource)
  }

  @Test(arguments: [
    TransferError.Code.diskFull, .io, .pathRefused, .cancelled, .auth,
  ])
  func local_errors_give_the_entry_up(code: TransferError.Code) {
    #expect(policy.verdict(for: code, attemptOfSource: 1, retryAfter: nil, jitter: 0) == .giveUp)
  }

  @Test func retry_after_is_honoured_and_capped() {
    #expect(policy.delay(afterAttempt: 1, retryAfter: 7, jitter: 0.5) == 7)
    #expect(policy.delay(afterAttempt: 1, retryAfter: 100_000, jitter: 0.5) == 600)
    #expect(policy.delay(afterAttempt: 1, retryAfter: -3, jitter: 0.5) == 0)
  }

  @Test func backoff_doubles_up_to_the_cap() {
    #expect(policy.delay(afterAttempt: 3, retryAfter: nil, jitter: 1) == 4)
    #expect(policy.delay(afterAttempt: 30, retryAfter: nil, jitter: 1) == 60)
    #expect(policy.delay(afterAttempt: 30, retryAfter: nil, jitter: 0) == 30)
  }

  @Test func retry_after_values_parse() {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(RetryPolicy.retryAfter("120", now: now) == 120)
    #expect(RetryPolicy.retryAfter(" 0 ", now: now) == 0)
    let date = "Tue, 14 Nov 2023 22:13:27 GMT"  // now + 7 s
    #expect(RetryPolicy.retryAfter(date, now: now) == 7)
    #expect(RetryPolicy.retryAfter("Mon, 01 Jan 2001 00:00:00 GMT", now: now) == 0)
    #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
    #expect(RetryPolicy.retryAfter("-5", now: now) == nil)
    #expect(RetryPolicy.retryAfter(nil, now: now) == nil)
  }
}
