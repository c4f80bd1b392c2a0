import HaulCore

/// How a run sends resumable uploads (`--resumable`, `--abort-incomplete`).
package struct ResumableOptions: Sendable {
  /// Bytes per `PATCH` request. Some servers keep only requests that arrived whole (tus
  /// servers that read a request before they store it), so a broken request costs up to this
  /// much again; 4 MiB keeps that under 1 % of anything from 400 MiB up, and the request's
  /// own round trip is small beside the time 4 MiB takes to send.
  package static let defaultChunkSize: Int64 = 4 << 20

  /// The protocol of every upload whose entry names none (`--resumable`); `nil` sends such
  /// uploads with a single `PUT` or `POST`.
  package var protocolForUploads: ResumableProtocol?
  /// Cancel the server's upload (tus termination, the draft's `DELETE`) when an attempt
  /// fails instead of keeping it for the next run (`--abort-incomplete`).
  package var abortIncomplete = false
  /// Bytes per `PATCH` request (the draft's `max-append-size` can lower it).
  package var chunkSize = ResumableOptions.defaultChunkSize

  package init(
    protocolForUploads: ResumableProtocol? = nil, abortIncomplete: Bool = false,
    chunkSize: Int64 = ResumableOptions.defaultChunkSize
  ) {
    self.protocolForUploads = protocolForUploads
    self.abortIncomplete = abortIncomplete
    self.chunkSize = max(1, chunkSize)
  }

  /// The protocol `entry` goes through: its own, else the run's for a file upload.
  package func resumable(_ entry: ManifestEntry) -> ResumableProtocol? {
    guard entry.operation == .upload, !entry.recursive else { return nil }
    return entry.resumable ?? protocolForUploads
  }
}
