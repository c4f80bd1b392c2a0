import Foundation
import HaulCore

/// A scratch directory holding one manifest file (`manifest.jsonl`) and any upload files,
/// removed when the fixture goes away: the manifest tests of the core and of HaulS3.
public final class ManifestFixture {
  public let directory: String
  public var manifestPath: String { directory + "/manifest.jsonl" }

  public init() {
    var template = Array((NSTemporaryDirectory() + "/haul-manifest-XXXXXX").utf8CString)
    let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(created != nil, "mkdtemp failed")
    directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Writes `bytes` as the manifest and returns it, named `m.jsonl` in messages.
  public func manifest(bytes: [UInt8]) -> Manifest {
    let written = FileManager.default.createFile(atPath: manifestPath, contents: Data(bytes))
    precondition(written, "cannot write \(manifestPath)")
    return Manifest(path: manifestPath, displayName: "m.jsonl", outputDirectory: directory)
  }

  /// Writes `lines`, each followed by `\n`, as the manifest.
  public func manifest(lines: [String]) -> Manifest {
    manifest(bytes: Array(lines.map { $0 + "\n" }.joined().utf8))
  }

  /// Creates a regular file (and its folders) under the directory, for uploads.
  public func createFile(_ relativePath: String, contents: String = "payload") {
    let full = directory + "/" + relativePath
    try? FileManager.default.createDirectory(
      atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let written = FileManager.default.createFile(atPath: full, contents: Data(contents.utf8))
    precondition(written, "cannot write \(full)")
  }

  /// The error `validate()` throws, or `nil` when the manifest is accepted.
  public static func validationError(_ manifest: Manifest) -> ManifestError? {
    do {
      _ = try manifest.validate()
      return nil
    } catch {
      return error
    }
  }
}
