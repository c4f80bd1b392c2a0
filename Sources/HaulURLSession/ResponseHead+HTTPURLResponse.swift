import Foundation
import HaulCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension ResponseHead {
  /// The head of `response` as corelibs parsed it.
  ///
  /// corelibs keeps the header fields in a dictionary: the order they came in is lost, and
  /// repeated fields of the same name arrive joined with `, `. The fields are sorted by name
  /// so that the same response always gives the same head.
  init(_ response: HTTPURLResponse) {
    var fields: [HTTPField] = []
    fields.reserveCapacity(response.allHeaderFields.count)
    for (name, value) in response.allHeaderFields {
      fields.append(HTTPField("\(name)", "\(value)"))
    }
    fields.sort { $0.name.lowercased() < $1.name.lowercased() }
    self.init(status: response.statusCode, headers: fields)
  }

  /// The size of this head as it would be on the wire in HTTP/1.1: a status line and
  /// `Name: value\r\n` per field, then the blank line. An estimate of what the server sent
  /// (corelibs drops the reason phrase and joins repeated fields), close enough to enforce a
  /// limit of hundreds of KiB.
  var wireSize: Int {
    var size = "HTTP/1.1 000 \r\n\r\n".utf8.count
    for field in headers {
      size += field.name.utf8.count + field.value.utf8.count + 4
    }
    return size
  }

  /// Whether the body is sent with a content coding other than `identity`, which libcurl
  /// would decode before URLSession hands the bytes on.
  var hasContentCoding: Bool {
    guard let coding = value(for: "Content-Encoding")?.trimmingASCIIWhitespace() else {
      return false
    }
    return !coding.isEmpty && coding.lowercased() != "identity"
  }
}
