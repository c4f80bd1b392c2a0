import HaulCore

extension SchedulerOptions {
  /// Adds resumable uploads to the run: an upload whose entry names a protocol
  /// (`Transfer.resumableUpload`, the manifest's `resumable`) goes through tus 1.0 or the
  /// IETF draft, and an interrupted one goes on where the server says it stopped. It is
  /// asked before any other upload strategy.
  public mutating func addResumableUploads() {
    addResumableUploads(ResumableOptions())
  }

  /// Adds resumable uploads sent as `options` say (`--resumable`, `--abort-incomplete`),
  /// asked before any other upload strategy.
  package mutating func addResumableUploads(_ options: ResumableOptions) {
    uploadStrategies.insert(options, at: 0)
  }
}
