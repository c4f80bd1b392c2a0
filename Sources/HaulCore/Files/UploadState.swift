import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A state an upload strategy keeps in the output directory's `.haul/uploads/` between
/// attempts and runs (a resumable upload's resource, a multipart upload's id and parts):
/// read back at the next attempt, written whole through `UploadStateFile` as the server
/// acknowledges more, removed once the upload is done or given up.
package protocol UploadState: Codable, Sendable {}

extension UploadState {
  /// The state at `path`, `nil` when there is none or it cannot be read (an unreadable state
  /// starts the upload over, as a missing one does).
  package static func read(_ path: String) -> Self? {
    guard let data = UploadStateFile.read(path) else { return nil }
    return try? JSONDecoder().decode(Self.self, from: data)
  }

  /// Writes the state to `path` (its folder made as needed) through a temporary file.
  package func write(to path: String) throws(TransferError) {
    try UploadStateFile.write(self, to: path)
  }

  /// Removes the state file at `path`, if any, and its folders once empty
  /// (`UploadStateFile.remove(_:)`).
  package static func remove(_ path: String) {
    UploadStateFile.remove(path)
  }
}
