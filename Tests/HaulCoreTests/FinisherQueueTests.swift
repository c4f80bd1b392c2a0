import Synchronization
import Testing

@testable import HaulCore

#if canImport(Glibc)
  import Glibc
#endif

/// `FinisherQueue`, the finisher's work as a value: every item is run by one thread, no item
/// waits while every thread sleeps, and threads leave only once stopped with nothing queued.
/// Then `FileFinisher` carrying it out on real threads.
@Suite("FinisherQueue and FileFinisher")
struct FinisherQueueTests {
  @Test func items_start_threads_up_to_the_limit_then_wait_for_a_running_one() {
    var queue = FinisherQueue<Int>(limit: 2)
    #expect(queue.submit(1) == .startThread)
    #expect(queue.submit(2) == .startThread)
    #expect(queue.submit(3) == .none)
    #expect(queue.threads == 2)
    #expect(queue.waiting == 3)
  }

  @Test func threads_take_items_in_the_order_submitted_then_sleep() {
    var queue = FinisherQueue<Int>(limit: 1)
    _ = queue.submit(1)
    _ = queue.submit(2)
    guard case .run(1) = queue.next(), case .run(2) = queue.next() else {
      Issue.record("the items come in the order submitted")
      return
    }
    guard case .sleep = queue.next() else {
      Issue.record("a thread with nothing to run sleeps")
      return
    }
    #expect(queue.sleepers == 1)
    #expect(queue.waiting == 0)
  }

  @Test func an_item_wakes_one_sleeper_and_counts_it_off() {
    var queue = FinisherQueue<Int>(limit: 4)
    _ = queue.submit(1)
    _ = queue.next()
    _ = queue.next()
    #expect(queue.sleepers == 1)
    #expect(queue.submit(2) == .wakeOne)
    #expect(queue.sleepers == 0)
    // The next item, with the sleeper already asked to wake and no other asleep, starts a
    // thread rather than wake the same one twice.
    #expect(queue.submit(3) == .startThread)
    #expect(queue.threads == 2)
  }

  @Test func a_thread_that_woke_to_an_item_another_took_sleeps_again() {
    var queue = FinisherQueue<Int>(limit: 2)
    _ = queue.submit(1)
    _ = queue.submit(2)
    _ = queue.next()
    _ = queue.next()
    _ = queue.next()  // the first thread sleeps
    #expect(queue.submit(3) == .wakeOne)
    guard case .run(3) = queue.next() else {  // the second thread, done with its item
      Issue.record("a running thread takes the item")
      return
    }
    guard case .sleep = queue.next() else {  // the woken one finds nothing
      Issue.record("the woken thread sleeps again")
      return
    }
    #expect(queue.sleepers == 1)
  }

  @Test func stop_wakes_the_sleepers_and_threads_leave_once_nothing_waits() {
    var queue = FinisherQueue<Int>(limit: 2)
    _ = queue.submit(1)
    _ = queue.submit(2)
    _ = queue.next()
    _ = queue.next()
    _ = queue.next()
    #expect(queue.stop() == 1)
    #expect(queue.sleepers == 0)
    guard case .leave = queue.next() else {
      Issue.record("a stopped thread with nothing to run leaves")
      return
    }
    #expect(queue.threads == 1)
    // An item submitted after the stop still gets a thread.
    #expect(queue.submit(4) == .startThread)
    guard case .run(4) = queue.next(), case .leave = queue.next() else {
      Issue.record("the late item runs, then its thread leaves")
      return
    }
  }

  @Test func a_thread_that_could_not_start_is_not_counted() {
    var queue = FinisherQueue<Int>(limit: 1)
    #expect(queue.submit(1) == .startThread)
    queue.threadFailed()
    #expect(queue.threads == 0)
    #expect(queue.take() == 1)
    #expect(queue.submit(2) == .startThread)
  }

  @Test func the_finisher_runs_every_item_on_at_most_its_threads_and_returns_results() async {
    let finisher = FileFinisher()
    let count = 200
    let seen = Seen()
    let results = await withTaskGroup(of: Int.self) { group in
      for index in 0..<count {
        group.addTask {
          await finisher.perform {
            seen.items.withLock { _ = $0.insert(index) }
            seen.threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            return index * 2
          }
        }
      }
      var sum = 0
      for await value in group { sum += value }
      return sum
    }
    #expect(results == (0..<count).reduce(0) { $0 + $1 * 2 })
    await finisher.stop()
    #expect(seen.items.withLock { $0.count } == count)
    #expect((1...FileFinisher.threads).contains(seen.threads.withLock { $0.count }))
  }

  @Test func stop_returns_once_every_item_submitted_before_has_run() async {
    let finisher = FileFinisher()
    let seen = Seen()
    for index in 0..<100 {
      finisher.submit {
        usleep(100)
        seen.items.withLock { _ = $0.insert(index) }
      }
    }
    await finisher.stop()
    #expect(seen.items.withLock { $0.count } == 100)
  }

  /// The items that ran, and the threads they ran on.
  final class Seen: Sendable {
    let items = Mutex(Set<Int>())
    let threads = Mutex(Set<UInt>())
  }
}
