import Foundation

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

  init(_ upload: UploadContext, kind: ResumableProtocol, options: ResumableOptions) {
    self.upload = upload
    self.kind = kind
    self.options = options
  }

  private var entry: ManifestEntry { upload.entry }
  private var url: URL { upload.url }
  private var source: String { upload.source }

  private var statePath: String {
    ResumableState.path(
      directory: upload.outputDirectory, kind: kind, url: url, path: entry.path)
  }

  func run() async -> Result<Void, AttemptFailure> {
    var info = stat()
    guard stat(source, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      return .failure(AttemptFailure(error: FileErrors.error(errno, "cannot read \(entry.path)")))
    }
    let size = Int64(info.st_size)
    let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    upload.progress.store(expected: size)
    var machine = Machine(
      kind, url: url, size: size, name: (entry.path as NSString).lastPathComponent,
      chunkSize: options.chunkSize)
    var recorded: URL?
    if let state = ResumableState.read(statePath), state.protocolName == kind.rawValue,
      state.url == url.absoluteString
    {
      recorded = URL(string: state.location)
      if state.size != size || state.modified != modified {
        // The file changed: the bytes on the server are of another file.
        if let recorded, let cancel = Machine.cancellation(kind, at: recorded) {
          _ = await exchange(cancel)
        }
        ResumableState.remove(statePath)
        recorded = nil
      }
    }
    var saved = (location: recorded, offset: Int64(-1))
    var step = machine.start(recorded: recorded)
    while true {
      if machine.location != saved.location || machine.offset != saved.offset {
        saved = (machine.location, machine.offset)
        if let failure = save(machine, size: size, modified: modified) { return .failure(failure) }
      }
      switch step {
      case .finished:
        ResumableState.remove(statePath)
        upload.progress.store(size)
        return .success(())
      case .failed(var failure):
        if machine.location != nil {
          _ = save(machine, size: size, modified: modified)
          if options.abortIncomplete, let cancel = machine.cancellation {
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

  // MARK: Requests

  /// Sends `request`, with the file's bytes it names as the body; the final head, or why
  /// there is none.
  private func exchange(_ request: ResumableRequest, sink: ResumableAnswerSink? = nil) async
    -> Result<ResponseHead, TransferError>
  {
    var transfer = upload.request(request.url, method: request.method)
    if Self.origin(request.url) != Self.origin(url) { transfer.headers = [] }
    var headers = request.headers
    var body: RequestBody?
    if let range = request.body, !range.isEmpty {
      body = RequestBody(path: source, offset: range.lowerBound, length: Int64(range.count))
      if request.checksumSHA1 {
        do throws(TransferError) {
          headers.append(
            HTTPField("Upload-Checksum", "sha1 \(try Self.sha1(source, range: range))"))
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
  private func save(_ machine: Machine, size: Int64, modified: Double) -> AttemptFailure? {
    guard let location = machine.location else {
      ResumableState.remove(statePath)
      return nil
    }
    let state = ResumableState(
      protocolName: kind.rawValue, url: url.absoluteString, location: location.absoluteString,
      size: size, modified: modified, offset: machine.offset)
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

  // MARK: The machines

  /// The machine of `kind`, behind one set of calls.
  private enum Machine {
    case tus(TusMachine)
    case ietf(IETFUploadMachine)

    init(_ kind: ResumableProtocol, url: URL, size: Int64, name: String, chunkSize: Int64) {
      switch kind {
      case .tus:
        self = .tus(TusMachine(creationURL: url, size: size, fileName: name, chunkSize: chunkSize))
      case .ietf:
        self = .ietf(
          IETFUploadMachine(creationURL: url, size: size, fileName: name, chunkSize: chunkSize))
      }
    }

    var location: URL? {
      switch self {
      case .tus(let machine): machine.location
      case .ietf(let machine): machine.location
      }
    }

    var offset: Int64 {
      switch self {
      case .tus(let machine): machine.offset
      case .ietf(let machine): machine.offset
      }
    }

    var cancellation: ResumableRequest? {
      switch self {
      case .tus(let machine): machine.termination()
      case .ietf(let machine): machine.cancellation()
      }
    }

    /// The cancellation of an upload recorded at `location`, without a machine.
    static func cancellation(_ kind: ResumableProtocol, at location: URL) -> ResumableRequest? {
      var machine = Machine(kind, url: location, size: 0, name: "", chunkSize: 1)
      _ = machine.start(recorded: location)
      return machine.cancellation
    }

    mutating func start(recorded: URL?) -> ResumableStep {
      switch self {
      case .tus(var machine):
        let step = machine.start(recorded: recorded)
        self = .tus(machine)
        return step
      case .ietf(var machine):
        let step = machine.start(recorded: recorded)
        self = .ietf(machine)
        return step
      }
    }

    mutating func interim(_ head: ResponseHead) {
      if case .ietf(var machine) = self {
        machine.interim(head)
        self = .ietf(machine)
      }
    }

    mutating func answered(_ head: ResponseHead) -> ResumableStep {
      switch self {
      case .tus(var machine):
        let step = machine.answered(head)
        self = .tus(machine)
        return step
      case .ietf(var machine):
        let step = machine.answered(head)
        self = .ietf(machine)
        return step
      }
    }

    mutating func exchangeFailed(_ error: TransferError) -> ResumableStep {
      switch self {
      case .tus(var machine):
        let step = machine.exchangeFailed(error)
        self = .tus(machine)
        return step
      case .ietf(var machine):
        let step = machine.exchangeFailed(error)
        self = .ietf(machine)
        return step
      }
    }
  }
}
