import Foundation
import Glibc

/// The fresh folder one bench run writes into: `OUTPUT/.haul-bench-PID/TRANSPORT-ROUND`.
///
/// Downloads land there, so no run finds another's files and skips them. Uploads read their
/// bodies relative to the run's folder, so each upload file of `OUTPUT` is hard-linked into
/// it first (symlinked when `OUTPUT` spans file systems); this happens before the clock
/// starts. The folder is removed after the run, and the parent once bench ends.
struct BenchDirectory {
  /// Every run's folder lives under this one.
  let parent: String
  /// The `-o` folder the upload bodies come from.
  let source: String
  /// The manifest paths of the uploads, to link into each run's folder.
  let uploads: [String]

  init(output: String, uploads: [String]) {
    source = output
    parent = output + "/.haul-bench-\(getpid())"
    self.uploads = uploads
  }

  /// Creates the folder for `transport`'s run in `round` (1-based) and links the uploads.
  func make(transport: String, round: Int) throws -> String {
    let path = parent + "/\(transport)-\(round)"
    try? FileManager.default.removeItem(atPath: path)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let absoluteSource = URL(fileURLWithPath: source).standardizedFileURL.path
    for upload in uploads {
      let target = path + "/" + upload
      let folder = (target as NSString).deletingLastPathComponent
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      if link(source + "/" + upload, target) != 0 {
        try FileManager.default.createSymbolicLink(
          atPath: target, withDestinationPath: absoluteSource + "/" + upload)
      }
    }
    return path
  }

  /// Removes one run's folder.
  func remove(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
  }

  /// Removes the parent folder of every run.
  func removeAll() {
    try? FileManager.default.removeItem(atPath: parent)
  }
}
