import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore
@testable import HaulS3

@Suite("S3 signing interceptor: what is signed, and where the signature may go")
final class S3SigningInterceptorTests {
  let directory: TemporaryDirectory
  let secret = "SECRET-wJalrXUtnFEMI-K7MDENG"
  let token = "TOKEN-FwoGZXIvYXdzEJr"

  init() throws { directory = try TemporaryDirectory(prefix: "haul-s3-interceptor") }
  deinit { directory.remove() }

  func interceptor(_ endpoint: S3Endpoint) -> S3SigningInterceptor {
    S3SigningInterceptor(
      signer: SigV4Signer(
        credentials: AWSCredentials(
          accessKeyID: "AKIDEXAMPLE", secretAccessKey: secret, sessionToken: token),
        region: "us-east-1"),
      endpoint: endpoint)
  }

  func entry(_ url: String, upload: Bool = false) -> ManifestEntry {
    ManifestEntry(
      line: 1, text: "{}", operation: upload ? .upload : .download, url: URL(string: url)!,
      path: "f")
  }

  /// Whether `text` holds the secret, the token, or the signature of any of `headers`.
  func leaks(_ text: String, signatures: [String]) -> Bool {
    text.contains(secret) || text.contains(token) || signatures.contains { text.contains($0) }
  }

  @Test func requests_to_the_endpoint_are_signed_and_others_are_not() async throws {
    let signing = interceptor(S3Endpoint.aws(region: "us-east-1"))
    var s3 = TransferRequest(url: URL(string: "https://b.s3.us-east-1.amazonaws.com/k")!)
    try await signing.adapt(&s3, for: entry(s3.url.absoluteString))
    #expect(s3.headers.value(for: "Authorization")?.hasPrefix("AWS4-HMAC-SHA256 ") == true)
    #expect(s3.headers.value(for: "X-Amz-Security-Token") == token)
    #expect(s3.headers.value(for: "X-Amz-Content-SHA256") == SigV4Signer.unsignedPayload)

    var other = TransferRequest(
      url: URL(string: "https://mirror.example/k")!, headers: [HTTPField("X-Own", "1")])
    try await signing.adapt(&other, for: entry(other.url.absoluteString))
    #expect(other.headers == [HTTPField("X-Own", "1")])
  }

  @Test func an_upload_over_http_is_signed_with_its_file_hash() async throws {
    let path = directory.file("body")
    let bytes = Array((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let signing = interceptor(try S3Endpoint.custom("http://127.0.0.1:9000").get())
    var request = TransferRequest(
      url: URL(string: "http://127.0.0.1:9000/b/k")!, method: "PUT",
      body: RequestBody(path: path, length: Int64(bytes.count)))
    try await signing.adapt(&request, for: entry(request.url.absoluteString, upload: true))
    #expect(request.headers.value(for: "X-Amz-Content-SHA256") == SHA256.hex(of: bytes))

    var download = TransferRequest(url: URL(string: "http://127.0.0.1:9000/b/k")!)
    try await signing.adapt(&download, for: entry(download.url.absoluteString))
    #expect(download.headers.value(for: "X-Amz-Content-SHA256") == SigV4Signer.emptyPayloadHash)
  }

  @Test func a_range_body_over_http_is_signed_with_the_hash_of_its_range() async throws {
    let path = directory.file("whole")
    let bytes = Array((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let signing = interceptor(try S3Endpoint.custom("http://127.0.0.1:9000").get())
    var part = TransferRequest(
      url: URL(string: "http://127.0.0.1:9000/b/k?partNumber=2&uploadId=u")!, method: "PUT",
      body: RequestBody(path: path, offset: 1_048_577, length: 1_500_000))
    try await signing.adapt(&part, for: entry("http://127.0.0.1:9000/b/k", upload: true))
    #expect(
      part.headers.value(for: "X-Amz-Content-SHA256")
        == SHA256.hex(of: Array(bytes[1_048_577..<2_548_577])))
  }

  @Test func a_body_in_memory_over_http_is_signed_with_the_hash_of_its_bytes() async throws {
    let xml = Array("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part>".utf8)
    let signing = interceptor(try S3Endpoint.custom("http://127.0.0.1:9000").get())
    var complete = TransferRequest(
      url: URL(string: "http://127.0.0.1:9000/b/k?uploadId=u")!, method: "POST",
      body: RequestBody(bytes: xml))
    try await signing.adapt(&complete, for: entry("http://127.0.0.1:9000/b/k", upload: true))
    #expect(complete.headers.value(for: "X-Amz-Content-SHA256") == SHA256.hex(of: xml))
  }

  @Test func an_unreadable_http_body_fails_with_io_and_no_secret() async throws {
    let signing = interceptor(try S3Endpoint.custom("http://127.0.0.1:9000").get())
    var request = TransferRequest(
      url: URL(string: "http://127.0.0.1:9000/b/k")!, method: "PUT",
      body: RequestBody(path: directory.file("missing"), length: 10))
    do {
      try await signing.adapt(&request, for: entry(request.url.absoluteString, upload: true))
      Issue.record("signing a missing body succeeded")
    } catch {
      #expect(error.code == .io)
      #expect(!leaks(error.message, signatures: []))
    }
  }

  @Test func a_401_is_not_sent_again() async throws {
    let signing = interceptor(S3Endpoint.aws(region: "us-east-1"))
    let request = TransferRequest(url: URL(string: "https://b.s3.us-east-1.amazonaws.com/k")!)
    #expect(
      try await signing.retry(after: request, for: entry(request.url.absoluteString)) == false)
  }

  @Test func the_signature_does_not_follow_a_redirect_to_another_origin() async throws {
    let url = "https://b.s3.us-east-1.amazonaws.com/k"
    let transport = ScriptedTransport { request, _ in
      request.url.host() == "b.s3.us-east-1.amazonaws.com"
        ? .init(status: 307, headers: [HTTPField("Location", "https://elsewhere.example/k")])
        : .init(status: 200, body: Array("moved".utf8))
    }
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(
        outputDirectory: directory.path, retries: 0,
        interceptor: interceptor(S3Endpoint.aws(region: "us-east-1"))))
    var outcome: EntryOutcome?
    for await event in scheduler.run([entry(url)]) {
      if case .finished(let value) = event { outcome = value }
    }
    #expect(outcome?.status == .ok)
    let requests = transport.requests
    try #require(requests.count == 2)
    #expect(requests[0].headers.value(for: "Authorization") != nil)
    #expect(requests[0].headers.value(for: "X-Amz-Security-Token") == token)
    #expect(requests[1].url.host() == "elsewhere.example")
    #expect(
      !requests[1].headers.contains { $0.name.lowercased().hasPrefix("x-amz-") },
      "no signing header crosses to another origin")
    #expect(requests[1].headers.value(for: "Authorization") == nil)
  }

  @Test func a_refused_signature_leaves_no_secret_in_events_or_report() async throws {
    let transport = ScriptedTransport { _, _ in
      .init(status: 403, body: Array("<Error><Code>SignatureDoesNotMatch</Code></Error>".utf8))
    }
    let scheduler = Scheduler(
      transport: transport,
      options: SchedulerOptions(
        outputDirectory: directory.path, retries: 0,
        interceptor: interceptor(S3Endpoint.aws(region: "us-east-1"))))
    var lines: [String] = []
    var eventLines = EventLines(progressInterval: 0)
    var outcome: EntryOutcome?
    for await event in scheduler.run([entry("https://b.s3.us-east-1.amazonaws.com/k")]) {
      lines += eventLines.lines(for: event)
      lines.append(String(describing: event))
      if case .finished(let value) = event {
        outcome = value
        lines.append(ReportJSON.transfer(value))
      }
    }
    #expect(outcome?.error?.code == .http(403))
    let signatures = transport.requests.compactMap { request in
      request.headers.value(for: "Authorization")?.components(separatedBy: "Signature=").last
    }
    try #require(signatures.count == 1)
    for line in lines {
      #expect(!leaks(line, signatures: signatures), "\(line)")
    }
  }
}
