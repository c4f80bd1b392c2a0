/// An entry's manifest line, as `EntryOutcome.text` gives it: the line as read, or the line
/// a file a folder listing named stands for (`{"url": …, "path": …, "size": …}`), written
/// as JSON only when it is read.
///
/// Why: a rerun over a listed tree skips nearly every file, and a skipped file's line is
/// read only if the skip turns into a failure (the run was cancelled) or by a library's
/// event handler; writing it for each skip was work that nothing read.
///
/// Two texts are equal, and hash alike, when the lines they write are equal, whichever
/// way each is kept.
struct ManifestLineText: Sendable, Hashable {
  private enum Form: Sendable {
    case verbatim(String)
    case listed(url: String, path: String, upload: Bool, size: Int64?)
  }

  private let form: Form

  /// The line `text`, as read.
  init(_ text: String) {
    form = .verbatim(text)
  }

  /// The line of a file a folder listing named at `url`, to go to `path` (the folder
  /// entry's path and the file's relative path), of `size` bytes when listed.
  init(listedURL url: String, path: String, upload: Bool, size: Int64?) {
    form = .listed(url: url, path: path, upload: upload, size: size)
  }

  var text: String {
    switch form {
    case .verbatim(let text): text
    case .listed(let url, let path, let upload, let size):
      Self.listed(url: url, path: path, upload: upload, size: size)
    }
  }

  /// The line of a listed file: its URL, its path, `"op": "upload"` for an upload, and its
  /// size when listed.
  static func listed(url: String, path: String, upload: Bool, size: Int64?) -> String {
    var line = JSONObject()
    line.add("url", url)
    line.add("path", path)
    if upload { line.add("op", "upload") }
    if let size { line.add("size", size) }
    return line.json
  }

  static func == (left: Self, right: Self) -> Bool {
    left.text == right.text
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(text)
  }
}
