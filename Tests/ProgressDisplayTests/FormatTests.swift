import Testing

@testable import haul

/// The figures people read in the progress display and the summary.
@Suite struct FormatTests {
  @Test func bytes_keep_three_significant_digits_in_binary_units() {
    #expect(Format.bytes(0) == "0 B")
    #expect(Format.bytes(1023) == "1023 B")
    #expect(Format.bytes(1536) == "1.50 KiB")
    #expect(Format.bytes(1024 * 1024 - 1) == "1024 KiB")
    #expect(Format.bytes(12_900_000) == "12.3 MiB")
    #expect(Format.bytes(150 << 20) == "150 MiB")
    #expect(Format.bytes(1 << 30) == "1.00 GiB")
    #expect(Format.rate(2.5 * 1024 * 1024) == "2.50 MiB/s")
  }

  @Test func durations_round_to_tenths_then_whole_seconds_then_minutes() {
    #expect(Format.duration(0) == "0.0 s")
    #expect(Format.duration(0.04) == "0.0 s")
    #expect(Format.duration(14.26) == "14.3 s")
    #expect(Format.duration(125) == "2 min 05 s")
    #expect(Format.duration(3725) == "1 h 02 min")
  }

  @Test func clocks_pad_minutes_and_seconds_to_two_digits() {
    #expect(Format.clock(nil) == "--:--")
    #expect(Format.clock(7) == "0:07")
    #expect(Format.clock(723) == "12:03")
    #expect(Format.clock(3723) == "1:02:03")
  }
}
