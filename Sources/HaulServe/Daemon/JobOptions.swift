import Foundation

/// A job's options by their `haul run` names, as the API's `"options"` object gives them:
/// `{"max-rate": "10M", "retries": 3, "header": ["X-A: b"], "refresh": true}`. The engine
/// reads them as `haul run` arguments (`arguments`), so a job option means exactly what the
/// option of the same name means to `haul run`, and is checked by the same code.
public struct JobOptions: Sendable, Equatable {
  /// One option's value.
  public enum Value: Sendable, Equatable {
    /// A value (`"10M"`; a JSON number is kept as its text).
    case text(String)
    /// A flag: given (`true`) or not.
    case flag(Bool)
    /// A repeatable option's values, in order.
    case list([String])
  }

  public private(set) var values: [String: Value]

  public init(_ values: [String: Value] = [:]) {
    self.values = values
  }

  /// Reads the API's `"options"` object.
  public init(json: Any?) throws(ServiceError) {
    values = [:]
    guard let json, !(json is NSNull) else { return }
    guard let object = json as? [String: Any] else {
      throw ServiceError(.usage, "\"options\" must be an object")
    }
    for (name, value) in object {
      guard !name.isEmpty,
        name.utf8.allSatisfy({
          $0 == 0x2D || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0)
        })
      else { throw ServiceError(.usage, "option name '\(name)' is not a haul run option") }
      if let number = value as? NSNumber, String(cString: number.objCType) == "c" {
        // JSONSerialization gives `true` and `false` as NSNumbers of C type `char`.
        values[name] = .flag(number.boolValue)
      } else if let text = value as? String {
        values[name] = .text(text)
      } else if let number = value as? NSNumber {
        values[name] = .text(number.stringValue)
      } else if let list = value as? [Any] {
        var texts: [String] = []
        for item in list {
          guard let text = item as? String else {
            throw ServiceError(.usage, "option '\(name)' takes a list of strings")
          }
          texts.append(text)
        }
        values[name] = .list(texts)
      } else {
        throw ServiceError(.usage, "option '\(name)' must be a string, number, boolean or list")
      }
    }
  }

  /// The options as a JSON object, as the API answers them.
  public var jsonObject: [String: Any] {
    var object: [String: Any] = [:]
    for (name, value) in values {
      switch value {
      case .text(let text): object[name] = text
      case .flag(let on): object[name] = on
      case .list(let texts): object[name] = texts
      }
    }
    return object
  }

  /// The options as `haul run` arguments, in name order: `--name value`, a flag given as
  /// `--name`, a list as the option repeated.
  public var arguments: [String] {
    var arguments: [String] = []
    for name in values.keys.sorted() {
      switch values[name]! {
      case .text(let text): arguments += ["--\(name)", text]
      case .flag(let on): if on { arguments.append("--\(name)") }
      case .list(let texts): for text in texts { arguments += ["--\(name)", text] }
      }
    }
    return arguments
  }

  /// These options with `changes` applied over them (a flag set to false is removed).
  public func merging(_ changes: JobOptions) -> JobOptions {
    var merged = values
    for (name, value) in changes.values {
      if case .flag(false) = value { merged[name] = nil } else { merged[name] = value }
    }
    return JobOptions(merged)
  }

  /// The options as compact JSON text, for the journal.
  public var jsonText: String {
    let data = (try? JSONSerialization.data(withJSONObject: jsonObject, options: [.sortedKeys]))
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
  }

  /// Options read back from the journal's JSON text.
  public static func fromJSONText(_ text: String) -> JobOptions {
    let json = try? JSONSerialization.jsonObject(with: Data(text.utf8))
    return (try? JobOptions(json: json)) ?? JobOptions()
  }
}
