/// Whether a file in place is still the version a folder listing names, by the listing's
/// exact mtime (`ManifestEntry.listedModified`): with its size, this lets a rerun skip an
/// unchanged file without a request, as `rclone copy` (size and modification time) and
/// `wget -N` (time-stamping) do.
///
/// A fetched file's mtime is its `Last-Modified`, which a listing's mtime matches on the
/// servers that give one; so the times are compared exactly, to the second (HTTP dates
/// carry no fraction): a file replaced on the server with one of the same size is fetched
/// again, whether its new time is later or earlier. Under `--no-remote-time` the local time
/// is when the file was fetched, so only a listed time later than that says it changed
/// (`wget -N`'s rule).
enum ListedTime {
  /// Whether the destination, modified at `local` (seconds since 1970), is the version
  /// listed as modified at `listed`; `remoteTime` says whether fetched files get the
  /// server's time.
  static func isCurrent(local: Int, listed: Int, remoteTime: Bool) -> Bool {
    remoteTime ? local == listed : local >= listed
  }
}
