import Testing

@testable import HaulCurl

/// What the stream gate lets into libcurl, what it holds, and what it lets go once a
/// connection told its protocol or an exchange left: numbers stand for exchanges.
@Suite("StreamGate: an HTTP/2 origin's exchanges go in as its connections have streams")
struct StreamGateTests {
  let origin = "example.org:443"

  /// A gate of `streams` streams per connection, with exchanges 1... admitted to `origin`
  /// in order; returns the gate and the ones it let in.
  private func gate(streams: Int, admitting count: Int) -> (StreamGate<Int>, [Int]) {
    var gate = StreamGate<Int>(streamsPerConnection: streams)
    let admitted = (1...count).filter { gate.admit($0, to: origin) }
    return (gate, admitted)
  }

  @Test func an_exchange_with_no_origin_to_gate_always_passes() {
    var gate = StreamGate<Int>(streamsPerConnection: 1)
    #expect((1...5).allSatisfy { gate.admit($0, to: nil) })
    #expect(gate.takeReady() == [])
  }

  @Test func before_an_origin_told_its_protocol_only_its_first_exchange_goes_in() {
    var (gate, admitted) = gate(streams: 2, admitting: 4)
    #expect(admitted == [1])
    // Another origin is gated on its own.
    let otherIn = gate.admit(9, to: "other.org:443")
    #expect(otherIn)
    #expect(gate.takeReady() == [])
  }

  @Test func an_http2_connection_lets_in_its_streams_and_one_opener_of_the_next() {
    var (gate, _) = gate(streams: 2, admitting: 5)
    gate.connected(1, opened: true, multiplexes: true)
    // Exchange 2 takes the connection's second stream; 3 opens the next connection.
    #expect(gate.takeReady() == [2, 3])
    // Nothing more until 3's connection is up, even as a stream comes free.
    gate.left(2)
    #expect(gate.takeReady() == [])
    let sixIn = gate.admit(6, to: origin)
    #expect(!sixIn)
    gate.connected(3, opened: true, multiplexes: true)
    // Two connections, four streams: 1 and 3 hold two; 4 and 5 take the others; 6 opens.
    #expect(gate.takeReady() == [4, 5, 6])
  }

  @Test func streams_that_come_free_let_the_oldest_held_exchange_in() {
    var (gate, _) = gate(streams: 2, admitting: 4)
    gate.connected(1, opened: true, multiplexes: true)
    #expect(gate.takeReady() == [2, 3])
    // The opener (3) still waits for its connection and counts against the first one's
    // streams: one stream free is not room yet, two are.
    gate.left(1)
    #expect(gate.takeReady() == [])
    gate.left(2)
    #expect(gate.takeReady() == [4])
  }

  @Test func a_reused_connection_adds_no_streams() {
    var (gate, _) = gate(streams: 1, admitting: 3)
    gate.connected(1, opened: true, multiplexes: true)
    #expect(gate.takeReady() == [2])
    // 2 found a connection to reuse rather than opening one: still one connection, so 3
    // goes in to open the next and 4 waits for it.
    gate.connected(2, opened: false, multiplexes: false)
    gate.left(1)
    #expect(gate.takeReady() == [3])
    let fourIn = gate.admit(4, to: origin)
    #expect(!fourIn)
  }

  @Test func an_http11_connection_opens_the_gate_for_good() {
    var (gate, _) = gate(streams: 2, admitting: 3)
    gate.connected(1, opened: true, multiplexes: false)
    #expect(gate.takeReady() == [2, 3])
    #expect((4...10).allSatisfy { gate.admit($0, to: origin) })
  }

  @Test func an_origin_whose_only_exchange_left_before_it_told_is_forgotten() {
    var (gate, _) = gate(streams: 2, admitting: 1)
    gate.left(1)
    // The next exchange opens a connection of its own, as the first did.
    let twoIn = gate.admit(2, to: origin)
    #expect(twoIn)
    let threeIn = gate.admit(3, to: origin)
    #expect(!threeIn)
  }

  @Test func an_exchange_not_counted_in_changes_nothing_as_it_connects_or_leaves() {
    var (gate, _) = gate(streams: 2, admitting: 2)
    gate.connected(2, opened: true, multiplexes: true)
    gate.left(2)
    gate.left(7)
    #expect(gate.takeReady() == [])
    gate.connected(1, opened: true, multiplexes: true)
    #expect(gate.takeReady() == [2])
  }

  @Test func a_held_exchange_is_released_once_and_only_when_held() {
    var (gate, _) = gate(streams: 2, admitting: 3)
    let released = gate.release(2, from: origin)
    #expect(released)
    let releasedAgain = gate.release(2, from: origin)
    let releasedInside = gate.release(1, from: origin)
    let releasedWithoutOrigin = gate.release(3, from: nil)
    #expect(!releasedAgain && !releasedInside && !releasedWithoutOrigin)
    gate.connected(1, opened: true, multiplexes: true)
    #expect(gate.takeReady() == [3])
  }

  @Test func release_all_takes_the_matching_held_exchanges_and_keeps_the_others_in_order() {
    var (gate, _) = gate(streams: 1, admitting: 6)
    #expect(gate.releaseAll { $0.isMultiple(of: 2) }.sorted() == [2, 4, 6])
    gate.connected(1, opened: true, multiplexes: false)
    #expect(gate.takeReady() == [3, 5])
  }
}
