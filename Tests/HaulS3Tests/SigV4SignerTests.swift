import Foundation
import Testing

@testable import HaulCore
@testable import HaulS3

@Suite("SigV4 signing: AWS's published examples and the rules around them")
struct SigV4SignerTests {
  /// The key and moment of the examples in the S3 API reference ("Signature Calculations
  /// for the Authorization Header").
  let signer = SigV4Signer(
    credentials: AWSCredentials(
      accessKeyID: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    region: "us-east-1")
  let may24 = Date(timeIntervalSince1970: 1_369_353_600)

  @Test func get_object_example_gives_the_published_signature() {
    let headers = signer.sign(
      method: "GET", url: URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!,
      headers: [HTTPField("Range", "bytes=0-9")], payloadHash: SigV4Signer.emptyPayloadHash,
      date: may24)
    #expect(headers.value(for: "X-Amz-Date") == "20130524T000000Z")
    #expect(headers.value(for: "X-Amz-Content-SHA256") == SigV4Signer.emptyPayloadHash)
    #expect(
      headers.value(for: "Authorization")
        == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
  }

  @Test func list_objects_example_gives_the_published_signature() {
    let headers = signer.sign(
      method: "GET",
      url: URL(string: "https://examplebucket.s3.amazonaws.com/?prefix=J&max-keys=2")!,
      headers: [], payloadHash: SigV4Signer.emptyPayloadHash, date: may24)
    #expect(
      headers.value(for: "Authorization")?.hasSuffix(
        "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
  }

  @Test func signing_again_replaces_the_earlier_signing_headers() {
    let url = URL(string: "https://b.s3.amazonaws.com/k")!
    let first = signer.sign(
      method: "GET", url: url, headers: [HTTPField("x-custom", "1")],
      payloadHash: SigV4Signer.unsignedPayload, date: may24)
    let again = signer.sign(
      method: "GET", url: url, headers: first, payloadHash: SigV4Signer.unsignedPayload,
      date: may24.addingTimeInterval(86_400))
    for name in ["Authorization", "X-Amz-Date", "X-Amz-Content-SHA256"] {
      #expect(again.filter { $0.hasName(name) }.count == 1, "\(name) once")
    }
    #expect(again.value(for: "X-Amz-Date") == "20130525T000000Z")
    #expect(again.value(for: "Authorization")?.contains("/20130525/us-east-1/s3/") == true)
  }

  @Test func a_session_token_is_sent_and_signed() {
    var temporary = signer
    temporary.credentials.sessionToken = "token/with+chars="
    let headers = temporary.sign(
      method: "PUT", url: URL(string: "https://b.s3.amazonaws.com/k")!, headers: [],
      payloadHash: SigV4Signer.unsignedPayload, date: may24)
    #expect(headers.value(for: "X-Amz-Security-Token") == "token/with+chars=")
    #expect(
      headers.value(for: "Authorization")?.contains(
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,") == true)
  }

  @Test func a_date_header_is_rewritten_and_signed_instead_of_x_amz_date() {
    let headers = signer.sign(
      method: "GET", url: URL(string: "https://b.s3.amazonaws.com/k")!,
      headers: [HTTPField("Date", "yesterday"), HTTPField("X-Amz-Date", "old")],
      payloadHash: SigV4Signer.unsignedPayload, date: may24)
    #expect(headers.value(for: "Date") == "Fri, 24 May 2013 00:00:00 -0000")
    #expect(headers.value(for: "X-Amz-Date") == nil)
    #expect(headers.value(for: "Authorization")?.contains("SignedHeaders=date;host;") == true)
  }

  @Test func canonical_request_sorts_query_and_folds_headers() {
    let canonical = SigV4CanonicalRequest(
      method: "get", url: URL(string: "http://127.0.0.1:9000/b/a%20b?z=1&a=%2f&a=&uploads")!,
      headers: [
        HTTPField("X-Multi", "  two   words "), HTTPField("x-multi", "again"),
        HTTPField("User-Agent", "unsigned"), HTTPField("Expect", "100-continue"),
      ], payloadHash: "UNSIGNED-PAYLOAD")
    #expect(
      canonical.text
        == "GET\n/b/a%20b\na=&a=%2F&uploads=&z=1\nhost:127.0.0.1:9000\nx-multi:two words,again\n\n"
        + "host;x-multi\nUNSIGNED-PAYLOAD")
  }

  @Test func host_leaves_out_the_default_port_and_brackets_ipv6() {
    #expect(SigV4CanonicalRequest.host(of: URL(string: "https://H.example:443/x")!) == "h.example")
    #expect(SigV4CanonicalRequest.host(of: URL(string: "http://h:80/")!) == "h")
    #expect(SigV4CanonicalRequest.host(of: URL(string: "https://h:80/")!) == "h:80")
    #expect(SigV4CanonicalRequest.host(of: URL(string: "http://[::1]:9000/")!) == "[::1]:9000")
  }

  @Test func credentials_print_without_their_secrets() {
    let credentials = AWSCredentials(
      accessKeyID: "AKIDEXAMPLE", secretAccessKey: "very-secret", sessionToken: "session-secret")
    for text in ["\(credentials)", String(reflecting: credentials)] {
      #expect(text.contains("AKIDEXAMPLE"))
      #expect(!text.contains("very-secret"))
      #expect(!text.contains("session-secret"))
    }
  }
}
