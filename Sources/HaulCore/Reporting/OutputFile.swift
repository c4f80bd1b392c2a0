#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a whole file so that readers see either the old file or the complete new one:
/// the text goes to `PATH.partial` (created with the umask applied) and is renamed over `PATH`.
///
/// Renaming rather than truncating in place matters: `haul run failed.txt --failed failed.txt`
/// must not destroy the manifest it is reading.
struct OutputFile {
  let path: String
  private let partialPath: String
  private let descriptor: Int32

  init(path: String) throws(ReportFileError) {
    self.path = path
    self.partialPath = path + ".partial"
    let fd = open(partialPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw .fromErrno(path) }
    self.descriptor = fd
  }

  /// Appends `text`'s UTF-8 bytes.
  func write(_ text: String) throws(ReportFileError) {
    guard writeAll(descriptor, text) else { throw abandon() }
  }

  /// Appends `bytes`.
  func write(_ bytes: UnsafeRawBufferPointer) throws(ReportFileError) {
    guard writeAll(descriptor, bytes) else { throw abandon() }
  }

  /// Appends `bytes`.
  func write(_ bytes: [UInt8]) throws(ReportFileError) {
    guard bytes.withUnsafeBytes({ writeAll(descriptor, $0) }) else { throw abandon() }
  }

  /// Closes the file and puts it in place.
  func commit() throws(ReportFileError) {
    guard close(descriptor) == 0 else {
      let error = ReportFileError.fromErrno(path)
      unlink(partialPath)
      throw error
    }
    guard rename(partialPath, path) == 0 else {
      let error = ReportFileError.fromErrno(path)
      unlink(partialPath)
      throw error
    }
  }

  /// Closes and removes the partial file; returns the error that caused it.
  private func abandon() -> ReportFileError {
    let error = ReportFileError.fromErrno(path)
    close(descriptor)
    unlink(partialPath)
    return error
  }
}
