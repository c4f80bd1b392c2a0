import Foundation

/// One call to the daemon's API, as `CurlCall` sends it.
struct DaemonRequest: Sendable {
  /// `GET`, `POST`, `PATCH` or `DELETE`.
  var method: String
  /// The path and query, already percent-encoded (`/v1/jobs/ID/entries?state=failed`).
  var path: String
  /// The JSON body, for `POST` and `PATCH`.
  var body: Data?
  /// What the answer should be: JSON, or for the event stream `text/event-stream`.
  var accept = "application/json"
  /// For the event stream: the id of the last event the client has, sent as `Last-Event-ID`.
  var lastEventID: Int64?

  init(_ method: String, _ path: String, body: Data? = nil) {
    self.method = method
    self.path = path
    self.body = body
  }

  /// The event stream, resumed after `lastEventID` when given; without the entries that
  /// started or ended well when `failuresOnly`.
  static func events(after lastEventID: Int64?, failuresOnly: Bool = false) -> DaemonRequest {
    var request = DaemonRequest("GET", failuresOnly ? "/v1/events?entries=failed" : "/v1/events")
    request.accept = "text/event-stream"
    request.lastEventID = lastEventID
    return request
  }
}
