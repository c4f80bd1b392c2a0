// Benchmarks/reference/urlsession.swift: what corelibs' URLSession itself reaches, beside
// which Benchmarks/run shows `haul --transport urlsession` (issue 22). As plain as a user's
// program: one ephemeral session, async/await, N transfers in flight.
//
//   urlsession-ref get LIST [-j N]       data(from:), each body written to its file
//   urlsession-ref get-delegate LIST [-j N]
//                                        a data task on a session with a task delegate that
//                                        writes each chunk to the file as it arrives, as a
//                                        program that streams bodies to disk must
//   urlsession-ref download LIST [-j N]  download(from:), the temporary file moved into place
//   urlsession-ref put LIST [-j N]       upload(for:fromFile:) as a PUT
//   urlsession-ref put-delegate LIST [-j N]
//                                        uploadTask(with:fromFile:) as a PUT on a session with
//                                        a task delegate that counts the bytes sent, as a
//                                        program that shows upload progress or decides its
//                                        redirects must have: corelibs then reports every
//                                        chunk sent to the delegate's queue
//   urlsession-ref put-stream LIST [-j N]
//                                        data(for:) as a PUT whose body is the file's
//                                        InputStream(fileAtPath:), with its Content-Length and
//                                        a blank Transfer-Encoding field (libcurl then sends
//                                        the body unframed, not chunked): a file body without
//                                        corelibs' file source
//   urlsession-ref put-stream-delegate LIST [-j N]
//                                        the same through a session whose task delegate
//                                        counts the bytes sent, as put-delegate does: the
//                                        stream body where a delegate is needed, as haul's is
//
// LIST holds one transfer per line: a URL, a tab, a path (where a body goes, or the file to
// upload). N defaults to 16; the session allows N connections per host. Exits 1 on the first
// failed transfer or answer other than 2xx.
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

struct Failure: Error, CustomStringConvertible {
  let description: String
}

enum Mode: String {
  case get, download, put
  case getDelegate = "get-delegate"
  case putDelegate = "put-delegate"
  case putStream = "put-stream"
  case putStreamDelegate = "put-stream-delegate"
}

/// The task delegate of the `-delegate` modes: writes each body chunk received to the task's
/// file (`get-delegate`), counts each task's bytes sent (`put-delegate`), and resumes the
/// task's waiter when it completes.
final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private struct Waiter {
    var continuation: CheckedContinuation<URLResponse, Error>
    var file: FileHandle?
  }
  private let lock = NSLock()
  private var waiters: [Int: Waiter] = [:]
  private var sent: [Int: Int64] = [:]

  /// Resumes `task` and waits for its answer; a body received goes to `file`.
  func wait(for task: URLSessionTask, writingTo file: FileHandle? = nil) async throws
    -> URLResponse
  {
    try await withCheckedThrowingContinuation { continuation in
      lock.withLock {
        waiters[task.taskIdentifier] = Waiter(continuation: continuation, file: file)
      }
      task.resume()
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let file = lock.withLock { waiters[dataTask.taskIdentifier]?.file }
    file?.write(data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    lock.withLock { sent[task.taskIdentifier, default: 0] += bytesSent }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    guard let waiter = lock.withLock({ waiters.removeValue(forKey: task.taskIdentifier) }) else {
      return
    }
    try? waiter.file?.close()
    if let error {
      waiter.continuation.resume(throwing: error)
    } else if let response = task.response {
      waiter.continuation.resume(returning: response)
    } else {
      waiter.continuation.resume(throwing: Failure(description: "no response"))
    }
  }
}

@main
struct Reference {
  static func main() async {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var inFlight = 16
    if let flag = arguments.firstIndex(of: "-j"), flag + 1 < arguments.count,
      let value = Int(arguments[flag + 1]), value > 0
    {
      inFlight = value
      arguments.removeSubrange(flag...flag + 1)
    }
    guard arguments.count == 2, let mode = Mode(rawValue: arguments[0]),
      let text = try? String(contentsOfFile: arguments[1], encoding: .utf8)
    else {
      let modes = "get|get-delegate|download|put|put-delegate|put-stream|put-stream-delegate"
      FileHandle.standardError.write(Data("usage: urlsession-ref \(modes) LIST [-j N]\n".utf8))
      exit(2)
    }
    let jobs = text.split(separator: "\n").map { line -> (URL, String) in
      let fields = line.split(separator: "\t", maxSplits: 1)
      return (URL(string: String(fields[0]))!, String(fields[1]))
    }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = inFlight
    let delegate = Delegate()
    let session =
      [.getDelegate, .putDelegate, .putStreamDelegate].contains(mode)
      ? URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
      : URLSession(configuration: configuration)
    do {
      try await withThrowingTaskGroup(of: Void.self) { group in
        var next = jobs.makeIterator()
        var running = 0
        while let (url, path) = next.next() {
          if running == inFlight {
            try await group.next()
            running -= 1
          }
          group.addTask { try await transfer(mode, url, path, session, delegate) }
          running += 1
        }
        try await group.waitForAll()
      }
    } catch {
      FileHandle.standardError.write(Data("urlsession-ref: \(error)\n".utf8))
      exit(1)
    }
    session.finishTasksAndInvalidate()
  }

  static func transfer(
    _ mode: Mode, _ url: URL, _ path: String, _ session: URLSession, _ delegate: Delegate
  ) async throws {
    let file = URL(fileURLWithPath: path)
    let response: URLResponse
    switch mode {
    case .get:
      let (data, answer) = try await session.data(from: url)
      try check(answer, url)
      try data.write(to: file)
      return
    case .getDelegate:
      guard FileManager.default.createFile(atPath: path, contents: nil),
        let handle = FileHandle(forWritingAtPath: path)
      else { throw Failure(description: "\(path): cannot create") }
      response = try await delegate.wait(
        for: session.dataTask(with: URLRequest(url: url)), writingTo: handle)
    case .download:
      let (temporary, answer) = try await session.download(from: url)
      try check(answer, url)
      try? FileManager.default.removeItem(at: file)
      try FileManager.default.moveItem(at: temporary, to: file)
      return
    case .put:
      var request = URLRequest(url: url)
      request.httpMethod = "PUT"
      (_, response) = try await session.upload(for: request, fromFile: file)
    case .putDelegate:
      var request = URLRequest(url: url)
      request.httpMethod = "PUT"
      response = try await delegate.wait(for: session.uploadTask(with: request, fromFile: file))
    case .putStream:
      (_, response) = try await session.data(for: streamed(path, to: url))
    case .putStreamDelegate:
      response = try await delegate.wait(for: session.dataTask(with: streamed(path, to: url)))
    }
    try check(response, url)
  }

  /// A PUT of the file at `path` to `url` whose body is the file's `InputStream`, its
  /// `Content-Length` stated and a blank `Transfer-Encoding` field (libcurl then sends the
  /// body unframed, not chunked).
  static func streamed(_ path: String, to url: URL) throws -> URLRequest {
    var status = stat()
    guard stat(path, &status) == 0, let stream = InputStream(fileAtPath: path) else {
      throw Failure(description: "\(path): cannot open")
    }
    var request = URLRequest(url: url)
    request.httpMethod = "PUT"
    request.httpBodyStream = stream
    request.setValue(String(status.st_size), forHTTPHeaderField: "Content-Length")
    request.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
    return request
  }

  static func check(_ response: URLResponse, _ url: URL) throws {
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else {
      throw Failure(description: "\(url): HTTP \(status)")
    }
  }
}
