/// Why one manifest line is bad, before the manifest's name and the line number are added
/// (`Manifest` turns it into a `ManifestError`). Reasons are short, name the field, and
/// never quote a header value or a URL (either may hold a secret).
package struct ManifestLineError: Error, Equatable {
  package var reason: String
  package init(_ reason: String) { self.reason = reason }
}
