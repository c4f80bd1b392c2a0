import Testing

@testable import HaulCore

/// The room a folder's downloads may take without asking the file system again.
@Suite("Room budget")
struct RoomBudgetTests {
  @Test func half_of_the_free_space_is_taken_unasked_and_nothing_beyond_it() {
    let budget = RoomBudget()
    // Nothing is known at first: the first file asks
    #expect(!budget.take(1))
    // After a look that found 100 bytes free and took 10, 40 more go unasked
    budget.refill(free: 100, taking: 10)
    #expect(budget.take(30))
    #expect(budget.take(10))
    #expect(!budget.take(1))
    // A file larger than what is left takes nothing from it
    budget.refill(free: 100, taking: 0)
    #expect(!budget.take(51))
    #expect(budget.take(50))
    budget.refill(free: UInt64.max, taking: Int64.max)
    #expect(!budget.take(1))
  }
}
