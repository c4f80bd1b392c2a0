import Foundation

extension Daemon {
  /// Job `record` as the API answers it (docs/service.md): its journaled counts, or while
  /// it runs, the run's own, with its rate and ETA.
  func jobObject(_ record: JobRecord, core: Core) -> [String: Any] {
    var object: [String: Any] = [
      "id": record.id, "state": record.state.rawValue, "output": record.output,
      "name": record.name, "total": record.total, "succeeded": record.succeeded,
      "skipped": record.skipped, "failed": record.failed, "bytes": record.bytes,
      "created": Self.timestamp(record.created),
      "options": JobOptions.fromJSONText(record.options).jsonObject,
      "rate": 0.0,
    ]
    object["position"] = core.queue.items.firstIndex { $0.id == record.id } ?? NSNull()
    object["expected_bytes"] = record.expectedBytes ?? NSNull()
    object["started"] = record.started.map(Self.timestamp) ?? NSNull()
    object["ended"] = record.ended.map(Self.timestamp) ?? NSNull()
    object["eta"] = NSNull()
    if let live = core.live[record.id] {
      let counts = pending.withLock { $0.counts[record.id] } ?? RunCounts()
      object["succeeded"] = counts.succeeded
      object["skipped"] = counts.skipped
      object["failed"] = counts.failed
      object["rate"] = live.rate
      object["eta"] = live.eta ?? NSNull()
      if let snapshot = live.snapshot {
        object["bytes"] = live.bytesBefore + snapshot.bytes
        object["total"] = max(record.total, snapshot.total)
      }
    }
    return object
  }

  /// Seconds since 1970 as an RFC 3339 time in UTC, to the second.
  static func timestamp(_ seconds: Double) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    return String(
      format: "%04d-%02d-%02dT%02d:%02d:%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
  }
}
