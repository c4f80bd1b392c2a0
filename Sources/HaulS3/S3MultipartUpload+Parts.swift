import HaulCore

/// The parts of a multipart upload in parallel: up to `partConcurrency` `UploadPart`s at once,
/// each straight from its range of the source and in a slot of its own, each recorded in the
/// state as the server acknowledges it.
extension S3MultipartUpload {
  /// How one part's request ended.
  enum PartResult: Sendable {
    case sent(S3MultipartState.Part)
    case failed(AttemptFailure)
  }

  /// Sends the parts `numbers` of `state`'s upload, up to `options.partConcurrency` at once,
  /// each taking a slot for `host` (the caller holds none meanwhile), so `-j` and
  /// `--per-host` bound them too. Each acknowledged part is added to `state` and the state
  /// written at once, also after another part failed: a `kill -9` loses at most the parts in
  /// flight, which the next run finds through `ListParts` or sends again. The first failure
  /// stops the parts not yet started and cancels those in flight; it is returned.
  func sendParts(
    _ numbers: [Int], of state: inout S3MultipartState, size: Int64, host: Int
  ) async -> AttemptFailure? {
    let uploadID = state.uploadID
    let partSize = state.partSize
    return await withTaskGroup(of: PartResult.self) { group in
      var pending = numbers.makeIterator()
      for _ in 0..<options.partConcurrency {
        guard let number = pending.next() else { break }
        group.addTask {
          await sendPart(number, uploadID: uploadID, partSize: partSize, size: size, host: host)
        }
      }
      var first: AttemptFailure?
      for await result in group {
        switch result {
        case .sent(let part):
          state.parts.append(part)
          upload.progress.store(Self.acknowledgedBytes(state, size: size))
          do throws(TransferError) {
            try state.write(to: statePath)
          } catch {
            if first == nil {
              first = AttemptFailure(error: error)
              group.cancelAll()
            }
          }
        case .failed(let failure):
          if first == nil {
            first = failure
            group.cancelAll()
          }
        }
        if first == nil, let number = pending.next() {
          group.addTask {
            await sendPart(number, uploadID: uploadID, partSize: partSize, size: size, host: host)
          }
        }
      }
      return first
    }
  }

  /// Sends part `number` from its range of the source, in a slot of its own for `host`.
  private func sendPart(
    _ number: Int, uploadID: String, partSize: Int64, size: Int64, host: Int
  ) async -> PartResult {
    guard await upload.acquireSlot(host: host) else { return .failed(upload.cancelled) }
    let body = RequestBody(
      path: upload.source, offset: Int64(number - 1) * partSize,
      length: Self.length(ofPart: number, size: size, partSize: partSize))
    let answer = await exchange(
      "PUT", query: [("partNumber", "\(number)"), ("uploadId", uploadID)], body: body,
      countsProgress: true)
    upload.releaseSlot(host: host)
    switch answer {
    case .failure(let failure):
      return .failed(failure)
    case .success(let answer):
      guard let etag = answer.head.value(for: "ETag"), !etag.isEmpty else {
        return .failed(Self.protocolFailure("UploadPart gave no ETag"))
      }
      return .sent(.init(number: number, etag: etag))
    }
  }

  /// The bytes of the parts `state` records, for the entry's progress.
  static func acknowledgedBytes(_ state: S3MultipartState, size: Int64) -> Int64 {
    state.parts.reduce(0) { $0 + length(ofPart: $1.number, size: size, partSize: state.partSize) }
  }
}
