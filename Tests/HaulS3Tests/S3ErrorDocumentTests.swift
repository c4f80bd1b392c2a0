import HaulCore
import HaulS3
import Testing

/// Reading S3's error code out of the start of a 400's body.
@Suite struct S3ErrorDocumentTests {
  func body(_ text: String) -> ErrorBody {
    var body = ErrorBody.capturing(status: 400, for: S3ErrorDocument())!
    Array(text.utf8).withUnsafeBytes { body.append($0) }
    return body
  }

  @Test func request_timeout_is_retryable_and_other_codes_are_not() {
    let timeout = body(
      "<?xml version=\"1.0\"?><Error><Code>RequestTimeout</Code><Message>m</Message></Error>")
    #expect(timeout.reason == ErrorBodyReason(code: "RequestTimeout", retryable: true))
    #expect(
      body("<Error><Code>InvalidArgument</Code></Error>").reason
        == ErrorBodyReason(code: "InvalidArgument", retryable: false))
  }

  @Test func only_a_400_is_captured() {
    #expect(ErrorBody.capturing(status: 400, for: S3ErrorDocument()) != nil)
    #expect(ErrorBody.capturing(status: 404, for: S3ErrorDocument()) == nil)
    #expect(ErrorBody.capturing(status: 400, for: nil) == nil)
  }

  @Test func bodies_without_a_plain_code_name_none() {
    #expect(body("status 400\n").reason == nil)
    #expect(body("<Code></Code>").reason == nil)
    #expect(body("<Code>Request Timeout</Code>").reason == nil)
    #expect(body("<Code>RequestTimeout").reason == nil)
  }

  @Test func only_the_first_bytes_are_kept() {
    let long = body(String(repeating: " ", count: 5000) + "<Code>RequestTimeout</Code>")
    #expect(long.bytes.count == ErrorBody.limit)
    #expect(long.reason == nil)
  }
}
