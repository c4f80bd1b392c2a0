import Foundation
import HaulCore
import Synchronization

/// A scripted transport: answers each request from a closure, delivering the body to the
/// sink as a real transport would. Only for the scheduler's decisions; transfers themselves
/// are proven against real servers in TransportConformanceTests and CLITests. It carries no
/// jobs, so a run sends every attempt from a task; `ScriptedEngine` is the same script
/// carried as an engine.
///
/// Not final: `ScriptedEngine` is this transport with an engine thread. Its state is behind
/// one lock.
// unchecked: not final (`ScriptedEngine`), so not checkable; its state is behind `state`'s lock.
public class ScriptedTransport: Transport, @unchecked Sendable {
  /// The answer to one request.
  public struct Answer: Sendable {
    public var status: Int
    public var headers: [HTTPField]
    public var body: [UInt8]
    /// The exchange's error: thrown before the head when there is no body, after the body
    /// otherwise (a connection that broke mid-body).
    public var error: TransferError?

    public init(
      status: Int, headers: [HTTPField] = [], body: [UInt8] = [], error: TransferError? = nil
    ) {
      self.status = status
      self.headers = headers
      self.body = body
      self.error = error
    }
  }

  public let name = "scripted"
  /// Answers a request, given with its number among those sent (from 1).
  let script: @Sendable (TransferRequest, Int) -> Answer
  private struct State {
    var requests: [TransferRequest] = []
    var inFlight = 0
    var maxInFlight = 0
    var inFlightPerHost: [String: Int] = [:]
    var maxInFlightPerHost: [String: Int] = [:]
  }
  private let state = Mutex(State())

  public init(_ script: @escaping @Sendable (TransferRequest, Int) -> Answer) {
    self.script = script
  }

  /// Every request sent, in order.
  public var requests: [TransferRequest] { state.withLock { $0.requests } }
  /// The most requests that were in flight at once, over every host.
  public var maxInFlight: Int { state.withLock { $0.maxInFlight } }
  /// The most requests that were in flight at once to each host.
  public var maxInFlightPerHost: [String: Int] { state.withLock { $0.maxInFlightPerHost } }

  public func perform(_ request: TransferRequest, sink: any ResponseSink)
    async throws(TransferError) -> TransferResponse
  {
    let number = began(request)
    defer { ended(request) }
    try? await Task.sleep(for: .milliseconds(2))
    return try answer(request, number: number, into: sink)
  }

  public func shutdown() async {}

  /// Records `request` as sent and in flight; returns its number.
  func began(_ request: TransferRequest) -> Int {
    let host = request.url.host ?? ""
    return state.withLock { state in
      state.requests.append(request)
      state.inFlight += 1
      state.maxInFlight = max(state.maxInFlight, state.inFlight)
      state.inFlightPerHost[host, default: 0] += 1
      state.maxInFlightPerHost[host] = max(
        state.maxInFlightPerHost[host] ?? 0, state.inFlightPerHost[host] ?? 0)
      return state.requests.count
    }
  }

  /// Records `request` as no longer in flight.
  func ended(_ request: TransferRequest) {
    let host = request.url.host ?? ""
    state.withLock { state in
      state.inFlight -= 1
      state.inFlightPerHost[host, default: 1] -= 1
    }
  }

  /// Delivers the script's answer to request number `number` into `sink`.
  func answer(_ request: TransferRequest, number: Int, into sink: any ResponseSink)
    throws(TransferError) -> TransferResponse
  {
    let answer = script(request, number)
    if let error = answer.error, answer.body.isEmpty { throw error }
    let length =
      answer.headers.value(for: "Content-Length") == nil
      ? [HTTPField("Content-Length", "\(answer.body.count)")] : []
    let head = ResponseHead(status: answer.status, headers: answer.headers + length)
    var delivered: Int64 = 0
    if try sink.receive(head: head) {
      let result = answer.body.withUnsafeBytes { bytes -> Result<Void, TransferError> in
        do throws(TransferError) {
          try sink.receive(body: bytes)
          return .success(())
        } catch {
          return .failure(error)
        }
      }
      try result.get()
      delivered = Int64(answer.body.count)
    }
    if let error = answer.error { throw error }
    return TransferResponse(head: head, bodyBytes: delivered)
  }
}
