import Foundation
import HaulCore

/// The Hub's files come down over `perHost` connections at once, twice `--per-host`'s
/// default, when the run gives no `--per-host`, as `aria2c -x16` (its most) fetches them
/// and `hf_transfer` (100 at once) goes further: each `resolve` URL of the Hub redirects to
/// its storage host, a CDN that serves each connection at a rate of its own (about 60 MB/s),
/// so 8 connections hold a link to 480 MB/s whatever it takes. The Hub's origin is the one
/// host counted (the storage host is known only past each redirect); its API requests take
/// no slot. Any other origin goes as `others` says.
package struct HFHostLimits: HostLimits {
  /// The Hub whose files go over more connections.
  package let endpoint: HFEndpoint
  /// The limits of every other origin; `nil`: `--per-host`.
  package let others: (any HostLimits)?

  /// The transfers the Hub's origin has in flight at once by default.
  package static let perHost = 16

  package init(endpoint: HFEndpoint, others: (any HostLimits)?) {
    self.endpoint = endpoint
    self.others = others
  }

  package func perHost(for url: URL) -> Int? {
    Origin(url) == endpoint.origin ? Self.perHost : others?.perHost(for: url)
  }
}
