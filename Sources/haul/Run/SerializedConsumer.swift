import HaulCore

/// The run's `EventConsumer` as the scheduler's event handler reaches it, without a lock of
/// its own: the scheduler calls its handler one event at a time, under the run's event lock
/// (`Scheduler.run(_:onEvent:)`), so a second lock per event would only cost. The consumer is
/// read once the run has returned, when no call is left.
// unchecked: the scheduler's event lock orders every call; the CLI reads it after the run.
final class SerializedConsumer: @unchecked Sendable {
  private(set) var consumer: EventConsumer

  init(_ consumer: EventConsumer) {
    self.consumer = consumer
  }

  /// Hands `event` to the consumer; called by the scheduler's serialized handler only.
  func consume(_ event: TransferEvent) {
    consumer.consume(event)
  }
}
