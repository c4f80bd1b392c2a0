import Foundation

extension DaemonClient {
  /// Runs one exchange on a thread of its own and answers its response, throwing the
  /// daemon's error for a status other than 2xx.
  ///
  /// Cancellation: the task's cancellation handler cancels the call's `CallControl`, which
  /// wakes the thread; libcurl stops the transfer and the call throws `.cancelled`.
  func exchange(_ request: DaemonRequest) async throws(DaemonError) -> DaemonResponse {
    let control = CallControl()
    let address = address
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation {
        (continuation: CheckedContinuation<Result<DaemonResponse, DaemonError>, Never>) in
        let thread = Thread {
          let call = CurlCall(address: address, request: request, control: control)
          continuation.resume(returning: call.perform())
        }
        thread.name = "haul-client-call"
        thread.start()
      }
    } onCancel: {
      control.cancel()
    }
    let response = try result.get()
    guard response.isSuccess else { throw response.apiError }
    return response
  }

  /// Runs one exchange and decodes its JSON answer.
  func call<Answer: Decodable>(
    _ method: String, _ path: String, body: Data? = nil, as type: Answer.Type
  ) async throws(DaemonError) -> Answer {
    let response = try await exchange(DaemonRequest(method, path, body: body))
    return try DaemonJSON.decode(type, from: response.body, what: "\(method) \(path)")
  }

  /// `/v1/jobs/ID` and, given, a further segment (`pause`, `entries`).
  static func jobPath(_ id: String, _ segment: String? = nil) -> String {
    let path = "/v1/jobs/" + escaped(id)
    return segment.map { path + "/" + $0 } ?? path
  }

  /// `text` percent-encoded as one path segment or query value: everything but ASCII
  /// letters, digits and `-._~` is escaped, so an id cannot reach another route.
  static func escaped(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
  }

  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// The body of `POST /v1/jobs`.
struct SubmitBody: Encodable {
  var manifest: String?
  var urls: [String]?
  var manifestFile: String?
  var output: String?
  var options: [String: JobOption]
  /// Sent only when set: a job is queued running unless asked otherwise.
  var paused: Bool?

  private enum CodingKeys: String, CodingKey {
    case manifest, urls, output, options, paused
    case manifestFile = "manifest_file"
  }

  init(
    manifest: String? = nil, urls: [String]? = nil, manifestFile: String? = nil,
    output: String?, options: [String: JobOption], paused: Bool
  ) {
    self.manifest = manifest
    self.urls = urls
    self.manifestFile = manifestFile
    self.output = output
    self.options = options
    self.paused = paused ? true : nil
  }
}

/// The body of `PATCH /v1/jobs/ID`.
struct ChangeBody: Encodable {
  var position: Int?
  var options: [String: JobOption]?
}

/// The answer of `GET /v1/jobs`.
struct JobList: Decodable {
  var jobs: [Job]
}

/// The answer of `GET /v1/jobs/ID/entries`.
struct EntryList: Decodable {
  var entries: [JobEntry]
}
