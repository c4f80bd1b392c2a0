import Testing

@testable import HaulCore
@testable import HaulS3

/// The part size of a multipart upload, and the XML its completion sends.
@Suite struct S3MultipartOptionsTests {
  let endpoint = try! S3Endpoint.custom("http://127.0.0.1:9000").get()

  @Test func the_part_size_grows_so_no_upload_needs_more_than_10000_parts() {
    let options = S3MultipartOptions(endpoint: endpoint)
    #expect(options.partSize(for: 100 << 20) == 16 << 20)
    #expect(options.partSize(for: 10_000 * (16 << 20)) == 16 << 20)
    let huge: Int64 = 10_000 * (16 << 20) + 1
    let grown = options.partSize(for: huge)
    #expect(grown == 17 << 20, "grown in whole MiB")
    #expect((huge + grown - 1) / grown <= 10_000)
  }

  @Test func parts_cover_the_file_and_the_last_is_short() {
    let size: Int64 = 3 * 5 + 2
    #expect(
      (1...4).map { S3MultipartUpload.length(ofPart: $0, size: size, partSize: 5) } == [5, 5, 5, 2])
    #expect(S3MultipartUpload.length(ofPart: 5, size: size, partSize: 5) == 0)
  }

  @Test func etags_are_escaped_in_the_completion() {
    #expect(S3XML.escape("\"a&b<c>'\"") == "&quot;a&amp;b&lt;c&gt;&apos;&quot;")
    let escaped = Array(S3XML.escape("\"e&1\"").utf8)
    #expect(
      S3XML.element("ETag", in: (Array("<ETag>".utf8) + escaped + Array("</ETag>".utf8))[...])
        == "\"e&1\"")
  }
}
