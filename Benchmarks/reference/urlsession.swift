// Benchmarks/reference/urlsession.swift: what corelibs' URLSession itself reaches, beside
// which Benchmarks/run shows `haul --transport urlsession` (issue 22). As plain as a user's
// program: one ephemeral session, async/await, N transfers in flight.
//
//   urlsession-ref get LIST [-j N]       data(from:), each body written to its file
//   urlsession-ref download LIST [-j N]  download(from:), the temporary file moved into place
//   urlsession-ref put LIST [-j N]       upload(for:fromFile:) as a PUT
//   urlsession-ref put-delegate LIST [-j N]
//                                        uploadTask(with:fromFile:) as a PUT on a session with
//                                        a task delegate that counts the bytes sent, as a
//                                        program that shows upload progress or decides its
//                                        redirects must have: corelibs then reports every
//                                        chunk sent to the delegate's queue
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
  case putDelegate = "put-delegate"
}

/// The task delegate of `put-delegate`: counts each task's bytes sent and resumes the task's
/// waiter when it completes.
final class Progress: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private let lock = NSLock()
  private var waiters: [Int: CheckedContinuation<URLResponse, Error>] = [:]
  private var sent: [Int: Int64] = [:]

  func wait(for task: URLSessionTask) async throws -> URLResponse {
    try await withCheckedThrowingContinuation { continuation in
      lock.withLock { waiters[task.taskIdentifier] = continuation }
      task.resume()
    }
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
    totalBytesSent: Int64, totalBytesExpectedToSend: Int64
  ) {
    lock.withLock { sent[task.taskIdentifier, default: 0] += bytesSent }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    let waiter = lock.withLock { waiters.removeValue(forKey: task.taskIdentifier) }
    if let error {
      waiter?.resume(throwing: error)
    } else if let response = task.response {
      waiter?.resume(returning: response)
    } else {
      waiter?.resume(throwing: Failure(description: "no response"))
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
      FileHandle.standardError.write(
        Data("usage: urlsession-ref get|download|put|put-delegate LIST [-j N]\n".utf8))
      exit(2)
    }
    let jobs = text.split(separator: "\n").map { line -> (URL, String) in
      let fields = line.split(separator: "\t", maxSplits: 1)
      return (URL(string: String(fields[0]))!, String(fields[1]))
    }
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = inFlight
    let progress = Progress()
    let session =
      mode == .putDelegate
      ? URLSession(configuration: configuration, delegate: progress, delegateQueue: nil)
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
          group.addTask { try await transfer(mode, url, path, session, progress) }
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
    _ mode: Mode, _ url: URL, _ path: String, _ session: URLSession, _ progress: Progress
  ) async throws {
    let file = URL(fileURLWithPath: path)
    let response: URLResponse
    switch mode {
    case .get:
      let (data, answer) = try await session.data(from: url)
      try check(answer, url)
      try data.write(to: file)
      return
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
      response = try await progress.wait(for: session.uploadTask(with: request, fromFile: file))
    }
    try check(response, url)
  }

  static func check(_ response: URLResponse, _ url: URL) throws {
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else {
      throw Failure(description: "\(url): HTTP \(status)")
    }
  }
}
