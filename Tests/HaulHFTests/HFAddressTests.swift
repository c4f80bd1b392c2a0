import Testing

@testable import HaulHF

/// Reading `hf://REPO[@REVISION][/PATH]`.
@Suite struct HFAddressTests {
  func parse(_ text: String) throws -> HFAddress { try HFAddress.parse(text).get() }

  @Test func a_model_without_revision_or_path_is_its_root_folder_at_main() throws {
    let address = try parse("hf://org/name")
    #expect(address == HFAddress(kind: .model, repository: "org/name"))
    #expect(address.name == "name")
    #expect(try parse("hf://models/org/name/") == address)
  }

  @Test func datasets_and_spaces_are_named_by_their_first_segment() throws {
    #expect(try parse("hf://datasets/org/data").kind == .dataset)
    #expect(try parse("hf://spaces/org/app/").kind == .space)
    #expect(try parse("hf://datasets/org/data").repository == "org/data")
  }

  @Test func a_path_without_trailing_slash_is_a_file() throws {
    let file = try parse("hf://org/name/sub/config.json")
    #expect(file.path == "sub/config.json")
    #expect(!file.isFolder)
    let folder = try parse("hf://org/name@v1/sub/")
    #expect(folder.path == "sub")
    #expect(folder.isFolder)
    #expect(folder.revision == "v1")
  }

  @Test func a_revision_writes_its_slashes_as_percent_2F_but_refs_as_they_are() throws {
    #expect(try parse("hf://org/name@release%2Fv1/a.txt").revision == "release/v1")
    let pr = try parse("hf://org/name@refs/pr/12/a.txt")
    #expect(pr.revision == "refs/pr/12")
    #expect(pr.path == "a.txt")
    #expect(try parse("hf://org/name@refs/convert/parquet").revision == "refs/convert/parquet")
    #expect(try parse("hf://org/name@refs%2Fpr%2F3").revision == "refs/pr/3")
  }

  @Test func bad_urls_say_why_without_quoting_themselves() {
    for text in [
      "hf://", "hf://org", "hf://datasets/org", "hf://org/na me", "hf://org/name@",
      "hf://org/name/../x", "hf://org/name/a//b", "hf://org/name?x=1",
      "hf://org/name@..%2F..%2Fx/", "hf://org/name@a%2F%2Fb",
    ] {
      guard case .failure(let problem) = HFAddress.parse(text) else {
        Issue.record("\(text) parsed")
        continue
      }
      #expect(!problem.reason.contains(text))
    }
  }

  @Test func the_text_names_the_commit_a_file_came_from() throws {
    let address = try parse("hf://datasets/org/data/a b.txt")
    #expect(address.text(revision: "abc") == "hf://datasets/org/data@abc/a b.txt")
    #expect(try parse("hf://org/name@release%2Fv1/").text() == "hf://org/name@release%2Fv1/")
  }
}
