import Foundation
import HaulTestSupport
import Testing

/// `--s3` usage errors: exit status 2, nothing transferred, a message naming the problem.
@Suite("S3 options: usage errors")
struct S3UsageTests {
  func run(_ arguments: [String], environment: [String: String] = [:]) async throws
    -> HaulResult
  {
    let directory = try TemporaryDirectory(prefix: "haul-s3-usage")
    defer { directory.remove() }
    let manifest = try writeManifest(["s3://bucket/key.bin"], in: directory)
    return try await HaulBinary.run(
      ["run", manifest, "-q"] + arguments, in: directory,
      environment: [
        "HOME": directory.path, "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "",
        "AWS_PROFILE": "", "AWS_CONFIG_FILE": "", "AWS_SHARED_CREDENTIALS_FILE": "",
      ].merging(environment) { $1 })
  }

  @Test func s3_urls_without_s3_are_a_manifest_error() async throws {
    let result = try await run([])
    #expect(result.status == 2)
    #expect(result.stderr.contains(":1: URL is an s3:// URL, which needs --s3"))
  }

  @Test(arguments: [
    (["--s3-region", "eu-west-1"], "--s3-region needs --s3"),
    (["--s3", "--s3-addressing", "dns"], "--s3-addressing must be path or virtual"),
    (["--s3", "--s3-endpoint", "ftp://h"], "--s3-endpoint 'ftp://h' is not an http(s) URL"),
    (["--s3", "--auth-command", "echo t"], "--s3 and --auth-command cannot be combined"),
    (["--part-concurrency", "2"], "--part-concurrency needs --s3"),
    (["--s3", "--part-concurrency", "0"], "--part-concurrency must be 1 to 64, not '0'"),
    (["--s3"], "--s3: no AWS credentials"),
  ])
  func bad_s3_options_are_usage_errors(arguments: [String], message: String) async throws {
    let result = try await run(arguments)
    #expect(result.status == 2)
    #expect(result.stderr.contains(message), "\(result.stderr)")
  }

  @Test func half_a_key_is_a_usage_error_that_prints_no_secret() async throws {
    let result = try await run(["--s3"], environment: ["AWS_SECRET_ACCESS_KEY": "hush-hush"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("must be set together"))
    #expect(!result.stderr.contains("hush-hush"))
  }
}
