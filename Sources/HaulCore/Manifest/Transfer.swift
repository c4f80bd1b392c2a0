import Foundation

/// One transfer described in code: what a manifest line says, without a manifest.
///
/// Built only through `download(from:to:mirrors:size:digests:headers:)` and
/// `upload(_:to:method:headers:)` and `resumableUpload(_:to:through:headers:)`, which apply the rules of a manifest line to each field
/// and throw `InvalidTransfer` with the reason such a line would get; so a `Transfer` that
/// exists is one a manifest could hold. Rules that span transfers (two writing the same
/// file, an upload's file missing) are `TransferList`'s.
public struct Transfer: Sendable, Hashable {
  /// How an upload sends its file.
  public enum UploadMethod: String, Sendable, Hashable {
    case put = "PUT"
    case post = "POST"
  }

  public private(set) var operation: ManifestEntry.Operation
  /// The first source (a download) or the destination (an upload); `http` or `https`, the
  /// scheme in lower case.
  public private(set) var url: URL
  /// Further sources of a download's bytes, tried in order when one fails.
  public private(set) var mirrors: [URL]
  /// The local file, relative to the output directory, in normal form (`./a//b` is `a/b`).
  public private(set) var path: String
  /// `GET` for a download; `PUT` or `POST` for an upload.
  public private(set) var method: String
  /// A download's expected byte count, if known.
  public private(set) var size: Int64?
  /// The digests a download must match, lowercase hex.
  public private(set) var digests: DigestValues
  /// Extra request headers (secrets: never printed).
  public private(set) var headers: [HTTPField]
  /// The resumable protocol an upload goes through (manifest `resumable`), if any.
  public private(set) var resumable: ResumableProtocol? = nil

  /// A download of `url` into `path` (by default the URL's last path segment, decoded),
  /// relative to the output directory.
  ///
  /// - Parameters:
  ///   - mirrors: further sources of the same bytes, tried in order when one fails.
  ///   - size: the expected byte count; the download fails with `size_mismatch` otherwise.
  ///   - digests: what the file must hash to, in hex of either case.
  ///   - headers: extra request headers; names haul sets itself are refused.
  /// - Throws: `InvalidTransfer`, with the reason a manifest line with these fields gets.
  public static func download(
    from url: URL, to path: String? = nil, mirrors: [URL] = [], size: Int64? = nil,
    digests: DigestValues = DigestValues(), headers: [HTTPField] = []
  ) throws(InvalidTransfer) -> Transfer {
    do throws(ManifestLineError) {
      let source = try checkedURL(url, field: "\"url\"")
      var checkedMirrors: [URL] = []
      for (index, mirror) in mirrors.enumerated() {
        checkedMirrors.append(try checkedURL(mirror, field: "\"mirrors\" item \(index + 1)"))
      }
      let local =
        if let path {
          try ManifestPath.normalize(path).get()
        } else {
          try ManifestPath.defaultName(percentEncodedPath: source.path(percentEncoded: true))
            .get()
        }
      if let size, size < 0 { throw ManifestLineError("\"size\" must not be negative") }
      return Transfer(
        operation: .download, url: source, mirrors: checkedMirrors, path: local, method: "GET",
        size: size, digests: try checkedDigests(digests), headers: try checkedHeaders(headers))
    } catch {
      throw InvalidTransfer(error.reason)
    }
  }

  /// An upload of `path`, relative to the output directory, to `url`.
  ///
  /// - Parameters:
  ///   - method: `PUT` replaces the resource at `url`; `POST` sends the file to an endpoint
  ///     that may take many.
  ///   - headers: extra request headers; names haul sets itself are refused.
  /// - Throws: `InvalidTransfer`, with the reason a manifest line with these fields gets.
  public static func upload(
    _ path: String, to url: URL, method: UploadMethod = .put, headers: [HTTPField] = []
  ) throws(InvalidTransfer) -> Transfer {
    do throws(ManifestLineError) {
      let destination = try checkedURL(url, field: "\"url\"")
      let local = try ManifestPath.normalize(path).get()
      return Transfer(
        operation: .upload, url: destination, mirrors: [], path: local,
        method: method.rawValue, size: nil, digests: DigestValues(),
        headers: try checkedHeaders(headers))
    } catch {
      throw InvalidTransfer(error.reason)
    }
  }

  /// An upload of `path`, relative to the output directory, through a resumable upload
  /// protocol: tus 1.0 (`url` is the server's creation endpoint) or the IETF draft (`url` is
  /// where the upload is created). The protocol fixes the methods. The IETF draft needs a
  /// transport that sees interim responses (the curl transport; URLSession fails such an
  /// upload with `protocol`). The protocols are carried out by `HaulResumable`: the run's
  /// options need its `addResumableUploads()`, without which the upload is one `PUT`.
  ///
  /// - Throws: `InvalidTransfer`, with the reason a manifest line with these fields gets.
  public static func resumableUpload(
    _ path: String, to url: URL, through kind: ResumableProtocol, headers: [HTTPField] = []
  ) throws(InvalidTransfer) -> Transfer {
    var transfer = try upload(path, to: url, headers: headers)
    transfer.resumable = kind
    return transfer
  }

  /// The transfer as the scheduler takes it, as line `line` of a manifest: its `text` is the
  /// manifest line that describes it, so a `--failed` file written from the run's outcomes
  /// is a manifest that retries just the failures.
  public func entry(line: Int) -> ManifestEntry {
    ManifestEntry(
      line: line, text: manifestLine, operation: operation, url: url, mirrors: mirrors,
      path: path, method: method, size: size, headers: headers, manifestDigests: digests,
      resumable: resumable)
  }

  /// The JSON object a manifest would give this transfer on one line.
  public var manifestLine: String {
    var object = JSONObject()
    object.add("url", url.absoluteString)
    object.add("path", path)
    if operation == .upload {
      object.add("op", operation.rawValue)
      if let resumable {
        object.add("resumable", resumable.rawValue)
      } else {
        object.add("method", method)
      }
    }
    if let size { object.add("size", size) }
    for (algorithm, hex) in digests { object.add(name: algorithm.rawValue, hex) }
    if !headers.isEmpty {
      var fields = JSONObject()
      for header in headers { fields.add(name: header.name, header.value) }
      object.addRaw("headers", fields.json)
    }
    if !mirrors.isEmpty { object.add("mirrors", mirrors.map(\.absoluteString)) }
    return object.json
  }

  /// `url` if a manifest would accept it as `field`, with its scheme in lower case.
  private static func checkedURL(_ url: URL, field: String) throws(ManifestLineError) -> URL {
    try ManifestURL.parse(url.absoluteString, field: field).get()
  }

  /// `digests` in lower case, when each has its algorithm's length in hex digits.
  private static func checkedDigests(_ digests: DigestValues) throws(ManifestLineError)
    -> DigestValues
  {
    var checked = DigestValues()
    for (algorithm, hex) in digests {
      guard let normal = Hex.normalized(hex, length: algorithm.hexLength) else {
        throw ManifestLineError("\"\(algorithm)\" must be \(algorithm.hexLength) hex digits")
      }
      checked[algorithm] = normal
    }
    return checked
  }

  /// `headers`, when every one may be given by a user and no name is given twice.
  private static func checkedHeaders(_ headers: [HTTPField]) throws(ManifestLineError)
    -> [HTTPField]
  {
    var names = Set<String>()
    for header in headers {
      if let problem = header.userHeaderProblem { throw ManifestLineError(problem) }
      // As in a manifest's `headers` object, where a name is a JSON key: exact, not folded.
      guard names.insert(header.name).inserted else {
        throw ManifestLineError("header \(ManifestText.quoted(header.name)) is given twice")
      }
    }
    return headers
  }
}
