import Foundation
import HaulCore

/// One attempt at an upload to the S3 endpoint in parts: `CreateMultipartUpload`, an
/// `UploadPart` per part not yet on the server, `CompleteMultipartUpload`; resumed across
/// runs from `S3MultipartState`.
///
/// A rerun (or a retry) reads the state, asks the server which parts it holds (`ListParts`,
/// page by page), and sends only the others; a source whose size or modification time
/// changed since aborts the old upload (`AbortMultipartUpload`) and starts over, as does an
/// upload the server no longer knows (`NoSuchUpload`). A failed attempt leaves the upload
/// and its state for the next one, and says so in its message; with `abortIncomplete` the
/// entry aborts it once it has failed for good (`abandon`), never at an attempt it retries.
///
/// Parts go up to `partConcurrency` at once, each sent straight from its range of the
/// source (`RequestBody` with an offset: no copy), in a slot of its own, through the
/// `UploadContext`: signed as every request to the endpoint is, with the part's bytes
/// counted in the entry's progress (see `S3MultipartUpload+Parts.swift`). The state records
/// a part once the server has acknowledged it, never before. Runs in the entry's task, as
/// the upload strategy `S3MultipartOptions` starts it.
struct S3MultipartUpload {
  let upload: UploadContext
  let options: S3MultipartOptions

  var url: URL { upload.url }
  var statePath: String {
    S3MultipartState.path(directory: upload.outputDirectory, url: url, path: upload.entry.path)
  }

  func run() async -> Result<Void, AttemptFailure> {
    switch upload.inspectSource() {
    case .failure(let failure): return .failure(failure)
    case .success(let file): return await send(file)
    }
  }

  /// Resumes the recorded upload of `file` or creates one, then sends what the server lacks.
  private func send(_ file: UploadSource) async -> Result<Void, AttemptFailure> {
    let (size, modified) = (file.size, file.modified)
    let partSize = options.partSize(for: size)
    var state: S3MultipartState
    switch await resumable(size: size, modified: modified, partSize: partSize) {
    case .success(let found?):
      state = found
    case .success(nil):
      switch await create(size: size, modified: modified, partSize: partSize) {
      case .success(let created): state = created
      case .failure(let failure): return .failure(failure)
      }
    case .failure(let failure):
      return .failure(failure)
    }
    switch await send(&state, size: size) {
    case .success:
      S3MultipartState.remove(statePath)
      return .success(())
    case .failure(var failure):
      if !options.abortIncomplete {
        failure.error.message +=
          "; the multipart upload is kept (\(state.parts.count) parts sent): "
          + "a rerun sends only the missing parts"
      }
      return .failure(failure)
    }
  }

  /// Aborts the upload recorded for this entry and URL, if any, and removes its state:
  /// `--abort-incomplete` once the entry has failed for good. Takes a slot for the request.
  /// Whether an upload was aborted.
  func abandon() async -> Bool {
    guard let state = S3MultipartState.read(statePath), state.url == url.absoluteString else {
      return false
    }
    let host = upload.host
    guard await upload.acquireSlot(host: host) else { return false }
    _ = await exchange("DELETE", query: [("uploadId", state.uploadID)])
    upload.releaseSlot(host: host)
    S3MultipartState.remove(statePath)
    return true
  }

  // MARK: Steps

  /// The recorded upload, its parts as the server lists them, when it can go on; `nil` when
  /// there is none to resume (none recorded, the source changed, the server forgot it).
  private func resumable(size: Int64, modified: Double, partSize: Int64) async
    -> Result<S3MultipartState?, AttemptFailure>
  {
    guard var state = S3MultipartState.read(statePath), state.url == url.absoluteString else {
      return .success(nil)
    }
    guard state.size == size, state.modified == modified, state.partSize == partSize else {
      _ = await exchange("DELETE", query: [("uploadId", state.uploadID)])
      S3MultipartState.remove(statePath)
      return .success(nil)
    }
    var listed: [S3MultipartState.Part] = []
    var marker: String?
    while true {
      var query = [("uploadId", state.uploadID)]
      if let marker { query.append(("part-number-marker", marker)) }
      let body: [UInt8]
      switch await exchange("GET", query: query) {
      case .success(let answer): body = answer.body
      case .failure(let failure) where failure.error.code == .http(404):
        S3MultipartState.remove(statePath)
        return .success(nil)
      case .failure(let failure): return .failure(failure)
      }
      var rest = body[...]
      while let part = S3XML.element(bytesOf: "Part", in: rest) {
        rest = rest[part.endIndex...]
        guard let number = S3XML.element("PartNumber", in: part).flatMap({ Int($0) }),
          let etag = S3XML.element("ETag", in: part),
          let length = S3XML.element("Size", in: part).flatMap({ Int64($0) }),
          length == Self.length(ofPart: number, size: size, partSize: partSize)
        else { continue }
        listed.append(.init(number: number, etag: etag))
      }
      guard S3XML.element("IsTruncated", in: body[...]) == "true",
        let next = S3XML.element("NextPartNumberMarker", in: body[...]), next != marker
      else { break }
      marker = next
    }
    state.parts = listed
    return .success(state)
  }

  private func create(size: Int64, modified: Double, partSize: Int64) async
    -> Result<S3MultipartState, AttemptFailure>
  {
    switch await exchange("POST", query: [("uploads", "")]) {
    case .failure(let failure):
      return .failure(failure)
    case .success(let answer):
      guard let id = S3XML.element("UploadId", in: answer.body[...]), !id.isEmpty else {
        return .failure(Self.protocolFailure("CreateMultipartUpload gave no UploadId"))
      }
      let state = S3MultipartState(
        url: url.absoluteString, uploadID: id, size: size, modified: modified,
        partSize: partSize, parts: [])
      do throws(TransferError) {
        try state.write(to: statePath)
      } catch {
        return .failure(AttemptFailure(error: error))
      }
      return .success(state)
    }
  }

  /// Sends the parts the state lacks (`sendParts`), then completes the upload.
  private func send(_ state: inout S3MultipartState, size: Int64) async -> Result<
    Void, AttemptFailure
  > {
    let count = Int(max(1, (size + state.partSize - 1) / state.partSize))
    let done = Set(state.parts.map(\.number))
    let missing = (1...count).filter { !done.contains($0) }
    upload.progress.store(Self.acknowledgedBytes(state, size: size))
    if !missing.isEmpty {
      let host = upload.host
      upload.releaseSlot(host: host)
      let failure = await sendParts(missing, of: &state, size: size, host: host)
      let reacquired = await upload.acquireSlot(host: host)
      if let failure { return .failure(failure) }
      guard reacquired else { return .failure(upload.cancelled) }
    }
    return await complete(state)
  }

  /// Sends `CompleteMultipartUpload` with every part of `state`, its list of parts from
  /// memory (nothing of it is written to disk).
  private func complete(_ state: S3MultipartState) async -> Result<Void, AttemptFailure> {
    var xml = "<CompleteMultipartUpload>"
    for part in state.parts.sorted(by: { $0.number < $1.number }) {
      xml += "<Part><PartNumber>\(part.number)</PartNumber>"
      xml += "<ETag>\(S3XML.escape(part.etag))</ETag></Part>"
    }
    xml += "</CompleteMultipartUpload>"
    switch await exchange(
      "POST", query: [("uploadId", state.uploadID)], body: RequestBody(bytes: Array(xml.utf8)),
      headers: [HTTPField("Content-Type", "application/xml")])
    {
    case .failure(let failure):
      return .failure(failure)
    case .success(let answer):
      // S3 may answer 200 and then an error document, once it has worked on the parts.
      if S3XML.element("CompleteMultipartUploadResult", in: answer.body[...]) == nil,
        let code = S3XML.element("Code", in: answer.body[...])
      {
        var failure = Self.protocolFailure("CompleteMultipartUpload failed (\(code))")
        failure.transient = code == "InternalError" || code == "SlowDown"
        return .failure(failure)
      }
      return .success(())
    }
  }

  // MARK: Requests

  struct S3Answer {
    var head: ResponseHead
    var body: [UInt8]
  }

  /// One request to the object's URL with `query`; a non-2xx answer is the failure its
  /// status (and S3 error code) makes. `countsProgress`: a part's, whose bytes sent count in
  /// the entry's progress.
  func exchange(
    _ method: String, query: [(String, String)], body: RequestBody? = nil,
    headers: [HTTPField] = [], countsProgress: Bool = false
  ) async -> Result<S3Answer, AttemptFailure> {
    let encoded = query.map { "\(S3URIEncoding.encode($0.0))=\(S3URIEncoding.encode($0.1))" }
    guard let target = URL(string: url.absoluteString + "?" + encoded.joined(separator: "&"))
    else { return .failure(Self.protocolFailure("the upload's URL cannot take a query")) }
    var request = upload.request(target, method: method, headers: headers)
    request.body = body
    let sink = MemoryAnswerSink(
      limit: Self.answerLimit, errorBodies: upload.errorBodies,
      progress: countsProgress ? upload.progress : nil)
    let response: TransferResponse
    do throws(TransferError) {
      // A part runs beside the others: a credential re-sent after a 401 is not counted on
      // the entry's attempts from there (the S3 interceptor re-sends none).
      response = try await upload.send(request, sink: sink, countsAttempt: !countsProgress)
    } catch {
      return .failure(AttemptFailure(error: error))
    }
    guard (200..<300).contains(response.head.status) else {
      var failure = AttemptFailure.http(response.head, body: sink.errorBody)
      failure.answered = true
      return .failure(failure)
    }
    return .success(S3Answer(head: response.head, body: sink.body))
  }

  // MARK: Helpers

  /// A larger answer fails its request: a `ListParts` page of 1,000 parts stays far below.
  static let answerLimit = 16 << 20

  /// The length of part `number` (from 1) of a file of `size` bytes.
  static func length(ofPart number: Int, size: Int64, partSize: Int64) -> Int64 {
    let start = Int64(number - 1) * partSize
    return max(0, min(partSize, size - start))
  }

  static func protocolFailure(_ message: String) -> AttemptFailure {
    AttemptFailure(error: TransferError(.protocol, message), answered: true)
  }
}
