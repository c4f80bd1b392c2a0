import Foundation
import HaulCore

/// The comparison `haul bench` prints and writes: one row per `-j` value and transport,
/// medians over its rounds (peak RSS: the largest), and each row's files/s against the
/// first's.
struct BenchReport {
  /// One transport's rounds, summed up.
  struct Row {
    var transport: String
    /// The `-j` value (`16`, `auto`).
    var level: String
    /// The transfers allowed in flight at the end of the runs (their median): what `auto`
    /// chose.
    var concurrency: Int?
    /// Connections opened and the mean time to the first byte (medians over the runs).
    var connections: Int?
    var firstByte: Double?
    var runs: [BenchRun]
    var filesPerSecond: Double
    var megabytesPerSecond: Double
    var cpuSecondsPerGiB: Double?
    var cpuSecondsPer1000Files: Double?
    var peakRSSBytes: Int64
    var latencyP50: Double?
    var latencyP99: Double?
    /// files/s divided by the first row's.
    var ratio: Double?
    var failedRuns: Int { runs.filter { !$0.succeededAll }.count }
  }

  let manifest: String
  let statistics: ManifestStatistics
  let options: BenchOptions
  /// Whether peak RSS was restarted before each run (else it is the process's high-water mark).
  let peakIsPerRun: Bool
  let rows: [Row]

  init(
    manifest: String, statistics: ManifestStatistics, options: BenchOptions,
    peakIsPerRun: Bool, runs: [BenchRun]
  ) {
    self.manifest = manifest
    self.statistics = statistics
    self.options = options
    self.peakIsPerRun = peakIsPerRun
    var rows: [Row] = []
    let median = { (values: [Double?]) in Percentile.median(values.compactMap { $0 }) }
    for level in options.levels {
      for choice in options.transports {
        let mine = runs.filter { $0.transport == choice.rawValue && $0.level == level.label }
        rows.append(
          Row(
            transport: choice.rawValue, level: level.label,
            concurrency: median(mine.map { $0.concurrency.map(Double.init) }).map { Int($0) },
            connections: median(mine.map { $0.connections.map(Double.init) }).map { Int($0) },
            firstByte: median(mine.map(\.firstByte)), runs: mine,
            filesPerSecond: median(mine.map(\.filesPerSecond)) ?? 0,
            megabytesPerSecond: median(mine.map(\.megabytesPerSecond)) ?? 0,
            cpuSecondsPerGiB: median(mine.map(\.cpuSecondsPerGiB)),
            cpuSecondsPer1000Files: median(mine.map(\.cpuSecondsPer1000Files)),
            peakRSSBytes: mine.map(\.peakRSSBytes).max() ?? 0,
            latencyP50: median(mine.map(\.latencyP50)),
            latencyP99: median(mine.map(\.latencyP99))))
      }
    }
    if let first = rows.first?.filesPerSecond, first > 0 {
      for index in rows.indices { rows[index].ratio = rows[index].filesPerSecond / first }
    }
    self.rows = rows
  }

  /// Whether every run of every transport succeeded.
  var succeededAll: Bool { rows.allSatisfy { $0.failedRuns == 0 } }

  /// The table for standard output.
  var table: String {
    var lines: [String] = []
    lines.append(
      "haul bench \(manifest): \(statistics.entries) entries, "
        + "\(Format.bytes(statistics.knownBytes)) known, "
        + "-j \(options.levels.map(\.label).joined(separator: ",")), "
        + "--per-host \(options.perHost), \(options.repeats) round(s) interleaved; "
        + "medians over rounds")
    let header = [
      "transport", "-j", "in flight", "conns", "TTFB ms", "files/s", "MB/s", "CPU s/GiB",
      "CPU s/1k files", "peak RSS", "p50 ms", "p99 ms", "ratio",
    ]
    var cells = [header]
    for row in rows {
      cells.append([
        row.transport + (row.failedRuns > 0 ? " (\(row.failedRuns) failed)" : ""),
        row.level, row.concurrency.map(String.init) ?? "-",
        row.connections.map(String.init) ?? "-",
        row.firstByte.map { Self.fixed($0 * 1000, 1) } ?? "-",
        Self.fixed(row.filesPerSecond, 1), Self.fixed(row.megabytesPerSecond, 1),
        row.cpuSecondsPerGiB.map { Self.fixed($0, 2) } ?? "-",
        row.cpuSecondsPer1000Files.map { Self.fixed($0, 3) } ?? "-",
        Format.bytes(row.peakRSSBytes),
        row.latencyP50.map { Self.fixed($0 * 1000, 1) } ?? "-",
        row.latencyP99.map { Self.fixed($0 * 1000, 1) } ?? "-",
        row.ratio.map { Self.fixed($0, 2) } ?? "-",
      ])
    }
    let widths = header.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
    for row in cells {
      let padded = row.enumerated().map { column, text in
        let pad = String(repeating: " ", count: widths[column] - text.count)
        return column == 0 ? text + pad : pad + text
      }
      lines.append(padded.joined(separator: "  "))
    }
    lines.append(
      peakIsPerRun
        ? "peak RSS: per run (restarted through /proc/self/clear_refs before each run)"
        : "peak RSS: ru_maxrss, process-wide and never lower than an earlier run's")
    lines.append(
      "CPU: getrusage user+sys of the whole process during each run; ratio: files/s; "
        + "in flight: the limit at the run's end (what auto chose); conns: connections "
        + "opened (- where the transport cannot tell); TTFB: mean time from a request to "
        + "its first answer byte")
    for row in rows {
      for run in row.runs where !run.succeededAll {
        lines.append(
          "\(row.transport) -j \(row.level) round \(run.round): \(run.failed) failed"
            + (run.skipped > 0 ? ", \(run.skipped) skipped" : "")
            + (run.firstFailure.map { " (first: \($0))" } ?? ""))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The same comparison as a JSON object, every run included.
  var json: String {
    func runObject(_ run: BenchRun) -> [String: Any] {
      var object: [String: Any] = [
        "round": run.round, "level": run.level, "seconds": run.seconds, "succeeded": run.succeeded,
        "skipped": run.skipped, "failed": run.failed, "bytes": run.bytes,
        "cpuSeconds": run.cpuSeconds, "peakRSSBytes": run.peakRSSBytes,
        "filesPerSecond": run.filesPerSecond, "megabytesPerSecond": run.megabytesPerSecond,
      ]
      object["latencyP50Seconds"] = run.latencyP50
      object["latencyP99Seconds"] = run.latencyP99
      object["firstFailure"] = run.firstFailure
      object["concurrency"] = run.concurrency
      object["connections"] = run.connections
      object["firstByteSeconds"] = run.firstByte
      return object
    }
    let transports: [[String: Any]] = rows.map { row in
      var object: [String: Any] = [
        "name": row.transport, "level": row.level, "filesPerSecond": row.filesPerSecond,
        "megabytesPerSecond": row.megabytesPerSecond, "peakRSSBytes": row.peakRSSBytes,
        "failedRuns": row.failedRuns, "runs": row.runs.map(runObject),
      ]
      object["cpuSecondsPerGiB"] = row.cpuSecondsPerGiB
      object["cpuSecondsPer1000Files"] = row.cpuSecondsPer1000Files
      object["latencyP50Seconds"] = row.latencyP50
      object["latencyP99Seconds"] = row.latencyP99
      object["ratio"] = row.ratio
      object["concurrency"] = row.concurrency
      object["connections"] = row.connections
      object["firstByteSeconds"] = row.firstByte
      return object
    }
    let object: [String: Any] = [
      "manifest": manifest, "entries": statistics.entries, "knownBytes": statistics.knownBytes,
      "levels": options.levels.map(\.label), "perHost": options.perHost,
      "rounds": options.repeats, "peakRSSPerRun": peakIsPerRun, "succeeded": succeededAll,
      "transports": transports,
    ]
    let data =
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self) + "\n"
  }

  private static func fixed(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
  }
}
