import Foundation
import HaulTestSupport
import Testing

@testable import HaulCore
@testable import HaulS3

/// haul's SigV4 signatures, compared with botocore's `S3SigV4Auth` (the signer the AWS CLI
/// uses) over many generated requests. botocore runs in `Tests/botocore/sigv4_sign.py`;
/// `make deps` installs it. Without Python or botocore this suite fails: it never skips.
@Suite("SigV4 signatures match botocore's")
struct SigV4SignerBotocoreTests {
  /// How many requests are generated; every one must match.
  static let requestCount = 2_000
  /// The generator's seed: the same requests every run.
  static let seed: UInt64 = 0x5147_5634_6861_756C

  @Test func signature_matches_botocore_for_generated_requests() async throws {
    let directory = try TemporaryDirectory(prefix: "haul-sigv4")
    defer { directory.remove() }
    var generator = SigV4RequestGenerator(seed: Self.seed)
    let requests = (0..<Self.requestCount).map { _ in generator.next() }

    // Python's start and botocore's import block for about a second: not on Swift's threads.
    let botocore = try await onOwnThread { try BotocoreSigner.sign(requests, in: directory) }
    try #require(botocore.count == requests.count, "botocore answered every request")

    var matched = 0
    var reported = 0
    for (index, (request, expected)) in zip(requests, botocore).enumerated() {
      let (url, headers) = try haulSigned(request, index: index, in: directory)
      let ours = Dictionary(
        headers.filter { field in
          BotocoreSigner.signingHeaders.contains { field.hasName($0) }
        }.map { (SigV4CanonicalRequest.lowercased($0.name), $0.value) },
        uniquingKeysWith: { first, _ in first })
      let same = url.absoluteString == expected.url && ours == expected.headers
      if same {
        matched += 1
      } else {
        let canonical = SigV4CanonicalRequest(
          method: request.method, url: url,
          headers: headers.filter { !$0.hasName("Authorization") },
          payloadHash: headers.value(for: "X-Amz-Content-SHA256") ?? "")
        reported += 1
        guard reported <= 5 else { continue }
        Issue.record(
          """
          request \(index) differs: \(request)
          haul URL     \(url.absoluteString)
          botocore URL \(expected.url)
          haul headers     \(ours)
          botocore headers \(expected.headers)
          haul canonical:
          \(canonical.text)
          botocore canonical:
          \(expected.canonical)
          """)
      }
    }
    #expect(matched == Self.requestCount, "\(matched) of \(Self.requestCount) match botocore")
  }

  /// The comparison above means something only if the requests hold what they promise.
  @Test func generated_requests_cover_what_sigv4_encodes() {
    var generator = SigV4RequestGenerator(seed: Self.seed)
    let requests = (0..<Self.requestCount).map { _ in generator.next() }
    let keyCharacters = Set(requests.flatMap { Array($0.key) })
    for character in SigV4RequestGenerator.keyCharacters.flatMap(Array.init) {
      #expect(keyCharacters.contains(character), "a key holds \(character.debugDescription)")
    }
    #expect(Set(requests.map(\.method)) == Set(SigV4RequestGenerator.methods))
    #expect(Set(requests.map(\.scheme)) == ["http", "https"])
    #expect(Set(requests.map(\.style)) == ["path", "virtual"])
    #expect(requests.contains { $0.token != nil } && requests.contains { $0.token == nil })
    #expect(requests.contains { $0.body != nil && $0.scheme == "http" })
    #expect(requests.contains { $0.query.contains { $0[1].isEmpty } })
    #expect(
      requests.contains { request in
        Set(request.query.map { $0[0] }).count < request.query.count
      }, "a repeated query parameter")
    #expect(
      requests.contains { request in
        Set(request.headers.map { $0[0].lowercased() }).count < request.headers.count
      }, "a repeated header")
    for name in SigV4RequestGenerator.staleSigningHeaders {
      #expect(requests.contains { $0.headers.contains { $0[0] == name } }, "a stale \(name)")
    }
    #expect(requests.contains { $0.headers.contains { $0[1].contains("  ") } })
  }

  /// The URL and headers haul sends for `request`: addressed through `S3Endpoint`, signed
  /// through `S3SigningInterceptor` (the body, if any, hashed from a file).
  private func haulSigned(
    _ request: GeneratedSigV4Request, index: Int, in directory: TemporaryDirectory
  )
    throws -> (URL, [HTTPField])
  {
    let endpoint = try S3Endpoint.custom(
      "\(request.scheme)://\(request.host)",
      addressing: S3Addressing(rawValue: request.style)!
    ).get()
    let url = try endpoint.url(
      for: S3ObjectAddress(bucket: request.bucket, key: request.key),
      query: request.query.map { ($0[0], $0[1]) }
    ).get()
    var body: RequestBody?
    if let encoded = request.body {
      let bytes = Data(base64Encoded: encoded)!
      let path = directory.file("body-\(index)")
      try bytes.write(to: URL(fileURLWithPath: path))
      body = RequestBody(path: path, length: Int64(bytes.count))
    }
    var transfer = TransferRequest(
      url: url, method: request.method, headers: request.headers.map { HTTPField($0[0], $0[1]) },
      body: body)
    let interceptor = S3SigningInterceptor(
      signer: SigV4Signer(
        credentials: AWSCredentials(
          accessKeyID: request.access_key, secretAccessKey: request.secret_key,
          sessionToken: request.token),
        region: request.region),
      endpoint: endpoint, now: { Date(timeIntervalSince1970: Double(request.time)) })
    try interceptor.sign(&transfer)
    return (transfer.url, transfer.headers)
  }
}

/// One request for both signers, as `Tests/botocore/sigv4_sign.py` reads it.
struct GeneratedSigV4Request: Codable, CustomStringConvertible {
  var method: String
  var scheme: String
  var host: String
  var style: String
  var bucket: String
  var key: String
  var query: [[String]]
  var headers: [[String]]
  var body: String?
  var access_key: String
  var secret_key: String
  var token: String?
  var region: String
  var time: Int

  var description: String {
    let json = try? JSONEncoder().encode(self)
    return json.map { String(decoding: $0, as: UTF8.self) } ?? method
  }
}

/// What botocore made of one request.
struct BotocoreSignature: Decodable {
  var url: String
  var headers: [String: String]
  var canonical: String
}

/// Runs botocore's signer over a batch of requests.
enum BotocoreSigner {
  /// The headers SigV4 signing writes, compared between the two signers.
  static let signingHeaders = [
    "Authorization", "X-Amz-Date", "Date", "X-Amz-Content-SHA256", "X-Amz-Security-Token",
  ]

  /// The script beside the tests.
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("botocore/sigv4_sign.py").path

  /// botocore's answer for each of `requests`, in order. Fails, with botocore's standard
  /// error, when Python or botocore is missing or the script fails.
  static func sign(_ requests: [GeneratedSigV4Request], in directory: TemporaryDirectory) throws
    -> [BotocoreSignature]
  {
    let encoder = JSONEncoder()
    var input = Data()
    for request in requests {
      input.append(try encoder.encode(request))
      input.append(0x0A)
    }
    // Files, not pipes, for standard input and error: the script may write a lot before it
    // has read everything.
    let inputPath = directory.file("requests.jsonl")
    let errorPath = directory.file("botocore.stderr")
    try input.write(to: URL(fileURLWithPath: inputPath))
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script]
    process.standardInput = FileHandle(forReadingAtPath: inputPath)
    process.standardError = FileHandle(forWritingAtPath: errorPath)
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let status = process.waitForExit()
    let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    try #require(
      status == 0,
      "python3 \(script) failed (is botocore installed? `make deps`): \(errors)")
    let decoder = JSONDecoder()
    return try data.split(separator: 0x0A).map {
      try decoder.decode(BotocoreSignature.self, from: Data($0))
    }
  }
}
