import Foundation

/// A job of the daemon: a manifest, an output directory and options, and how far it got
/// (docs/service.md, "Jobs").
///
/// Every call that answers a job answers this; `DaemonClient.job(_:)` adds `failures`.
/// Fields the daemon adds later are ignored, and so is an option whose value is not one of
/// `JobOption`'s shapes, so a newer daemon does not break an older client.
public struct Job: Sendable, Hashable, Identifiable, Decodable {
  /// 16 hex digits.
  public var id: String
  public var state: JobState
  /// Its place in the queue, 0 first.
  public var position: Int
  /// The output directory, inside one of the daemon's roots.
  public var output: String
  /// The manifest's name, when the job came from one.
  public var name: String?
  /// Entries in all, and how many ended each way so far.
  public var total: Int
  public var succeeded: Int
  public var skipped: Int
  public var failed: Int
  /// Bytes moved so far.
  public var bytes: Int64
  /// The bytes the whole job moves, when every entry's size is known.
  public var expectedBytes: Int64?
  /// Bytes per second now (0 when not active).
  public var rate: Double
  /// Seconds until the job ends at this rate, when the daemon can tell.
  public var eta: Double?
  public var created: Date
  public var started: Date?
  public var ended: Date?
  public var options: [String: JobOption]
  /// The job's first 100 failed entries: only in `DaemonClient.job(_:)`'s answer, `nil`
  /// elsewhere.
  public var failures: [JobEntry]?

  private enum CodingKeys: String, CodingKey {
    case id, state, position, output, name, total, succeeded, skipped, failed, bytes
    case expectedBytes = "expected_bytes"
    case rate, eta, created, started, ended, options, failures
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(String.self, forKey: .id)
    state = try container.decode(JobState.self, forKey: .state)
    position = try container.decode(Int.self, forKey: .position)
    output = try container.decode(String.self, forKey: .output)
    name = try container.decodeIfPresent(String.self, forKey: .name)
    total = try container.decode(Int.self, forKey: .total)
    succeeded = try container.decode(Int.self, forKey: .succeeded)
    skipped = try container.decode(Int.self, forKey: .skipped)
    failed = try container.decode(Int.self, forKey: .failed)
    bytes = try container.decode(Int64.self, forKey: .bytes)
    expectedBytes = try container.decodeIfPresent(Int64.self, forKey: .expectedBytes)
    rate = try container.decodeIfPresent(Double.self, forKey: .rate) ?? 0
    eta = try container.decodeIfPresent(Double.self, forKey: .eta)
    created = try Self.time(container.decode(String.self, forKey: .created), .created, container)
    started = try container.decodeIfPresent(String.self, forKey: .started).map {
      try Self.time($0, .started, container)
    }
    ended = try container.decodeIfPresent(String.self, forKey: .ended).map {
      try Self.time($0, .ended, container)
    }
    options = try Self.options(container)
    failures = try container.decodeIfPresent([JobEntry].self, forKey: .failures)
  }

  /// The time `text` of the field `key` says.
  private static func time(
    _ text: String, _ key: CodingKeys, _ container: KeyedDecodingContainer<CodingKeys>
  ) throws -> Date {
    guard let date = DaemonJSON.date(text) else {
      throw DecodingError.dataCorruptedError(
        forKey: key, in: container, debugDescription: "not an RFC 3339 time: \(text)")
    }
    return date
  }

  /// The options, leaving out any whose value `JobOption` cannot hold.
  private static func options(
    _ container: KeyedDecodingContainer<CodingKeys>
  ) throws -> [String: JobOption] {
    guard container.contains(.options), try !container.decodeNil(forKey: .options) else {
      return [:]
    }
    let values = try container.nestedContainer(keyedBy: OptionKey.self, forKey: .options)
    var options: [String: JobOption] = [:]
    for key in values.allKeys {
      if let value = try? values.decode(JobOption.self, forKey: key) {
        options[key.stringValue] = value
      }
    }
    return options
  }

  /// Any key of the options object.
  private struct OptionKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }
}
