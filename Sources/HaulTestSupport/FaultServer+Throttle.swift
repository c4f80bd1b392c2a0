extension FaultServer {
  /// Admits a request of the `throttle=K` route: `true` when at most `limit` such requests
  /// are in flight with it, and then `leaveThrottled()` must follow once it is answered;
  /// `false` when there would be more, and the request is answered 429 without being
  /// counted. A server that sheds load per client, for testing "Polite per host".
  func enterThrottled(limit: Int) -> Bool {
    shared.withLock { s in
      guard s.throttledInFlight < limit else { return false }
      s.throttledInFlight += 1
      return true
    }
  }

  /// Ends a request that `enterThrottled(limit:)` admitted.
  func leaveThrottled() {
    shared.withLock { $0.throttledInFlight -= 1 }
  }
}
