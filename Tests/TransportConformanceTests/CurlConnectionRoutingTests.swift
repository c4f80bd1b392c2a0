import Foundation
import HaulCore
import HaulCurl
import HaulTestSupport
import Synchronization
import Testing

/// `CurlTransport` with several loops keeps an HTTP/2 origin's exchanges on one loop, so that
/// its streams share that loop's connections, and tells a job that its connection multiplexes
/// as soon as the connection agreed on it, before the answer; an HTTP/1.1 origin runs on
/// every loop.
@Suite("CurlTransport: an https origin's connections across loops", .timeLimit(.minutes(1)))
struct CurlConnectionRoutingTests {
  /// One download as a job: records whether its connection was said to multiplex before
  /// its exchange ended, and reports its end on `ended`.
  final class DownloadJob: TransportJob, @unchecked Sendable {
    let request: TransferRequest
    let sink: FileTestSink
    let ended: AsyncStream<Int>.Continuation
    let index: Int
    /// Set on the loop thread before `ended` is told, read after.
    let multiplexes = Atomic<Bool>(false)
    let heardBeforeEnd = Atomic<Bool>(false)
    let status = Atomic<Int>(0)
    /// The loop thread its exchange ended on.
    let thread = Atomic<UInt>(0)

    init(_ url: URL, into path: String, index: Int, ended: AsyncStream<Int>.Continuation) throws {
      request = TransferRequest(url: url)
      sink = try FileTestSink(path: path)
      self.index = index
      self.ended = ended
    }

    /// Whether the job heard that its connection multiplexes before its exchange ended.
    var heardBeforeItsAnswer: Bool { heardBeforeEnd.load(ordering: .sequentiallyConsistent) }

    func begin() -> JobStep { .send(request, sink) }

    /// A connection that multiplexes is an https one: its TLS handshake took some time.
    func connectionMultiplexes(handshake: Double) {
      multiplexes.store(handshake > 0, ordering: .sequentiallyConsistent)
    }

    func exchangeEnded(_ result: Result<TransferResponse, TransferError>) -> JobStep {
      heardBeforeEnd.store(
        multiplexes.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
      status.store((try? result.get().head.status) ?? -1, ordering: .sequentiallyConsistent)
      thread.store(UInt(pthread_self()), ordering: .sequentiallyConsistent)
      ended.yield(index)
      return .done
    }
  }

  /// Runs `count` downloads as jobs through a curl transport with two loops, all started at
  /// once; returns the jobs once every one ended. `folder`: where nginx serves the files
  /// (`slow` sends each at 1 MB/s, so that 256 KiB files overlap).
  func download(
    _ count: Int, of size: Int64, under folder: String, from nginx: NginxFixture,
    in scratch: TemporaryDirectory
  ) async throws -> [DownloadJob] {
    let (ended, continuation) = AsyncStream<Int>.makeStream()
    var jobs: [DownloadJob] = []
    for index in 0..<count {
      let path = "\(folder)/f\(index).bin"
      _ = try nginx.createFile(path, size: size, seed: UInt64(200 + index))
      jobs.append(
        try DownloadJob(
          nginx.httpsURL("/" + path), into: scratch.file("f\(index)"), index: index,
          ended: continuation))
    }
    let transport = CurlTransport(
      options: TransportOptions(
        maxConnections: 16, maxConnectionsPerHost: 8,
        extraCACertificates: nginx.certificatePath, loops: 2))
    transport.start(jobs)
    var left = count
    for await _ in ended {
      left -= 1
      if left == 0 { break }
    }
    await transport.shutdown()
    return jobs
  }

  @Test func an_h2_origin_gets_one_connection_from_two_loops_and_hears_so_before_its_answer()
    async throws
  {
    try await withScratch { scratch in
      try await NginxFixture.with(tls: true, http2: true) { nginx in
        let jobs = try await download(8, of: 4096, under: "small", from: nginx, in: scratch)

        #expect(jobs.allSatisfy { $0.status.load(ordering: .sequentiallyConsistent) == 200 })
        let log = nginx.timingLog(atLeast: 8)
        #expect(log.allSatisfy { $0.version == "HTTP/2.0" }, "\(log.map(\.version))")
        // Started on both loops, the jobs' exchanges went to one: one connection.
        #expect(Set(log.map(\.connection)).count == 1, "\(log.map(\.connection))")
        #expect(Set(jobs.map { $0.thread.load(ordering: .sequentiallyConsistent) }).count == 1)
        // The exchange that opened it told its job before the answer came.
        let told = jobs.map(\.heardBeforeItsAnswer).reduce(0) { $0 + ($1 ? 1 : 0) }
        #expect(told == 1)
      }
    }
  }

  @Test func a_burst_beyond_one_connections_streams_opens_the_connections_it_needs_not_more()
    async throws
  {
    try await withScratch { scratch in
      try await NginxFixture.with(tls: true, http2: true) { nginx in
        // 250 exchanges at once, under 8 connections per host: 100 streams a connection.
        let jobs = try await download(250, of: 4096, under: "small", from: nginx, in: scratch)

        #expect(jobs.allSatisfy { $0.status.load(ordering: .sequentiallyConsistent) == 200 })
        let log = nginx.timingLog(atLeast: 250)
        #expect(log.allSatisfy { $0.version == "HTTP/2.0" })
        // Each further connection opened once the one before it was full, not one per
        // waiting exchange (libcurl alone opened all 8).
        let connections = Set(log.map(\.connection)).count
        #expect(connections <= 3, "\(connections) connections")
      }
    }
  }

  @Test func an_http_1_1_origin_gets_parallel_connections_and_is_never_said_to_multiplex()
    async throws
  {
    try await withScratch { scratch in
      try await NginxFixture.with(tls: true, http2: false) { nginx in
        // At 1 MB/s each, the eight are in flight together.
        let jobs = try await download(8, of: 256 << 10, under: "slow", from: nginx, in: scratch)

        #expect(jobs.allSatisfy { $0.status.load(ordering: .sequentiallyConsistent) == 200 })
        #expect(!jobs.contains { $0.multiplexes.load(ordering: .sequentiallyConsistent) })
        let log = nginx.timingLog(atLeast: 8)
        #expect(log.allSatisfy { $0.version == "HTTP/1.1" })
        // The first connection said HTTP/1.1: the exchanges waiting for it opened their own.
        #expect(Set(log.map(\.connection)).count >= 4, "\(log.map(\.connection))")
        #expect(TimedRequest.maxOverlap(log) >= 4, "\(log.map { ($0.start, $0.end) })")
        // Held on the loops they were started on while the first connection told, they ran
        // there, on both: the TLS work of an HTTP/1.1 origin is spread too.
        #expect(Set(jobs.map { $0.thread.load(ordering: .sequentiallyConsistent) }).count == 2)
        #expect(Set(log.map(\.connection)).count <= 8, "\(log.map(\.connection))")
      }
    }
  }
}
