import Foundation

/// The `Link` field of a paged answer (RFC 8288), as the Hub pages its tree and GitHub its
/// lists: `<URL>; rel="next", <URL>; rel="prev"`.
package enum HFLinkHeader {
  /// The URL of the link whose `rel` includes `relation` (`next`), as written between its
  /// angle brackets; `nil` when there is none.
  package static func target(_ relation: String, in field: String) -> String? {
    var rest = Substring(field)
    while let open = rest.firstIndex(of: "<") {
      guard let close = rest[open...].firstIndex(of: ">") else { return nil }
      let target = rest[rest.index(after: open)..<close]
      let parameters = rest[rest.index(after: close)...].prefix { $0 != "<" }
      rest = rest[parameters.endIndex...]
      for parameter in parameters.split(separator: ";") {
        let pair = parameter.split(separator: "=", maxSplits: 1)
        guard pair.count == 2,
          pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel"
        else { continue }
        let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(
          in: CharacterSet(charactersIn: "\",")
        )
        if value.lowercased().split(separator: " ").contains(Substring(relation)) {
          return String(target)
        }
      }
    }
    return nil
  }
}
