/// The work of `FileFinisher` as a value: the items waiting, and its threads — how many
/// run, how many sleep — so that every item submitted is run by exactly one thread and no
/// item waits while all threads sleep. The finisher carries out what each step returns
/// (start a thread, wake one, run an item, sleep, leave) after leaving its lock.
struct FinisherQueue<Item> {
  /// What `submit` asks of the finisher.
  enum Submitted: Equatable, Sendable {
    /// Start one more thread: none sleeps, and fewer than the limit run.
    case startThread
    /// Wake one sleeping thread (it was counted off the sleepers already).
    case wakeOne
    /// Nothing: a running thread takes the item when it is done with its own.
    case none
  }

  /// What a thread does next.
  enum Step {
    case run(Item)
    /// Sleep until woken (counted among the sleepers).
    case sleep
    /// Leave: the finisher was stopped and nothing waits.
    case leave
  }

  let limit: Int
  private var items: [Item] = []
  /// The index in `items` of the next item to run; `items` is emptied once all have run.
  private var head = 0
  /// Threads started and not yet left.
  private(set) var threads = 0
  /// Threads asleep (or about to sleep), not yet asked to wake.
  private(set) var sleepers = 0
  private(set) var stopped = false

  /// A queue run by at most `limit` threads.
  init(limit: Int) {
    self.limit = max(1, limit)
  }

  /// Items waiting for a thread.
  var waiting: Int { items.count - head }

  /// Queues `item`.
  mutating func submit(_ item: Item) -> Submitted {
    items.append(item)
    if sleepers > 0 {
      sleepers -= 1
      return .wakeOne
    }
    guard threads < limit else { return .none }
    threads += 1
    return .startThread
  }

  /// A thread asks for work: after it started, after each item, after it woke.
  mutating func next() -> Step {
    if let item = take() { return .run(item) }
    if stopped {
      threads -= 1
      return .leave
    }
    sleepers += 1
    return .sleep
  }

  /// Lets threads leave once nothing waits; returns how many sleepers to wake for that.
  mutating func stop() -> Int {
    stopped = true
    let woken = sleepers
    sleepers = 0
    return woken
  }

  /// A thread `submit` asked for could not be started: the caller runs what waits itself
  /// (`take`).
  mutating func threadFailed() {
    threads -= 1
  }

  /// The next item, if any.
  mutating func take() -> Item? {
    guard head < items.count else { return nil }
    let item = items[head]
    head += 1
    if head == items.count {
      items.removeAll(keepingCapacity: true)
      head = 0
    }
    return item
  }
}

extension FinisherQueue.Step: Sendable where Item: Sendable {}
