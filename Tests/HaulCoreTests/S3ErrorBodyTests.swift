import HaulCore
import Testing

/// Reading S3's error code out of the start of a 400's body.
@Suite struct S3ErrorBodyTests {
  func body(_ text: String) -> S3ErrorBody {
    var body = S3ErrorBody()
    Array(text.utf8).withUnsafeBytes { body.append($0) }
    return body
  }

  @Test func request_timeout_is_retryable_and_other_codes_are_not() {
    let timeout = body(
      "<?xml version=\"1.0\"?><Error><Code>RequestTimeout</Code><Message>m</Message></Error>")
    #expect(timeout.code == "RequestTimeout")
    #expect(timeout.isRetryable)
    #expect(body("<Error><Code>InvalidArgument</Code></Error>").isRetryable == false)
    #expect(body("<Error><Code>InvalidArgument</Code></Error>").code == "InvalidArgument")
  }

  @Test func bodies_without_a_plain_code_name_none() {
    #expect(body("status 400\n").code == nil)
    #expect(body("<Code></Code>").code == nil)
    #expect(body("<Code>Request Timeout</Code>").code == nil)
    #expect(body("<Code>RequestTimeout").code == nil)
  }

  @Test func only_the_first_bytes_are_kept() {
    let long = body(String(repeating: " ", count: 5000) + "<Code>RequestTimeout</Code>")
    #expect(long.bytes.count == S3ErrorBody.limit)
    #expect(long.code == nil)
  }
}
