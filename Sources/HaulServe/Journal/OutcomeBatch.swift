import Foundation

/// Outcomes of one job's entries, committed together as one row of `outcome_batches` and
/// moved into `entries` (`JournalSQL.fold`) when the job's entries are first read.
///
/// A job that nobody asks entry by entry costs a row per commit, not a row per file. Readers see no difference: every read of
/// a job's entries folds its batches first, in the order they were committed, with the rule
/// of `upsertEntry`. Its text holds one outcome per line, readable with `sqlite3`:
/// `LINE TAB STATUS TAB BYTES TAB CODE TAB PATH TAB URL TAB REPORT`, each text field with
/// backslash, tab, line feed and carriage return escaped as `\\`, `\t`, `\n` and `\r`.
struct OutcomeBatch {
  let job: String
  /// How many outcomes it holds.
  private(set) var count = 0
  private var bytes: [UInt8] = []

  init(job: String) {
    self.job = job
    bytes.reserveCapacity(4096)
  }

  /// Adds `outcome`, of the batch's job, after the others.
  mutating func append(_ outcome: EntryRecord) {
    count += 1
    bytes.appendDecimal(outcome.line)
    bytes.append(Self.tab)
    bytes.appendUTF8(outcome.status.rawValue)
    bytes.append(Self.tab)
    bytes.appendDecimal(outcome.bytes)
    bytes.append(Self.tab)
    if let code = outcome.code { Self.appendEscaped(code, to: &bytes) }
    bytes.append(Self.tab)
    Self.appendEscaped(outcome.path, to: &bytes)
    bytes.append(Self.tab)
    Self.appendEscaped(outcome.url, to: &bytes)
    bytes.append(Self.tab)
    Self.appendEscaped(outcome.report, to: &bytes)
    bytes.append(Self.lineFeed)
  }

  /// The batch's text column.
  var text: String { String(decoding: bytes, as: UTF8.self) }

  /// `outcomes` grouped into one batch per job, in the order each job first appears; each
  /// batch keeps its outcomes' order.
  static func batches(_ outcomes: [EntryRecord]) -> [OutcomeBatch] {
    var batches: [OutcomeBatch] = []
    for outcome in outcomes {
      if let index = batches.lastIndex(where: { $0.job == outcome.job }) {
        batches[index].append(outcome)
      } else {
        var batch = OutcomeBatch(job: outcome.job)
        batch.append(outcome)
        batches.append(batch)
      }
    }
    return batches
  }

  /// The outcomes of a batch's text, `nil` when a line is not one this type wrote.
  static func outcomes(job: String, text: String) -> [EntryRecord]? {
    var outcomes: [EntryRecord] = []
    for line in text.utf8.split(separator: lineFeed, omittingEmptySubsequences: true) {
      let fields = line.split(separator: tab, maxSplits: 6, omittingEmptySubsequences: false)
      guard fields.count == 7, let number = Int(Substring(fields[0])),
        let status = EntryRecord.Status(rawValue: String(Substring(fields[1]))),
        let bytes = Int64(Substring(fields[2])),
        let code = unescaped(fields[3]), let path = unescaped(fields[4]),
        let url = unescaped(fields[5]), let report = unescaped(fields[6])
      else { return nil }
      outcomes.append(
        EntryRecord(
          job: job, line: number, path: path, url: url, status: status,
          code: code.isEmpty ? nil : code, bytes: bytes, report: report))
    }
    return outcomes
  }

  private static let tab = UInt8(ascii: "\t")
  private static let lineFeed = UInt8(ascii: "\n")
  private static let backslash = UInt8(ascii: "\\")

  private static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
    var text = text
    text.withUTF8 { utf8 in
      guard let base = utf8.baseAddress else { return }
      // The fields seldom hold any of the four: memchr finds that out fastest.
      let count = utf8.count
      let plain =
        memchr(base, 0x5C, count) == nil && memchr(base, 0x09, count) == nil
        && memchr(base, 0x0A, count) == nil && memchr(base, 0x0D, count) == nil
      guard !plain else {
        bytes.append(contentsOf: utf8)
        return
      }
      for byte in utf8 {
        switch byte {
        case backslash: bytes += [backslash, backslash]
        case tab: bytes += [backslash, UInt8(ascii: "t")]
        case lineFeed: bytes += [backslash, UInt8(ascii: "n")]
        case 0x0D: bytes += [backslash, UInt8(ascii: "r")]
        default: bytes.append(byte)
        }
      }
    }
  }

  private static func unescaped(_ field: Substring.UTF8View) -> String? {
    guard field.contains(backslash) else { return String(Substring(field)) }
    var out: [UInt8] = []
    var escaping = false
    for byte in field {
      if escaping {
        switch byte {
        case backslash: out.append(backslash)
        case UInt8(ascii: "t"): out.append(tab)
        case UInt8(ascii: "n"): out.append(lineFeed)
        case UInt8(ascii: "r"): out.append(0x0D)
        default: return nil
        }
        escaping = false
      } else if byte == backslash {
        escaping = true
      } else {
        out.append(byte)
      }
    }
    return escaping ? nil : String(decoding: out, as: UTF8.self)
  }
}
