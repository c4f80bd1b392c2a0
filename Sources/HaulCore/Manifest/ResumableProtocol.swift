/// A resumable upload protocol an upload entry can go through (manifest `resumable`,
/// `--resumable`): the server keeps what arrived, and an interrupted upload goes on where the
/// server says it stopped instead of starting over. The manifest names it; the protocols
/// themselves are carried out beside the core (`HaulResumable`, an upload strategy).
public enum ResumableProtocol: String, Sendable, Hashable, CaseIterable {
  /// tus 1.0.0 (tus.io): the entry's URL is the server's creation endpoint.
  case tus
  /// The IETF "Resumable Uploads for HTTP" draft (draft-ietf-httpbis-resumable-upload,
  /// interop version 8): the entry's URL is the resource the upload is created at with
  /// `POST`.
  case ietf
}
