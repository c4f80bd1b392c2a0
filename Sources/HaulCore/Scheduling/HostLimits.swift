import Foundation

/// Origins whose transfers may run more at once than `SchedulerOptions.perHost`, when the
/// run chose no `--per-host`: a server that hands each file to a CDN built to serve it over
/// many connections at a rate per connection (the Hugging Face Hub's `resolve` URLs).
package protocol HostLimits: Sendable {
  /// The transfers `url`'s origin may have in flight at once; `nil`: `perHost`. The
  /// transport must allow as many connections to one host, so that a transfer admitted
  /// never waits for one.
  func perHost(for url: URL) -> Int?
}
