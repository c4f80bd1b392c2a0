/// How one entry of a job ended: a transfer object of the `--report` document
/// (docs/manual.md, "Report"), as `DaemonClient.entries` and `Job.failures` answer it.
public struct JobEntry: Sendable, Hashable, Decodable {
  /// The entry's manifest line number.
  public var line: Int
  /// The first source's URL, without userinfo.
  public var url: String?
  /// The destination (downloads) or the file sent (uploads).
  public var path: String
  /// `download` or `upload`.
  public var op: String?
  public var status: EntryStatus
  /// With `refresh`: `unchanged` or `changed`.
  public var refresh: String?
  /// Bytes moved for it: 0 when skipped, the remainder when resumed.
  public var bytes: Int64
  /// Attempts over all sources.
  public var attempts: Int
  /// From when the entry was taken up to its end.
  public var seconds: Double?
  public var sha256: String?
  /// Every digest computed, by algorithm (`sha256`, `md5`, ...).
  public var digests: [String: String]?
  /// What the file was checked against and matched, e.g. `manifest:sha256`.
  public var verified: [String]?
  /// Failures only: why.
  public var error: Failure?

  /// A failed entry's stable code (docs/manual.md, "Error codes") and human message.
  public struct Failure: Sendable, Hashable, Decodable {
    public var code: String
    public var message: String
  }

  private enum CodingKeys: String, CodingKey {
    case line, url, path, op, status, refresh, bytes, attempts, seconds, sha256, digests
    case verified, error
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    line = try container.decode(Int.self, forKey: .line)
    url = try container.decodeIfPresent(String.self, forKey: .url)
    path = try container.decode(String.self, forKey: .path)
    op = try container.decodeIfPresent(String.self, forKey: .op)
    status = try container.decode(EntryStatus.self, forKey: .status)
    refresh = try container.decodeIfPresent(String.self, forKey: .refresh)
    bytes = try container.decodeIfPresent(Int64.self, forKey: .bytes) ?? 0
    attempts = try container.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
    seconds = try container.decodeIfPresent(Double.self, forKey: .seconds)
    sha256 = try container.decodeIfPresent(String.self, forKey: .sha256)
    digests = try container.decodeIfPresent([String: String].self, forKey: .digests)
    verified = try container.decodeIfPresent([String].self, forKey: .verified)
    error = try container.decodeIfPresent(Failure.self, forKey: .error)
  }
}
