import Foundation

/// A URL scheme beyond `http` and `https` that a manifest accepts, each URL of it mapped to
/// the http(s) URL that is fetched (an object store's `BUCKET/KEY` to its endpoint's URL).
/// Some of its URLs may name a folder that a `FolderLister` lists (an object store's
/// prefix), which the manifest's rules treat as such: downloaded only, no mirrors, a `path`
/// that is a folder.
package protocol ManifestURLScheme: Sendable {
  /// The scheme, in lower case, without `://`.
  var scheme: String { get }
  /// How messages name a folder of this scheme (`an s3:// prefix`).
  var folderName: String { get }
  /// The URL that `string` (which starts with `scheme://`, in any case) maps to, or why it
  /// cannot (the reason starts with `field`, and never quotes the URL).
  func url(for string: String, field: String) -> Result<URL, ManifestLineError>
  /// Whether `url`, as this scheme maps it (or as written), names one of its folders.
  func namesFolder(_ url: URL) -> Bool
  /// The URL that the files of a folder upload to `folder` (one of this scheme's folders,
  /// as mapped) go below, ending in `/`; `nil` when its folders are only downloaded.
  func uploadFolderURL(for folder: URL) -> URL?
  /// The `path` of a line that names one of its folders (`url`, as mapped) and gives none:
  /// `""` (the output directory itself) or a folder ending in `/`.
  func defaultFolderPath(for url: URL) -> String
}

extension ManifestURLScheme {
  /// The output directory itself, as an object store's prefix lands.
  package func defaultFolderPath(for url: URL) -> String { "" }

  /// None: the scheme's folders are only downloaded.
  package func uploadFolderURL(for folder: URL) -> URL? { nil }
}

/// The extra URL schemes of a manifest (`Manifest.schemes`), none by default.
package struct ManifestURLSchemes: Sendable {
  /// The schemes, each asked in turn.
  package var all: [any ManifestURLScheme]

  package init(_ all: [any ManifestURLScheme] = []) {
    self.all = all
  }

  /// The scheme `string` is written in (`scheme://…`), when it is one of these.
  func scheme(of string: String) -> (any ManifestURLScheme)? {
    all.first { scheme in
      let prefix = scheme.scheme + "://"
      return string.utf8.count >= prefix.utf8.count
        && string.prefix(prefix.count).lowercased() == prefix
    }
  }

  /// The scheme one of whose folders `url` names, when there is one.
  func folder(_ url: URL) -> (any ManifestURLScheme)? {
    all.first { $0.namesFolder(url) }
  }

  /// Whether `url` names a folder of one of these schemes.
  func namesFolder(_ url: URL) -> Bool { folder(url) != nil }
}
