import Foundation

/// A way of carrying an upload that is more than one request: a resumable protocol (tus,
/// the IETF draft) or an object store's multipart upload. The scheduler
/// asks each strategy of the run in turn whether it takes an upload; the first that does
/// carries each attempt of it in the entry's task, through an `UploadContext`, and cleans
/// up once the entry has failed for good. An upload no strategy takes is one `PUT` or
/// `POST` of the file (`UploadAttempt`).
///
/// A strategy keeps no state between attempts in memory: what it needs to go on (an upload
/// id, the parts or bytes the server acknowledged) lives in the output directory's
/// `.haul/uploads/` (`UploadStateFile`), so that a retry and a rerun after `kill -9` go on
/// the same way.
package protocol UploadStrategy: Sendable {
  /// Whether this strategy carries `entry`'s upload of the file at `source` to `url`.
  /// Called for each upload as it is dispatched: it must be cheap (a `stat` at most).
  func takes(_ entry: ManifestEntry, to url: URL, source: String) -> Bool

  /// One attempt at the upload, holding the entry's slot (which the strategy may give back
  /// while requests of its own hold theirs, and must hold again when it returns).
  func attempt(_ upload: UploadContext) async -> Result<Void, AttemptFailure>

  /// Cleans up what the attempts left on the server once the entry has failed for good
  /// (never when the run was interrupted: a rerun goes on from it), holding no slot; what
  /// to add to the entry's message (`"the multipart upload was aborted"`), or `nil` when
  /// nothing was done.
  func abandon(_ upload: UploadContext) async -> String?
}
