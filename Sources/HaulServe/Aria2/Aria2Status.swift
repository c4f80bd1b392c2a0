import Foundation
import HaulCore

/// A download's status object as aria2's `tellStatus` answers it, from its job: every
/// number as a decimal string, aria2's status words (haul's job states are the same six),
/// `files` with their `uris`, and for a download that stopped, `errorCode` (aria2's exit
/// status for haul's error code) and `errorMessage`.
struct Aria2Status {
  /// The job as the daemon answers it.
  var job: [String: Any]
  var download: Aria2Download
  /// The run's latest sample, while the job runs.
  var live: (snapshot: ProgressSnapshot?, bytesBefore: Int64)?
  /// The first failed entry's code and message, for a job in `error`.
  var failure: (code: String, message: String)?

  /// aria2's piece length, which it reports for HTTP downloads too.
  static let pieceLength: Int64 = 1 << 20

  var gid: String { job["id"] as? String ?? "" }
  var state: String { job["state"] as? String ?? "waiting" }
  var output: String { job["output"] as? String ?? "" }

  /// The status object, only `keys` of it when some are given (unknown ones are ignored, as
  /// aria2 ignores them).
  func object(keys: [String] = []) -> [String: Any] {
    let files = fileObjects()
    let (total, completed) = lengths(files)
    let rate = Int64(max(0, (job["rate"] as? Double) ?? 0))
    let pieces = total > 0 ? (total + Self.pieceLength - 1) / Self.pieceLength : 0
    var object: [String: Any] = [
      "gid": gid, "status": state, "totalLength": String(total),
      "completedLength": String(completed), "uploadLength": "0",
      "downloadSpeed": String(state == "active" ? rate : 0), "uploadSpeed": "0",
      "connections": state == "active" ? "1" : "0", "numPieces": String(pieces),
      "pieceLength": String(Self.pieceLength), "dir": output, "files": files,
    ]
    if pieces > 0 {
      object["bitfield"] = Self.bitfield(pieces: pieces, completed: completed, total: total)
    }
    switch state {
    case "complete":
      object["errorCode"] = "0"
      object["errorMessage"] = ""
    case "removed":
      object["errorCode"] = "31"
      object["errorMessage"] = ""
    case "error":
      object["errorCode"] = failure.map { Self.exitCode($0.code) } ?? "1"
      object["errorMessage"] = failure?.message ?? "the download failed"
    default:
      break
    }
    guard !keys.isEmpty else { return object }
    return object.filter { keys.contains($0.key) }
  }

  /// `getFiles`' answer: one object per entry shown.
  func fileObjects() -> [[String: Any]] {
    let single = download.files.count == 1
    return download.files.enumerated().map { index, file in
      let path = output + "/" + file.path
      var (length, completed) = Self.onDisk(path)
      if single, let sample = live?.snapshot {
        // A transfer in flight: its length once the answer gave it, its bytes so far.
        length = sample.expectedBytes ?? (sample.learnedEntries > 0 ? sample.learnedBytes : length)
        completed = sample.completedBytes
      } else if single, length == nil, let expected = job["expected_bytes"] as? Int64 {
        length = expected
      }
      return [
        "index": String(index + 1), "path": path, "length": String(length ?? 0),
        "completedLength": String(completed), "selected": "true",
        "uris": uriObjects(file),
      ]
    }
  }

  /// `getUris`' answer for one file: the first source `used` once the download ran (every
  /// one after it failed), the others `waiting`.
  func uriObjects(_ file: Aria2Download.File) -> [[String: Any]] {
    file.uris.enumerated().map { index, uri in
      let used =
        switch state {
        case "waiting", "paused": false
        case "error": true
        default: index == 0
        }
      return ["uri": uri, "status": used ? "used" : "waiting"]
    }
  }

  /// The download's length and bytes so far: its one file's, or for a job of many entries,
  /// the job's counters.
  private func lengths(_ files: [[String: Any]]) -> (Int64, Int64) {
    if download.files.count == 1, let file = files.first {
      let length = Int64(file["length"] as? String ?? "") ?? 0
      let completed = Int64(file["completedLength"] as? String ?? "") ?? 0
      return (max(length, completed), completed)
    }
    let bytes = (job["bytes"] as? Int64) ?? Int64((job["bytes"] as? Int) ?? 0)
    let expected = (job["expected_bytes"] as? Int64) ?? Int64((job["expected_bytes"] as? Int) ?? 0)
    return (max(expected, bytes), bytes)
  }

  /// The length of the file at `path` once in place, else the bytes of its partial file.
  static func onDisk(_ path: String) -> (length: Int64?, completed: Int64) {
    var status = stat()
    if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
      return (Int64(status.st_size), Int64(status.st_size))
    }
    let folder = (path as NSString).deletingLastPathComponent
    let partial = folder + "/" + PartialNames(leaf: (path as NSString).lastPathComponent).partial
    if stat(partial, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
      return (nil, Int64(status.st_size))
    }
    return (nil, 0)
  }

  /// aria2's `bitfield`: one bit per piece, high bit first, in hex; haul writes a file from
  /// its start, so the pieces its bytes cover are the first ones.
  static func bitfield(pieces: Int64, completed: Int64, total: Int64) -> String {
    let done = completed >= total ? pieces : min(pieces, completed / pieceLength)
    var bytes = [UInt8](repeating: 0, count: Int((pieces + 7) / 8))
    for piece in 0..<Int(done) { bytes[piece / 8] |= 0x80 >> UInt8(piece % 8) }
    return bytes.map { String(format: "%02x", $0) }.joined()
  }

  /// aria2's exit status for haul's error code (docs/manual.md, "Error codes"): the one
  /// aria2 gives the same failure, else 1 (an unknown error).
  static func exitCode(_ code: String) -> String {
    switch code {
    case "http_404", "http_410": "3"
    case "timeout": "2"
    case "connection", "proxy", "tls": "6"
    case "disk_full": "9"
    case "path_refused": "16"
    case "io": "17"
    case "protocol": "22"
    case "redirect_refused": "23"
    case "auth", "http_401", "http_407": "24"
    case "http_503": "29"
    case "checksum_mismatch": "32"
    default: code.hasPrefix("http_") ? "22" : "1"
    }
  }
}
