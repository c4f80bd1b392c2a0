import Foundation

@testable import HaulS3

/// SplitMix64: a small, fast generator whose sequence a seed fixes, so generated test
/// cases are the same on every run and machine.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Generates S3 requests that exercise every part of SigV4: methods, keys with every
/// reserved character and non-ASCII text, query strings with repeated and empty
/// parameters, extra and repeated headers (some unsigned, some stale signing headers),
/// bodies over http, session tokens or none, ports, IPv6, regions and dates.
struct SigV4RequestGenerator {
  private var random: SeededGenerator

  init(seed: UInt64) { random = SeededGenerator(seed: seed) }

  /// Every printable ASCII character (all of RFC 3986's reserved set and the characters
  /// it forbids), and non-ASCII text of one to four UTF-8 bytes.
  static let keyCharacters: [String] =
    (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) } + [
      "é", "ß", "Ω", "ж", "日本", "語", "€", "😀", "🧪", "\u{00A0}", "\u{FEFF}", "ﬁ",
    ]
  /// Header values: printable ASCII, runs of spaces and tabs, a little non-ASCII text.
  static let valueCharacters: [String] =
    (0x21...0x7E).map { String(UnicodeScalar(UInt8($0))) } + [
      " ", " ", "  ", "\t", "é", "日本",
    ]
  static let headerNames = [
    "Content-Type", "content-type", "Cache-Control", "Content-MD5", "Content-Disposition",
    "x-amz-meta-author", "X-Amz-Meta-Note", "x-amz-storage-class", "X-Amz-Checksum-SHA256",
    "x-amz-acl", "If-Match", "If-None-Match", "X-Custom", "x-custom", "Accept",
    "User-Agent", "X-Amzn-Trace-Id", "Keep-Alive", "TE", "Proxy-Authorization", "Upgrade",
  ]
  /// Headers a signer replaces, sent stale to check they are.
  static let staleSigningHeaders = [
    "Authorization", "X-Amz-Date", "x-amz-content-sha256", "X-Amz-Security-Token", "Date",
  ]
  static let hosts = [
    (host: "s3.us-east-1.amazonaws.com", virtual: true), ("s3.eu-west-3.amazonaws.com", true),
    ("storage.example", true), ("127.0.0.1:9000", false), ("localhost:4566", false),
    ("minio.internal.example:8443", true), ("[::1]:9000", false), ("s3.example:443", false),
    ("s3.example:80", false),
  ]
  static let regions = ["us-east-1", "eu-west-3", "ap-southeast-2", "auto", "us-gov-west-1"]
  static let methods = ["GET", "GET", "HEAD", "PUT", "PUT", "POST", "DELETE"]
  static let queryNames = [
    "uploads", "uploadId", "partNumber", "list-type", "prefix", "continuation-token",
    "max-keys", "versionId", "delimiter", "start-after", "x-id", "a b", "ключ", "k=v", "&",
  ]

  mutating func next() -> GeneratedSigV4Request {
    let method = pick(Self.methods)
    let scheme = chance(0.5) ? "https" : "http"
    let (host, virtualOK) = pick(Self.hosts)
    let virtual = virtualOK && chance(0.6)
    let bucket = virtual ? dnsBucket(overTLS: scheme == "https") : pathBucket()
    var request = GeneratedSigV4Request(
      method: method, scheme: scheme, host: host, style: virtual ? "virtual" : "path",
      bucket: bucket, key: key(), query: query(), headers: headers(), body: nil,
      access_key: text(from: Self.alphanumeric, length: 16...24),
      secret_key: text(from: Self.alphanumeric + ["/", "+"], length: 1...48),
      token: chance(0.4) ? text(from: Self.alphanumeric + ["/", "+", "="], length: 20...400) : nil,
      region: pick(Self.regions),
      time: Int.random(in: 946_684_800...2_051_222_400, using: &random))
    if method == "PUT" || method == "POST" {
      let length = chance(0.1) ? 0 : Int.random(in: 1...4096, using: &random)
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      request.body = Data(bytes).base64EncodedString()
    }
    return request
  }

  static let alphanumeric =
    (0x30...0x39).map { String(UnicodeScalar(UInt8($0))) }
    + (0x41...0x5A).map { String(UnicodeScalar(UInt8($0))) }
    + (0x61...0x7A).map { String(UnicodeScalar(UInt8($0))) }

  /// A key of segments made of any printable or non-ASCII characters; never a `.` or `..`
  /// segment (haul refuses those, HTTP clients would rewrite them).
  private mutating func key() -> String {
    let raw = (0..<Int.random(in: 1...4, using: &random)).map { _ in
      text(from: Self.keyCharacters, length: 0...12)
    }
    var key = raw.joined(separator: "/").split(separator: "/", omittingEmptySubsequences: false)
      .map { $0 == "." || $0 == ".." ? $0 + "x" : $0 }.joined(separator: "/")
    if key.isEmpty || key.hasSuffix("/") { key += "k" }
    return key
  }

  private mutating func query() -> [[String]] {
    guard chance(0.6) else { return [] }
    var pairs: [[String]] = []
    for _ in 0..<Int.random(in: 1...5, using: &random) {
      let name = chance(0.7) ? pick(Self.queryNames) : text(from: Self.keyCharacters, length: 1...8)
      let value = chance(0.3) ? "" : text(from: Self.keyCharacters, length: 1...16)
      pairs.append([name, value])
      if chance(0.2) {
        pairs.append([name, chance(0.5) ? "" : text(from: Self.keyCharacters, length: 1...4)])
      }
    }
    return pairs
  }

  private mutating func headers() -> [[String]] {
    var fields: [[String]] = []
    for _ in 0..<Int.random(in: 0...5, using: &random) {
      fields.append([pick(Self.headerNames), headerValue()])
    }
    if chance(0.25) { fields.append([pick(Self.staleSigningHeaders), headerValue()]) }
    return fields
  }

  /// A value that is not empty once trimmed (HTTP sends no empty header through curl).
  private mutating func headerValue() -> String {
    var value = text(from: Self.valueCharacters, length: 1...24)
    if value.allSatisfy({ $0 == " " || $0 == "\t" }) { value += "v" }
    return value
  }

  private mutating func dnsBucket(overTLS: Bool) -> String {
    let letters = (0x61...0x7A).map { String(UnicodeScalar(UInt8($0))) }
    let digits = (0x30...0x39).map { String(UnicodeScalar(UInt8($0))) }
    let inner = letters + digits + ["-"] + (overTLS ? [] : ["."])
    var middle = text(from: inner, length: 1...20)
    while middle.contains("..") { middle = middle.replacingOccurrences(of: "..", with: ".") }
    return pick(letters) + middle + pick(digits)
  }

  private mutating func pathBucket() -> String {
    text(from: Self.alphanumeric + ["-", ".", "_"], length: 3...30)
  }

  private mutating func text(from alphabet: [String], length: ClosedRange<Int>) -> String {
    (0..<Int.random(in: length, using: &random)).map { _ in pick(alphabet) }.joined()
  }

  private mutating func pick<T>(_ choices: [T]) -> T {
    choices[Int.random(in: 0..<choices.count, using: &random)]
  }

  private mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &random) < probability
  }
}
