import Foundation

/// The JSON conventions of the daemon's API in one place: how bodies are encoded, how answers
/// are decoded, and how a decoding failure is told.
enum DaemonJSON {
  /// Encodes a request body. Keys are written sorted, so a body is the same bytes each time.
  static func encode<Body: Encodable>(_ body: Body) throws(DaemonError) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
      return try encoder.encode(body)
    } catch {
      throw .transport("cannot encode the request body: \(error)")
    }
  }

  /// Decodes an answer; `what` names it in the error (`"the job"`).
  static func decode<Value: Decodable>(
    _ type: Value.Type, from data: Data, what: String
  ) throws(DaemonError) -> Value {
    do {
      return try JSONDecoder().decode(type, from: data)
    } catch let error as DecodingError {
      throw .decoding("\(what): \(describe(error))")
    } catch {
      throw .decoding("\(what): \(error)")
    }
  }

  /// A time the daemon wrote (RFC 3339 in UTC, `2026-12-07T16:00:00Z`, fractions of a second
  /// allowed), or `nil` when it is not one.
  static func date(_ text: String) -> Date? {
    if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
    return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
  }

  /// One line naming the field and the fault, e.g. `state: the key is missing`.
  static func describe(_ error: DecodingError) -> String {
    func path(_ context: DecodingError.Context) -> String {
      let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
      return keys.isEmpty ? "the document" : keys.joined(separator: ".")
    }
    switch error {
    case .keyNotFound(let key, let context):
      let place = context.codingPath.isEmpty ? "" : " in \(path(context))"
      return "\(key.stringValue)\(place): the key is missing"
    case .valueNotFound(let type, let context):
      return "\(path(context)): null where a \(type) belongs"
    case .typeMismatch(let type, let context):
      return "\(path(context)): not a \(type)"
    case .dataCorrupted(let context):
      return "\(path(context)): \(context.debugDescription)"
    @unknown default:
      return "\(error)"
    }
  }
}
