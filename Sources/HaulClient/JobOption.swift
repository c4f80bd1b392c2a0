/// The value of one job option, as JSON carries it: `"max-rate": "10M"`, `"jobs": 8`,
/// `"verify": true`, `"mirrors": ["a", "b"]`.
///
/// Literals make a dictionary of options read as JSON does:
/// `["max-rate": "10M", "jobs": 8]`.
public enum JobOption: Sendable, Hashable, Codable {
  case string(String)
  case int(Int)
  case bool(Bool)
  case strings([String])

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int.self) {
      self = .int(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else {
      self = .strings(try container.decode([String].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let value): try container.encode(value)
    case .int(let value): try container.encode(value)
    case .bool(let value): try container.encode(value)
    case .strings(let value): try container.encode(value)
    }
  }
}

extension JobOption: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
  ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(integerLiteral value: Int) { self = .int(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(arrayLiteral elements: String...) { self = .strings(elements) }
}
