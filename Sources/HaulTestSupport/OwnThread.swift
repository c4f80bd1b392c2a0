import Foundation

/// Runs `work`, which blocks (a wait for a server to listen, for a process to end), on a
/// thread of its own instead of one of Swift concurrency's cooperative threads. A machine
/// with 2 cores has only 2 of those: two fixtures starting at once would stall every other
/// test for seconds, and a test that watches a running haul to kill it would miss its moment.
public func onOwnThread<T: Sendable>(
  _ work: @escaping @Sendable () throws -> T
) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try work() }) }.start()
  }
}

/// Starts a fixture with `start` and stops it with `stop`, both on a thread of their own
/// (see `onOwnThread`), and runs `body` with it in between, however `body` ends.
public func withFixture<Fixture: Sendable, T>(
  start: @escaping @Sendable () throws -> Fixture, stop: @escaping @Sendable (Fixture) -> Void,
  _ body: (Fixture) async throws -> T
) async throws -> T {
  let fixture = try await onOwnThread(start)
  let result: Result<T, any Error>
  do {
    result = .success(try await body(fixture))
  } catch {
    result = .failure(error)
  }
  _ = try? await onOwnThread { stop(fixture) }
  return try result.get()
}
