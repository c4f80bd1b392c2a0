/// haul's version, written in this one place: `haul --version`, `--help` and the manual
/// page show it, and every request's `User-Agent` carries it.
package enum HaulVersion {
  package static let current = "0.1.0"
  /// The `User-Agent` every request carries unless its own headers set one.
  package static let userAgent = "haul/\(current)"
}
