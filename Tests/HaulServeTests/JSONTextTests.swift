import Foundation
import Testing

@testable import HaulServe

@Suite("JSONText: the API's JSON, written by hand")
struct JSONTextTests {
  @Test func swift_values_are_written_compact_with_sorted_keys() {
    let object: [String: Any] = [
      "state": "active", "total": 3, "bytes": Int64(1) << 40, "rate": 1_234.5, "whole": 2.0,
      "eta": NSNull(), "paused": false, "list": ["a\"b", 1, true], "nested": ["z": 1, "a": 2],
      "infinite": Double.infinity,
    ]
    #expect(
      JSONText.encode(object)
        == #"{"bytes":1099511627776,"eta":null,"infinite":0,"list":["a\"b",1,true],"#
        + #""nested":{"a":2,"z":1},"paused":false,"rate":1234.5,"state":"active","total":3,"#
        + #""whole":2}"#)
  }

  @Test func a_parsed_document_is_written_back_with_its_truth_values_and_numbers() throws {
    let text = #"{"a":true,"b":false,"c":12,"d":0.25,"e":"x/y","f":[null,-3],"g":{}}"#
    #expect(JSONText.encode(JSONText.object(text)) == text)
  }

  @Test func what_it_writes_reads_back_as_the_same_values() throws {
    let object: [String: Any] = ["message": "line\nbreak\u{1}\u{2028}", "n": -0.001, "big": 1e300]
    let data = Data(JSONText.encode(object).utf8)
    let read = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(read["message"] as? String == "line\nbreak\u{1}\u{2028}")
    #expect(read["n"] as? Double == -0.001)
    #expect(read["big"] as? Double == 1e300)
  }
}
