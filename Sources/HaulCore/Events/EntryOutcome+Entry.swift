extension EntryOutcome {
  /// The outcome of `entry` with `status` (and `error`, for a failure), before the run adds
  /// what it moved, how often it tried and what it checked.
  init(_ entry: ManifestEntry, status: Status, error: TransferError? = nil) {
    self.init(
      line: entry.line, text: entry.text, url: entry.url.absoluteString, path: entry.path,
      operation: entry.operation, status: status, bytes: 0, attempts: 0, seconds: 0,
      sha256: nil, error: error)
  }
}
