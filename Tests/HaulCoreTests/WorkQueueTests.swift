import HaulCore
import Testing

@Suite("Work queue: a run's work on its way into the run's task group")
struct WorkQueueTests {
  typealias Queue = WorkQueue<String, String>

  /// The items of a `.start`, else `nil`.
  private func started(_ next: Queue.Next?) -> [String]? {
    guard case .start(let items)? = next else { return nil }
    return items
  }

  private func isCancel(_ next: Queue.Next?) -> Bool {
    guard case .cancel? = next else { return false }
    return true
  }

  private func isFinished(_ next: Queue.Next?) -> Bool {
    guard case .finished? = next else { return false }
    return true
  }

  @Test func items_added_before_the_owner_asks_are_taken_together_in_order() {
    var queue = Queue()
    #expect(queue.add("a", kind: .task).added)
    #expect(queue.add("b", kind: .timer).added)
    #expect(started(queue.take("owner")) == ["a", "b"])
    #expect(queue.take("owner") == nil)
  }

  @Test func an_item_added_while_the_owner_waits_resumes_it_with_that_item() {
    var queue = Queue()
    #expect(queue.take("owner") == nil)
    let (added, resume) = queue.add("a", kind: .task)
    #expect(added)
    #expect(resume?.owner == "owner")
    #expect(started(resume?.next) == ["a"])
    // The owner was handed over once: the next item waits for it to ask again.
    #expect(queue.add("b", kind: .task).resume == nil)
    #expect(started(queue.take("owner")) == ["b"])
  }

  @Test func an_item_is_counted_from_its_adding_to_its_end_whether_or_not_it_started() {
    var queue = Queue()
    _ = queue.add("a", kind: .task)
    _ = queue.add("b", kind: .task)
    _ = queue.add("t", kind: .timer)
    #expect(queue.tasks == 2 && queue.timers == 1)
    // An item may end before the owner asks again: it was counted, so nothing goes below zero.
    _ = queue.take("owner")
    queue.ended(.task)
    queue.ended(.timer)
    #expect(queue.tasks == 1 && queue.timers == 0)
    queue.ended(.task)
    #expect(queue.tasks == 0)
    #expect(queue.tasksAdded == 2)
  }

  @Test func cancelling_a_waiting_owner_resumes_it_to_cancel_and_later_items_still_come() {
    var queue = Queue()
    #expect(queue.take("owner") == nil)
    let resume = queue.cancel()
    #expect(resume?.owner == "owner")
    #expect(isCancel(resume?.next))
    #expect(queue.cancelled)
    #expect(queue.cancel() == nil)
    // An entry ended by the cancellation still runs its task, to record how it ended.
    #expect(queue.add("late", kind: .task).added)
    #expect(started(queue.take("owner")) == ["late"])
  }

  @Test func a_cancel_while_the_owner_is_busy_is_told_before_the_items_that_wait() {
    var queue = Queue()
    _ = queue.add("a", kind: .task)
    #expect(queue.cancel() == nil)
    #expect(isCancel(queue.take("owner")))
    #expect(started(queue.take("owner")) == ["a"])
    #expect(queue.take("owner") == nil)
  }

  @Test func a_closed_queue_hands_over_what_is_left_then_finishes_and_takes_nothing_new() {
    var queue = Queue()
    _ = queue.add("a", kind: .task)
    #expect(queue.close() == nil)
    #expect(started(queue.take("owner")) == ["a"])
    #expect(isFinished(queue.take("owner")))
    let late = queue.add("late", kind: .timer)
    #expect(!late.added && late.resume == nil)
    #expect(queue.timers == 0)
  }

  @Test func closing_resumes_a_waiting_owner_to_finish() {
    var queue = Queue()
    #expect(queue.take("owner") == nil)
    let resume = queue.close()
    #expect(resume?.owner == "owner")
    #expect(isFinished(resume?.next))
  }
}
