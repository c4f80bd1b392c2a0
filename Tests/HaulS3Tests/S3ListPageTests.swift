import HaulCore
import Testing

@testable import HaulS3

/// Reading `ListObjectsV2` pages.
@Suite struct S3ListPageTests {
  func parse(_ xml: String) -> S3ListPage? { S3ListPage.parse(Array(xml.utf8)) }

  @Test func a_truncated_page_gives_its_objects_and_the_next_token() throws {
    let page = try #require(
      parse(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b&amp;c</Name>\
        <IsTruncated>true</IsTruncated><Contents><Key>d/a%20b%2B%25%3F%23.txt</Key>\
        <ETag>&quot;abc&quot;</ETag><Size>12</Size></Contents><Contents><Key>d/%C3%BC</Key>\
        <Size>0</Size></Contents><EncodingType>url</EncodingType>\
        <NextContinuationToken>tok/en=</NextContinuationToken></ListBucketResult>
        """))
    #expect(page.bucket == "b&c")
    #expect(page.objects.map(\.key) == ["d/a b+%?#.txt", "d/ü"])
    #expect(page.objects.map(\.size) == [12, 0])
    #expect(page.objects.first?.etag == "\"abc\"")
    #expect(page.nextToken == "tok/en=")
  }

  @Test func a_url_encoded_key_reads_a_plus_as_a_space_as_s3_writes_it() throws {
    // Given keys as S3 and rclone encode them: a space as `+`, a `+` as `%2B`
    let page = try #require(
      parse(
        "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>p/with+space.txt</Key>"
          + "<Size>1</Size></Contents><Contents><Key>p/a%2Bb+c.bin</Key><Size>2</Size>"
          + "</Contents><EncodingType>url</EncodingType></ListBucketResult>"))
    // Then each key is the one that was stored
    #expect(page.objects.map(\.key) == ["p/with space.txt", "p/a+b c.bin"])
  }

  @Test func the_last_page_has_no_token_and_keys_without_encoding_stay_as_written() throws {
    let page = try #require(
      parse(
        "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a%20&lt;b&#x3E;</Key>"
          + "<Size>1</Size></Contents></ListBucketResult>"))
    #expect(page.objects.map(\.key) == ["a%20<b>"])
    #expect(page.nextToken == nil)
  }

  @Test func broken_pages_are_refused() {
    #expect(parse("<Error><Code>AccessDenied</Code></Error>") == nil)
    #expect(parse("<ListBucketResult><Contents><Key>a</Key></Contents></ListBucketResult>") == nil)
    #expect(
      parse("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>") == nil,
      "a truncated page without a token would end the listing early")
  }
}
