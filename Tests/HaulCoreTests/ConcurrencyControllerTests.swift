import HaulCore
import Testing

/// Drives a `ConcurrencyController` against a modelled server: a link whose rate grows with
/// the transfers in flight up to a knee and stays flat after it, time in fixed ticks.
@Suite("-j auto: the concurrency controller finds the level where the link saturates")
struct ConcurrencyControllerTests {
  /// A server that completes `perTransfer` files per second for each transfer in flight,
  /// up to `knee` transfers (then `knee × perTransfer` in all); each file is 16 KiB.
  struct ModelServer {
    var knee: Int
    var perTransfer: Double = 10
    /// Answers 503 to every attempt while more than this are in flight.
    var overloadAbove: Int?

    func filesPerSecond(inFlight: Int) -> Double {
      Double(min(inFlight, knee)) * perTransfer
    }
  }

  /// Runs the model for `seconds` and returns the limits the controller chose, one per tick.
  func run(
    _ server: ModelServer, seconds: Double, bound: Bool = true,
    controller: inout ConcurrencyController
  ) -> [Int] {
    let tick = 0.05
    var now = 0.0
    var bytes: Int64 = 0
    var carried = 0.0
    var limits: [Int] = []
    while now < seconds {
      now += tick
      carried += server.filesPerSecond(inFlight: controller.limit) * tick
      let done = Int(carried)
      carried -= Double(done)
      let overload = server.overloadAbove.map { controller.limit > $0 } ?? false
      for _ in 0..<done { controller.attemptEnded(overload: overload) }
      bytes += Int64(done) * 16_384
      _ = controller.tick(now: now, bytes: bytes, bound: bound)
      limits.append(controller.limit)
    }
    return limits
  }

  @Test func it_climbs_while_the_link_scales_and_stops_near_the_knee() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let limits = run(ModelServer(knee: 100), seconds: 20, controller: &controller)
    #expect(limits.max()! >= 100)
    // Settled: not above twice the knee, and never below it for long.
    #expect(controller.limit >= 64)
    #expect(controller.limit <= 200)
  }

  @Test func it_reaches_the_ceiling_on_a_link_that_keeps_scaling() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    _ = run(ModelServer(knee: 10_000), seconds: 10, controller: &controller)
    #expect(controller.limit == 256)
  }

  @Test func after_a_doubling_that_scaled_in_proportion_it_quadruples() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let limits = run(ModelServer(knee: 10_000), seconds: 3, controller: &controller)
    var levels: [Int] = []
    for limit in limits where levels.last != limit { levels.append(limit) }
    #expect(Array(levels.prefix(4)) == [16, 32, 128, 256])
  }

  @Test func it_keeps_the_initial_level_on_a_link_saturated_there() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let limits = run(ModelServer(knee: 16), seconds: 10, controller: &controller)
    // Probes above may happen, but the level it comes back to is the initial one.
    #expect(controller.limit == 16)
    #expect(limits.filter { $0 == 16 }.count * 2 > limits.count)
  }

  @Test func a_limit_that_bounds_nothing_is_left_alone() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    _ = run(ModelServer(knee: 10_000), seconds: 10, bound: false, controller: &controller)
    #expect(controller.limit == 16)
  }

  @Test func pushback_halves_the_level_down_to_the_floor() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    let limits = run(
      ModelServer(knee: 10_000, overloadAbove: 32), seconds: 20, controller: &controller)
    #expect(limits.max()! <= 128)
    #expect(controller.limit <= 64)
    #expect(controller.limit >= 4)
  }

  @Test func the_rate_counts_bytes_too_so_large_files_climb_as_well() {
    var controller = ConcurrencyController(now: 0, bytes: 0)
    var now = 0.0
    var bytes: Int64 = 0
    // Few completions, but bytes per second that double with each doubling of the limit.
    for _ in 0..<400 {
      now += 0.05
      bytes += Int64(controller.limit) * 1 << 20
      _ = controller.tick(now: now, bytes: bytes, bound: true)
    }
    #expect(controller.limit > 16)
  }

  @Test func the_rate_gain_takes_whichever_of_files_or_bytes_grew_more() {
    let slow = ConcurrencyController.Rate(files: 100, bytes: 1_000)
    let moreFiles = ConcurrencyController.Rate(files: 200, bytes: 1_000)
    let moreBytes = ConcurrencyController.Rate(files: 100, bytes: 3_000)
    #expect(moreFiles.gain(over: slow) == 2)
    #expect(moreBytes.gain(over: slow) == 3)
  }
}
