import Foundation

/// Moves the bytes of one HTTP exchange between a server and the local disk.
///
/// haul has two implementations, `CurlTransport` (libcurl's multi interface on its own
/// thread) and `URLSessionTransport` (FoundationNetworking); both run the same conformance
/// suite. A transport performs exactly one request and returns the response as it is:
/// it does not follow redirects, retry, or judge the status code; the scheduler does all
/// that, once, for every transport.
///
/// Every transport must: stream the body to the sink as it arrives and never hold a whole
/// body in memory; stream an upload body from its file; send no `Accept-Encoding` and decode
/// nothing; use no cookies, no netrc, no proxy settings from files; verify TLS; fail with
/// `timeout` when no byte moves for `stallTimeout`; reject a header block over 256 KiB with
/// `protocol`; and stop promptly (with `cancelled`) when the calling task is cancelled.
public protocol Transport: Sendable {
  /// A short name for reports and benchmarks (`curl`, `urlsession`).
  var name: String { get }

  /// Performs one exchange. HTTP error statuses are returned, not thrown: only failures to
  /// complete the exchange throw (`connection`, `timeout`, `tls`, `protocol`, `cancelled`,
  /// or whatever the sink threw).
  func perform(_ request: TransferRequest, sink: any ResponseSink) async throws(TransferError)
    -> TransferResponse

  /// Releases the transport's resources. Call once, after the last `perform` returned.
  func shutdown() async
}

/// Options every transport honours when it is created.
public struct TransportOptions: Sendable, Hashable {
  /// Most connections open at once, over all hosts. 16 by default, as many as the
  /// scheduler's default `concurrency` runs transfers: more would stay idle (`haul run`
  /// gives its `-j`).
  public var maxConnections: Int
  /// Most connections open at once to one host. 8 by default, the scheduler's default
  /// `perHost`: a transfer in flight to a host never waits for a connection.
  public var maxConnectionsPerHost: Int
  /// A PEM file of extra CA certificates to trust besides the system's (`--cacert`); none
  /// by default: TLS is verified against the system's store.
  public var extraCACertificates: String?
  /// The largest response header block accepted, in bytes. 256 KiB by default, the limit
  /// every transport enforces (a larger block fails as `protocol`): far above what servers
  /// send, small enough that a hostile one cannot make haul hold much per transfer.
  public var maxHeaderBytes: Int
  /// One cap over all transfers together, in bytes per second (`--max-rate`); the transport
  /// charges a shared `TokenBucket` and pauses transfers rather than sleeping threads. None
  /// by default: as curl and wget, haul takes what the network gives unless asked not to.
  public var maxBytesPerSecond: Double?
  /// Threads that drive transfers, for a transport that has its own (`--loops`): more than
  /// one lets the work of many small files use more than one core. Each loop keeps its own
  /// connections, and the connection limits above apply per loop (the scheduler's slots
  /// are what bound a run). 1 by default, so that an embedding program gets one thread of
  /// the transport's, not one per core it did not ask for; `haul run` sets `defaultLoops`.
  public var loops: Int
  /// Which proxy each request goes through (`--proxy`, `--no-proxy`, the proxy variables);
  /// `.direct` by default: a library reads no proxy variables unless its caller does.
  /// A transport that cannot follow these rules says so in its documentation; the CLI
  /// refuses such a combination before it creates the transport.
  public var proxyRules: ProxyRules

  /// `haul run`'s default `loops`: one per core, so that the per-file work of small files
  /// spreads over the machine (loop counts compared: Benchmarks/results/HISTORY.md), and at
  /// most 4, since each loop keeps its own connections to every server.
  public static var defaultLoops: Int {
    max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
  }

  public init(
    maxConnections: Int = 16, maxConnectionsPerHost: Int = 8,
    extraCACertificates: String? = nil, maxHeaderBytes: Int = 256 * 1024,
    maxBytesPerSecond: Double? = nil, loops: Int = 1, proxyRules: ProxyRules = .direct
  ) {
    self.loops = loops
    self.proxyRules = proxyRules
    self.maxConnections = maxConnections
    self.maxConnectionsPerHost = maxConnectionsPerHost
    self.extraCACertificates = extraCACertificates
    self.maxHeaderBytes = maxHeaderBytes
    self.maxBytesPerSecond = maxBytesPerSecond
  }
}
