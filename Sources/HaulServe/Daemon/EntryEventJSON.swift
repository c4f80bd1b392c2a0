import HaulCore

/// The data of the entry events (`entry-started`, `entry-done`, `entry-failed`), as
/// docs/service.md gives them: two of these per file, made on the engine's threads.
///
/// Written into one buffer sized for the object, keys as literals: the same text
/// `JSONObject` writes, without its per-field work, which was most of an event's cost.
enum EntryEventJSON {
  /// `{"job":…,"line":…,"path":…}`.
  static func started(job: String, line: Int, path: String) -> String {
    var bytes = opening(job: job, line: line, path: path, extra: 1)
    bytes.append(UInt8(ascii: "}"))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `{"job":…,"line":…,"path":…,"status":…,"bytes":…}`.
  static func done(job: String, line: Int, path: String, status: String, bytes count: Int64)
    -> String
  {
    var bytes = opening(job: job, line: line, path: path, extra: 48)
    bytes.appendUTF8(",\"status\":")
    JSONObject.appendQuoted(status, to: &bytes)
    bytes.appendUTF8(",\"bytes\":")
    bytes.appendDecimal(count)
    bytes.append(UInt8(ascii: "}"))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `{"job":…,"line":…,"path":…,"code":…,"message":…}`.
  static func failed(job: String, line: Int, path: String, code: String, message: String)
    -> String
  {
    var bytes = opening(job: job, line: line, path: path, extra: 32 + message.utf8.count)
    bytes.appendUTF8(",\"code\":")
    JSONObject.appendQuoted(code, to: &bytes)
    bytes.appendUTF8(",\"message\":")
    JSONObject.appendQuoted(message, to: &bytes)
    bytes.append(UInt8(ascii: "}"))
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The fields every entry event starts with, in a buffer with room for `extra` more bytes.
  private static func opening(job: String, line: Int, path: String, extra: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(40 + job.utf8.count + path.utf8.count + extra)
    bytes.appendUTF8("{\"job\":")
    JSONObject.appendQuoted(job, to: &bytes)
    bytes.appendUTF8(",\"line\":")
    bytes.appendDecimal(line)
    bytes.appendUTF8(",\"path\":")
    JSONObject.appendQuoted(path, to: &bytes)
    return bytes
  }
}
