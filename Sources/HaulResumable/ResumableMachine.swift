import Foundation
import HaulCore

/// One attempt at an upload through a resumable protocol, as a value that `ResumableUpload`
/// drives: each answer the driver reports returns the next step. `TusMachine` and
/// `IETFUploadMachine` build their protocol's requests and read its answers; what they
/// share (the upload resource, the offset, the common transitions) is their
/// `ResumableAttempt`.
protocol ResumableMachine: Sendable {
  /// The protocol's fields on every request.
  static var headers: [HTTPField] { get }

  /// A machine that goes on from `attempt` (made with this protocol's `headers`).
  init(attempt: ResumableAttempt)

  /// The attempt as both protocols see it.
  var attempt: ResumableAttempt { get set }

  /// Starts the attempt; `recorded` is the upload resource an earlier attempt or run made.
  mutating func start(recorded: URL?) -> ResumableStep

  /// An interim answer (`1xx`) to the request out.
  mutating func interim(_ head: ResponseHead)

  /// The final answer to the request of the last `send` step.
  mutating func answered(_ head: ResponseHead) -> ResumableStep
}

extension ResumableMachine {
  /// The upload resource, once known.
  var location: URL? { attempt.location }
  /// What the server acknowledged.
  var offset: Int64 { attempt.offset }

  /// A new attempt at sending `size` bytes named `fileName` to the creation endpoint
  /// `creationURL`, at most `chunkSize` bytes a request.
  init(creationURL: URL, size: Int64, fileName: String, chunkSize: Int64) {
    self.init(
      attempt: ResumableAttempt(
        creationURL: creationURL, size: size, fileName: fileName, chunkSize: chunkSize,
        headers: Self.headers))
  }

  /// The cancellation (`DELETE`) of an upload resource recorded at `location`, without an
  /// attempt.
  static func cancellation(at location: URL) -> ResumableRequest {
    ResumableRequest("DELETE", location, headers: headers)
  }

  /// Interim answers mean nothing to a protocol that does not read them.
  mutating func interim(_ head: ResponseHead) {}

  /// The request of the last `send` step failed without a final answer.
  mutating func exchangeFailed(_ error: TransferError) -> ResumableStep {
    attempt.exchangeFailed(error)
  }

  /// The request that cancels the upload resource (tus termination, the draft's `DELETE`),
  /// when there is one.
  func cancellation() -> ResumableRequest? {
    attempt.cancellation()
  }
}

extension ResumableProtocol {
  /// The machine that speaks this protocol.
  var machine: any ResumableMachine.Type {
    switch self {
    case .tus: TusMachine.self
    case .ietf: IETFUploadMachine.self
    }
  }
}
