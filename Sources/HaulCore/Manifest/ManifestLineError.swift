/// Why one manifest line is bad, before the manifest's name and the line number are added
/// (`Manifest` turns it into a `ManifestError`). Reasons are short, name the field, and
/// never quote a header value or a URL (either may hold a secret).
struct ManifestLineError: Error, Equatable {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}
