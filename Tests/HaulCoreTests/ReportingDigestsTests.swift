import Foundation
import Testing

@testable import HaulCore

@Suite("Report and events: digests and verified")
struct ReportingDigestsTests {
  static let sha256 = String(repeating: "ab", count: 32)
  static let md5 = String(repeating: "0f", count: 16)

  private var verifiedOutcome: EntryOutcome {
    var outcome = sampleOutcome
    outcome.status = .ok
    outcome.error = nil
    outcome.sha256 = Self.sha256
    outcome.digests = [.md5: Self.md5, .sha256: Self.sha256]
    outcome.verified = ["manifest:sha256", "server:digest:md5"]
    return outcome
  }

  @Test func transfer_carries_every_digest_and_what_it_was_verified_against() throws {
    let text = ReportJSON.transfer(verifiedOutcome)
    let object = try jsonObject(text)
    #expect(object["sha256"] as? String == Self.sha256)
    #expect(object["digests"] as? [String: String] == ["sha256": Self.sha256, "md5": Self.md5])
    #expect(object["verified"] as? [String] == ["manifest:sha256", "server:digest:md5"])
    let order = ["seconds", "sha256", "digests", "verified"]
    #expect(keyOrder(text, order) == order)
    #expect(text.contains(#""digests":{"sha256":"\#(Self.sha256)","md5":"\#(Self.md5)"}"#))
  }

  @Test func digests_shows_sha256_when_only_that_field_is_set() throws {
    var outcome = sampleOutcome
    outcome.sha256 = Self.sha256
    let object = try jsonObject(ReportJSON.transfer(outcome))
    #expect(object["digests"] as? [String: String] == ["sha256": Self.sha256])
    #expect(object["verified"] == nil)
  }

  @Test func a_transfer_without_digests_has_neither_field() throws {
    let object = try jsonObject(ReportJSON.transfer(sampleOutcome))
    #expect(object["digests"] == nil)
    #expect(object["verified"] == nil)
  }

  @Test func done_event_carries_the_same_fields() throws {
    let object = try jsonObject(ReportJSON.finishedEvent(verifiedOutcome))
    #expect(object["type"] as? String == "done")
    #expect(object["verified"] as? [String] == ["manifest:sha256", "server:digest:md5"])
    #expect((object["digests"] as? [String: String])?["md5"] == Self.md5)
  }

  @Test func summary_counts_the_files_verified_that_did_not_fail() throws {
    var tally = RunTally()
    tally.add(verifiedOutcome)
    var skipped = verifiedOutcome
    skipped.status = .skipped
    tally.add(skipped)
    var failed = verifiedOutcome
    failed.status = .failed
    tally.add(failed)
    tally.add(sampleOutcome)
    let summary = tally.summary(seconds: 1, transport: "curl", cancelled: false)
    #expect(summary.verified == 2)
    #expect(try jsonObject(ReportJSON.summary(summary))["verified"] as? Int == 2)
    #expect(try jsonObject(ReportJSON.summaryEvent(summary))["verified"] as? Int == 2)
  }
}
