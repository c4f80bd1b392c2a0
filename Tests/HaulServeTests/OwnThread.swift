import Foundation

/// Runs `body` on a thread of its own and awaits it: work that blocks for seconds stays off
/// Swift's cooperative pool, where it would hold up the tests running beside it.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}
