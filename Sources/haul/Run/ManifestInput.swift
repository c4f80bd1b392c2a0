import Foundation
import Glibc
import HaulCore
import HaulHF
import HaulS3

/// The manifest a command reads: a file as given, or standard input spooled to a temporary
/// file first (a manifest is checked in full before any transfer starts, so it must be read
/// twice: docs/manual.md, "Manifest").
///
/// The spool is created in `$TMPDIR` (else `/tmp`) and unlinked at once; it is read through
/// `/dev/fd/N`, which on Linux opens the still-open file afresh. Nothing is left behind, even
/// after `kill -9`.
final class ManifestInput {
  /// The path to read the manifest from.
  let path: String
  /// The name for messages: the argument as given (`-` for standard input).
  let displayName: String
  private let spool: Int32

  /// Opens the manifest named `argument`; `-` spools standard input.
  init(argument: String) throws(ManifestError) {
    displayName = argument
    guard argument == "-" else {
      path = argument
      spool = -1
      return
    }
    let directory = ProcessEnvironment.value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array((directory + "/haul-manifest-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else {
      throw ManifestError(
        manifest: "-", line: 0,
        reason: "cannot spool standard input: \(ProcessEnvironment.errorText())")
    }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    spool = fd
    path = "/dev/fd/\(fd)"
    try copyStandardInput(to: fd)
  }

  deinit {
    if spool >= 0 { close(spool) }
  }

  /// The manifest for the library, with `output` as its output directory, the digests of
  /// `checksums` applied to its downloads, `schemes` its URL schemes beyond http(s)
  /// (`s3://`, `hf://`: `urlSchemes`), and
  /// `transports` those it will run through, whose limits it then refuses at validation.
  func manifest(
    output: String, checksums: ChecksumTable = ChecksumTable(),
    schemes: ManifestURLSchemes = urlSchemes(nil),
    transports: [TransportChoice] = [], recursive: Bool = false
  ) -> Manifest {
    var manifest = Manifest(
      path: path, displayName: displayName, outputDirectory: output, checksums: checksums,
      schemes: schemes,
      refusesIPv6Literals: transports.contains(where: TransportFactory.refusesIPv6Literals))
    manifest.recursive = recursive
    manifest.refusesResumableIETF = transports.contains(where: TransportFactory.refusesIETFUploads)
    return manifest
  }

  private func copyStandardInput(to fd: Int32) throws(ManifestError) {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let got = read(STDIN_FILENO, buffer.baseAddress, buffer.count)
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else {
        throw ManifestError(
          manifest: "-", line: 0,
          reason: "cannot read standard input: \(ProcessEnvironment.errorText())")
      }
      if got == 0 { return }
      guard writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<got])) else {
        throw ManifestError(
          manifest: "-", line: 0,
          reason: "cannot spool standard input: \(ProcessEnvironment.errorText())")
      }
    }
  }
}

/// Small wrappers over the process's C environment.
enum ProcessEnvironment {
  /// The environment variable `name`, if set.
  static func value(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// The text of the current `errno`.
  static func errorText() -> String { String(cString: strerror(errno)) }
}

/// The manifest's URL schemes under the CLI: `s3://` to the `--s3` endpoint, refused with a
/// line that names `--s3` when there is none, and `hf://` to the Hub (`HubSetup`), its
/// folders in the Hub cache's layout with `hfCache`.
func urlSchemes(_ setup: S3Setup?, hfCache: Bool = false) -> ManifestURLSchemes {
  var schemes: [any ManifestURLScheme] = [S3URLScheme(endpoint: setup?.endpoint)]
  if case .success(let hub) = HubSetup.current {
    schemes.append(HFURLScheme(endpoint: hub.endpoint, cache: hfCache))
  }
  return ManifestURLSchemes(schemes)
}

/// The Hugging Face Hub of this process: `HF_ENDPOINT` and the token, read from the
/// environment once (a daemon's jobs all reach the Hub of its environment).
enum HubSetup {
  static let current = HFSetup.from(ProcessInfo.processInfo.environment)
}
