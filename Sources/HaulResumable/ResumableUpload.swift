import Foundation
import HaulCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One attempt at an upload through a resumable protocol (`TusMachine`,
/// `IETFUploadMachine`): carries out the machine's steps, each request through its
/// `UploadContext`, and keeps the upload's URL in `ResumableState` under the output
/// directory's `.haul/uploads/` (`UploadStateFile`).
///
/// Every attempt, first or retry, in this run or a later one, starts from the recorded upload
/// when the source file is unchanged, and the machine asks the server for its offset; only
/// the bytes from there are sent. A failed attempt leaves the upload for the next one and
/// says so in its message; with `abortIncomplete` it cancels it (tus termination, the
/// draft's `DELETE`) and removes the state instead.
///
/// The run's and the entry's own header fields go to the endpoint's origin only: an upload
/// URL the server names on another origin gets the protocol's fields alone. Runs in the
/// entry's task, holding its one slot.
struct ResumableUpload {
  let upload: UploadContext
  let kind: ResumableProtocol
  let options: ResumableOptions

  private var statePath: String {
    ResumableState.path(
      directory: upload.outputDirectory, kind: kind, url: upload.url, path: upload.entry.path)
  }

  func run() async -> Result<Void, AttemptFailure> {
    let file: UploadSource
    switch upload.inspectSource() {
    case .success(let inspected): file = inspected
    case .failure(let failure): return .failure(failure)
    }
    var machine = kind.machine.init(
      creationURL: upload.url, size: file.size,
      fileName: (upload.entry.path as NSString).lastPathComponent, chunkSize: options.chunkSize)
    let recorded = await recordedUpload(of: file)
    var saved = (location: recorded, offset: Int64(-1))
    var step = machine.start(recorded: recorded)
    while true {
      if machine.location != saved.location || machine.offset != saved.offset {
        saved = (machine.location, machine.offset)
        if let failure = save(machine, of: file) { return .failure(failure) }
      }
      switch step {
      case .finished:
        ResumableState.remove(statePath)
        upload.progress.store(file.size)
        return .success(())
      case .failed(var failure):
        if machine.location != nil {
          _ = save(machine, of: file)
          if options.abortIncomplete, let cancel = machine.cancellation() {
            _ = await exchange(cancel)
            ResumableState.remove(statePath)
            failure.error.message += "; the upload was cancelled on the server"
          } else {
            failure.error.message +=
              "; the upload is kept on the server: the next attempt sends only what it lacks"
          }
        }
        return .failure(failure)
      case .send(let request):
        upload.progress.store(machine.offset)
        let sink = ResumableAnswerSink(progress: upload.progress)
        let result = await exchange(request, sink: sink)
        for head in sink.interim { machine.interim(head) }
        switch result {
        case .success(let head): step = machine.answered(head)
        case .failure(let error): step = machine.exchangeFailed(error)
        }
      }
    }
  }

  /// The upload resource an earlier attempt or run recorded for this entry, `nil` when there
  /// is none; one of a file that changed since is cancelled on the server and forgotten,
  /// since the bytes there are of another file.
  private func recordedUpload(of file: UploadSource) async -> URL? {
    guard let state = ResumableState.read(statePath), state.protocolName == kind.rawValue,
      state.url == upload.url.absoluteString, let recorded = URL(string: state.location)
    else { return nil }
    guard state.size != file.size || state.modified != file.modified else { return recorded }
    _ = await exchange(kind.machine.cancellation(at: recorded))
    ResumableState.remove(statePath)
    return nil
  }

  // MARK: Requests

  /// Sends `request`, with the file's bytes it names as the body; the final head, or why
  /// there is none.
  private func exchange(_ request: ResumableRequest, sink: ResumableAnswerSink? = nil) async
    -> Result<ResponseHead, TransferError>
  {
    var transfer = upload.request(request.url, method: request.method)
    if Self.origin(request.url) != Self.origin(upload.url) { transfer.headers = [] }
    var headers = request.headers
    var body: RequestBody?
    if let range = request.body, !range.isEmpty {
      body = RequestBody(path: upload.source, offset: range.lowerBound, length: Int64(range.count))
      if request.checksumSHA1 {
        do throws(TransferError) {
          headers.append(
            HTTPField("Upload-Checksum", "sha1 \(try Self.sha1(upload.source, range: range))"))
        } catch {
          return .failure(error)
        }
      }
    }
    transfer.headers += headers
    transfer.body = body
    let answers = sink ?? ResumableAnswerSink(progress: ProgressCounter())
    do throws(TransferError) {
      let response = try await upload.send(transfer, sink: answers, countsAttempt: true)
      return .success(response.head)
    } catch {
      return .failure(error)
    }
  }

  /// The SHA-1 of the bytes of `path` in `range`, in base64 (tus's `Upload-Checksum`).
  private static func sha1(_ path: String, range: Range<Int64>) throws(TransferError) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileErrors.error(errno, "cannot read the upload's file") }
    defer { close(fd) }
    let digest = StreamingDigest(.sha1)
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    let length = range.count
    var done = 0
    while done < length {
      let count = pread(
        fd, buffer.baseAddress, min(buffer.count, length - done),
        off_t(range.lowerBound + Int64(done)))
      if count < 0, errno == EINTR { continue }
      guard count > 0 else {
        throw TransferError(.io, "the upload's file shrank while it was sent")
      }
      digest.update(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
      done += count
    }
    var raw: [UInt8] = []
    Hex.appendDecoded(digest.finalize(), to: &raw)
    return Data(raw).base64EncodedString()
  }

  /// Records the machine's upload URL and acknowledged offset; the failure, if it cannot.
  private func save(_ machine: any ResumableMachine, of file: UploadSource) -> AttemptFailure? {
    guard let location = machine.location else {
      ResumableState.remove(statePath)
      return nil
    }
    let state = ResumableState(
      protocolName: kind.rawValue, url: upload.url.absoluteString,
      location: location.absoluteString, size: file.size, modified: file.modified,
      offset: machine.offset)
    do throws(TransferError) {
      try state.write(to: statePath)
      return nil
    } catch {
      return AttemptFailure(error: error)
    }
  }

  /// Scheme, host and port: what "the same origin" compares.
  private static func origin(_ url: URL) -> String {
    "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
  }
}
