import Foundation
import HaulCore

/// One request a resumable upload's machine asks for: its method, URL and protocol header
/// fields, and which bytes of the file go as its body.
struct ResumableRequest: Sendable, Hashable {
  var method: String
  var url: URL
  var headers: [HTTPField]
  /// The file's bytes to send, by offset; `nil` for a request without a body.
  var body: Range<Int64>?
  /// Whether the body's SHA-1 goes in `Upload-Checksum` (tus's checksum extension).
  var checksumSHA1 = false

  init(
    _ method: String, _ url: URL, headers: [HTTPField], body: Range<Int64>? = nil,
    checksumSHA1: Bool = false
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.checksumSHA1 = checksumSHA1
  }
}

/// What a resumable upload's machine says to do next.
enum ResumableStep: Sendable {
  /// Send this request and report its answer (or its failure).
  case send(ResumableRequest)
  /// The server holds the whole file: the upload is complete.
  case finished
  /// The attempt failed; the upload (if one exists) stays on the server for the next
  /// attempt, unless it is cancelled.
  case failed(AttemptFailure)
}

extension ResumableStep {
  /// The failure of an answer the protocol cannot go on from.
  static func failed(_ code: TransferError.Code, _ message: String, transient: Bool = false)
    -> ResumableStep
  {
    .failed(
      AttemptFailure(error: TransferError(code, message), answered: true, transient: transient))
  }

  /// The failure an error status means; `retried` also when its code alone would not be.
  static func failed(answer head: ResponseHead, retried: Bool = false) -> ResumableStep {
    var failure = AttemptFailure.http(head)
    failure.answered = true
    failure.transient = failure.transient || retried
    return .failed(failure)
  }
}

/// The structured field values the resumable protocols read (RFC 9651 items, and tus's
/// plain numbers).
enum ResumableFields {
  /// A non-negative integer field (`Upload-Offset`, `Upload-Length`): at most 15 digits, as
  /// RFC 9651 allows; `nil` for anything else.
  static func integer(_ value: String?) -> Int64? {
    guard let text = value?.trimmingASCIIWhitespace(), !text.isEmpty, text.utf8.count <= 15,
      text.utf8.allSatisfy({ (0x30...0x39).contains($0) })
    else { return nil }
    return Int64(text)
  }

  /// A structured boolean (`?1`, `?0`); `nil` for anything else.
  static func boolean(_ value: String?) -> Bool? {
    switch value?.trimmingASCIIWhitespace() {
    case "?1": true
    case "?0": false
    default: nil
    }
  }

  /// The integer members of a dictionary field (`Upload-Limit: max-size=100, max-age=3600`);
  /// members of another type, and parameters, are left out.
  static func integers(_ value: String?) -> [String: Int64] {
    var result: [String: Int64] = [:]
    for member in (value ?? "").split(separator: ",") {
      let item = member.split(separator: ";", maxSplits: 1)[0]
      let parts = item.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, let number = integer(String(parts[1])) else { continue }
      result[String(parts[0]).trimmingASCIIWhitespace()] = number
    }
    return result
  }

  /// The words of a comma-separated list field (`Tus-Extension`), lower-cased.
  static func list(_ value: String?) -> [String] {
    (value ?? "").split(separator: ",").map { String($0).trimmingASCIIWhitespace().lowercased() }
  }

  /// `Location` resolved against the request's URL; only `http` and `https`.
  static func location(_ head: ResponseHead, from url: URL) -> URL? {
    guard let text = head.value(for: "Location")?.trimmingASCIIWhitespace(), !text.isEmpty,
      let resolved = URL(string: text, relativeTo: url)?.absoluteURL,
      let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https"
    else { return nil }
    return resolved
  }
}
