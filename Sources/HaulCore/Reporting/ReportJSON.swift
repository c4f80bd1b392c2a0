/// The JSON text of the report's parts and of the events (docs/manual.md, "Report", "Events").
///
/// Field names and order are the contract; values carry no secrets: URLs lose their userinfo
/// here even if a caller forgot, and error messages are `TransferError`'s, which never hold one.
package enum ReportJSON {
  /// One element of the report's `transfers` array.
  package static func transfer(_ outcome: EntryOutcome) -> String {
    var object = JSONObject()
    addTransferFields(outcome, to: &object)
    return object.json
  }

  /// One element of the report's `transfers` array, its UTF-8 bytes appended to `out`.
  package static func appendTransfer(_ outcome: EntryOutcome, to out: inout [UInt8]) {
    var object = JSONObject(extending: &out)
    addTransferFields(outcome, to: &object)
    object.close(into: &out)
  }

  /// The report's `summary` object.
  package static func summary(_ summary: RunSummary) -> String {
    var object = JSONObject()
    addSummaryFields(summary, to: &object)
    return object.json
  }

  /// The `start` event of an entry.
  package static func startEvent(_ entry: EntryInfo) -> String {
    var object = JSONObject()
    object.add("type", "start")
    addEntryFields(entry, to: &object)
    return object.json
  }

  /// A `progress` event of one entry in flight: `bytes` present so far, `size` when known.
  package static func progressEvent(_ active: ProgressSnapshot.Active) -> String {
    var object = JSONObject()
    object.add("type", "progress")
    object.add("line", active.entry.line)
    object.add("path", active.entry.path)
    object.add("op", active.entry.operation.rawValue)
    object.add("bytes", active.bytes)
    if let size = active.entry.expectedBytes { object.add("size", size) }
    return object.json
  }

  /// The `retry` event before attempt number `attempt` (2 for the first retry).
  package static func retryEvent(
    _ entry: EntryInfo, attempt: Int, code: TransferError.Code, delay: Double
  ) -> String {
    var object = JSONObject()
    object.add("type", "retry")
    object.add("line", entry.line)
    object.add("path", entry.path)
    object.add("op", entry.operation.rawValue)
    object.add("attempt", attempt)
    object.add("code", code.rawValue)
    object.add("delay", delay)
    return object.json
  }

  /// The `done`, `skipped` or `failed` event of an entry: its report object with a `type`.
  package static func finishedEvent(_ outcome: EntryOutcome) -> String {
    var object = JSONObject()
    object.add("type", eventType(outcome.status))
    addTransferFields(outcome, to: &object)
    return object.json
  }

  /// The last event: the report's summary fields with `"type": "summary"`.
  package static func summaryEvent(_ summary: RunSummary) -> String {
    var object = JSONObject()
    object.add("type", "summary")
    addSummaryFields(summary, to: &object)
    return object.json
  }

  /// The event type that ends an entry with `status`.
  package static func eventType(_ status: EntryOutcome.Status) -> String {
    switch status {
    case .ok: "done"
    case .skipped: "skipped"
    case .failed: "failed"
    }
  }

  private static func addEntryFields(_ entry: EntryInfo, to object: inout JSONObject) {
    object.add("line", entry.line)
    object.add("path", entry.path)
    object.add("op", entry.operation.rawValue)
    if let size = entry.expectedBytes { object.add("size", size) }
  }

  private static func addTransferFields(_ outcome: EntryOutcome, to object: inout JSONObject) {
    object.add("line", outcome.line)
    object.add("url", outcome.url)
    object.add("path", outcome.path)
    object.add("op", plain: outcome.operation.rawValue)
    object.add("status", plain: outcome.status.rawValue)
    if let refresh = outcome.refresh { object.add("refresh", plain: refresh.rawValue) }
    object.add("bytes", outcome.bytes)
    object.add("attempts", outcome.attempts)
    object.add("seconds", outcome.seconds)
    let sha256 = outcome.sha256
    if let sha256 { object.add("sha256", sha256) }
    var digests = outcome.digests
    if digests[.sha256] == nil, let sha256 { digests[.sha256] = sha256 }
    if !digests.isEmpty {
      object.addObject("digests") { nested in
        for (algorithm, hex) in digests { nested.add(name: algorithm.rawValue, hex) }
      }
    }
    if !outcome.verified.isEmpty { object.add("verified", outcome.verified) }
    if let error = outcome.error {
      object.addObject("error") { nested in
        nested.add("code", plain: error.code.rawValue)
        nested.add("message", error.message)
      }
    }
  }

  private static func addSummaryFields(_ summary: RunSummary, to object: inout JSONObject) {
    object.add("total", summary.total)
    object.add("succeeded", summary.succeeded)
    object.add("skipped", summary.skipped)
    object.add("failed", summary.failed)
    object.add("bytes", summary.bytes)
    object.add("seconds", summary.seconds)
    object.add("transport", summary.transport)
    object.add("cancelled", summary.cancelled)
    object.add("verified", summary.verified)
  }
}
