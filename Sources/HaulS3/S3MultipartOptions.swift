import HaulCore

/// `--multipart-threshold`, `--part-size`, `--part-concurrency` and `--abort-incomplete`:
/// when an upload to the S3 endpoint goes in parts, how large they are, how many go at once,
/// and what a failed one leaves behind.
package struct S3MultipartOptions: Sendable, Hashable {
  /// Uploads of more bytes than this go in parts (`--multipart-threshold`, default 64 MiB).
  package var threshold: Int64
  /// The size of each part but the last (`--part-size`, default 16 MiB), grown when the file
  /// would need more than `maxParts`.
  package var partSize: Int64
  /// The parts of one upload in flight at once (`--part-concurrency`, default 4), each in a
  /// slot of its own, so `-j` and `--per-host` bound them too. 4 is what rclone sends by
  /// default (s5cmd sends 5): enough to keep a fast link busy from one file, few enough that
  /// one large upload leaves `--per-host`'s default 8 room for the run's other entries.
  package var partConcurrency: Int
  /// Whether an upload whose entry has failed for good is aborted (`AbortMultipartUpload`)
  /// instead of being left for the next run to resume; a failed attempt that is retried
  /// keeps it either way.
  package var abortIncomplete: Bool
  /// The endpoint whose uploads go in parts (`--s3`'s); uploads elsewhere never do.
  package var endpoint: S3Endpoint

  /// S3's limit on the parts of one upload.
  package static let maxParts: Int64 = 10_000
  /// S3's smallest part (but the last).
  package static let minPartSize: Int64 = 5 << 20

  /// The default of `partConcurrency`.
  package static let defaultPartConcurrency = 4

  package init(
    endpoint: S3Endpoint, threshold: Int64 = 64 << 20, partSize: Int64 = 16 << 20,
    partConcurrency: Int = S3MultipartOptions.defaultPartConcurrency,
    abortIncomplete: Bool = false
  ) {
    self.endpoint = endpoint
    self.threshold = threshold
    self.partSize = partSize
    self.partConcurrency = max(1, partConcurrency)
    self.abortIncomplete = abortIncomplete
  }

  /// The part size for a file of `length` bytes: `partSize`, grown (in whole MiB) so that no
  /// upload needs more than 10,000 parts.
  package func partSize(for length: Int64) -> Int64 {
    let needed = (length + Self.maxParts - 1) / Self.maxParts
    guard needed > partSize else { return partSize }
    let mebibyte: Int64 = 1 << 20
    return (needed + mebibyte - 1) / mebibyte * mebibyte
  }
}
