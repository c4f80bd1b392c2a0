import Foundation
import Testing

@testable import HaulCore
@testable import HaulS3

@Suite("S3 addressing: s3://BUCKET/KEY to the URL a transport fetches")
struct S3EndpointTests {
  func address(_ text: String) throws -> S3ObjectAddress {
    try S3ObjectAddress.parse(text).get()
  }

  @Test func aws_default_is_virtual_hosted_in_the_region() throws {
    let url = try S3Endpoint.aws(region: "eu-west-3").url(for: address("s3://my-bucket/a/b.txt"))
      .get()
    #expect(url.absoluteString == "https://my-bucket.s3.eu-west-3.amazonaws.com/a/b.txt")
  }

  @Test func a_custom_endpoint_is_path_style_and_keeps_its_port_and_base_path() throws {
    let endpoint = try S3Endpoint.custom("http://127.0.0.1:9000/s3/").get()
    #expect(endpoint.addressing == .path)
    let url = try endpoint.url(for: address("s3://bucket/key")).get()
    #expect(url.absoluteString == "http://127.0.0.1:9000/s3/bucket/key")
  }

  @Test func addressing_can_be_chosen_either_way() throws {
    let virtual = try S3Endpoint.custom("https://minio.example", addressing: .virtual).get()
    #expect(
      try virtual.url(for: address("s3://b-1/k")).get().absoluteString
        == "https://b-1.minio.example/k")
    let path = S3Endpoint.aws(region: "us-east-1", addressing: .path)
    #expect(
      try path.url(for: address("s3://b-1/k")).get().absoluteString
        == "https://s3.us-east-1.amazonaws.com/b-1/k")
  }

  @Test(arguments: ["Upper", "under_score", "dotted.name", "ab", "192.168.1.1", "-lead"])
  func a_bucket_that_cannot_be_a_host_label_falls_back_to_path_style(bucket: String) throws {
    let url = try S3Endpoint.aws(region: "us-east-1").url(for: address("s3://\(bucket)/k")).get()
    #expect(url.host() == "s3.us-east-1.amazonaws.com")
    #expect(url.path(percentEncoded: true) == "/\(bucket)/k")
  }

  @Test func a_dotted_bucket_is_virtual_hosted_over_plain_http() throws {
    let endpoint = try S3Endpoint.custom("http://store.example", addressing: .virtual).get()
    #expect(
      try endpoint.url(for: address("s3://my.bucket/k")).get().absoluteString
        == "http://my.bucket.store.example/k")
  }

  @Test func every_reserved_character_of_a_key_is_percent_encoded() throws {
    let reserved = " !\"#$%&'()*+,:;<=>?@[\\]^`{|}"
    let url = try S3Endpoint.aws(region: "us-east-1")
      .url(for: address("s3://b-1/dir/\(reserved)-_.~é日/end")).get()
    #expect(
      url.path(percentEncoded: true)
        == "/dir/%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%3A%3B%3C%3D%3E%3F%40%5B%5C%5D%5E%60%7B%7C%7D"
        + "-_.~%C3%A9%E6%97%A5/end")
    #expect(url.query == nil, "a ? in the key is not a query")
  }

  @Test func query_parameters_are_encoded_in_order() throws {
    let url = try S3Endpoint.aws(region: "us-east-1")
      .url(
        for: address("s3://b-1/k"), query: [("uploadId", "a/b+c"), ("partNumber", "2"), ("x", "")]
      )
      .get()
    #expect(url.query(percentEncoded: true) == "uploadId=a%2Fb%2Bc&partNumber=2&x=")
  }

  @Test(arguments: ["s3://b/./k", "s3://b/a/../k", "s3://b/a/.."])
  func a_key_with_dot_segments_is_refused(text: String) throws {
    #expect(throws: S3AddressError.self) {
      try S3Endpoint.aws(region: "us-east-1").url(for: address(text)).get()
    }
  }

  @Test func parse_takes_the_key_literally_and_names_prefixes() throws {
    let object = try address("S3://bucket/a%20b?c#d")
    #expect(object == S3ObjectAddress(bucket: "bucket", key: "a%20b?c#d"))
    #expect(!object.isPrefix)
    #expect(try address("s3://bucket/dir/").isPrefix)
    #expect(try address("s3://bucket").isPrefix)
  }

  @Test(arguments: ["https://b/k", "s3:///k", "s3://b?x/k", "s3://user@b/k", "s3://b/k\u{7}"])
  func parse_refuses_what_is_not_a_bucket_and_key(text: String) {
    #expect(throws: S3AddressError.self) { try S3ObjectAddress.parse(text).get() }
  }

  @Test(arguments: ["ftp://h", "https://", "https://u:p@h", "https://h/?q=1", "not a url"])
  func a_custom_endpoint_must_be_a_plain_http_url(text: String) {
    #expect(throws: S3AddressError.self) { try S3Endpoint.custom(text).get() }
  }

  @Test(arguments: ["s3://bucket/a b/ü%#?.txt", "s3://bucket/", "s3://Up_Case/k"])
  func an_objects_url_gives_back_its_bucket_and_key(text: String) throws {
    let object = try address(text)
    for endpoint in [
      S3Endpoint.aws(region: "us-east-1"), try S3Endpoint.custom("http://127.0.0.1:9/base").get(),
    ] {
      let url = try endpoint.url(for: object).get()
      #expect(endpoint.address(of: url) == object, "\(url)")
    }
    #expect(S3Endpoint.aws(region: "us-east-1").address(of: URL(string: "https://h/b/k")!) == nil)
  }

  @Test func the_endpoint_serves_its_own_origin_and_with_virtual_hosts_its_subdomains() throws {
    let virtual = S3Endpoint.aws(region: "us-east-1")
    #expect(virtual.serves(URL(string: "https://s3.us-east-1.amazonaws.com/b/k")!))
    #expect(virtual.serves(URL(string: "https://b.s3.us-east-1.amazonaws.com/k")!))
    #expect(!virtual.serves(URL(string: "http://b.s3.us-east-1.amazonaws.com/k")!))
    #expect(!virtual.serves(URL(string: "https://b.s3.us-east-1.amazonaws.com:8443/k")!))
    #expect(!virtual.serves(URL(string: "https://evil.example/s3.us-east-1.amazonaws.com")!))
    let path = try S3Endpoint.custom("http://127.0.0.1:9000").get()
    #expect(path.serves(URL(string: "http://127.0.0.1:9000/b/k")!))
    #expect(!path.serves(URL(string: "http://b.127.0.0.1:9000/k")!))
    #expect(!path.serves(URL(string: "http://127.0.0.1:9001/b/k")!))
  }
}
