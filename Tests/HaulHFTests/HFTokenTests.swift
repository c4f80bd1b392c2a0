import Foundation
import HaulCore
import Testing

@testable import HaulHF

/// Where the token comes from, and where it goes.
@Suite struct HFTokenTests {
  func files(_ contents: [String: String]) -> (String) -> String? { { contents[$0] } }

  @Test func hf_token_comes_first_then_the_old_name_then_the_files() {
    let read = files(["/t": " file\n", "/h/token": "home", "/x/huggingface/token": "xdg"])
    #expect(
      HFToken.find(in: ["HF_TOKEN": " a\n", "HUGGING_FACE_HUB_TOKEN": "b"], read: read)
        == HFToken(value: "a", source: "HF_TOKEN"))
    #expect(
      HFToken.find(in: ["HF_TOKEN": "", "HUGGING_FACE_HUB_TOKEN": "b"], read: read)?.value == "b")
    #expect(
      HFToken.find(in: ["HF_TOKEN_PATH": "/t", "HF_HOME": "/h"], read: read)?.value == "file")
    #expect(HFToken.find(in: ["HF_HOME": "/h"], read: read)?.value == "home")
    #expect(HFToken.find(in: ["XDG_CACHE_HOME": "/x"], read: read)?.value == "xdg")
    #expect(HFToken.find(in: ["HOME": "/nobody"], read: read) == nil)
    #expect(HFToken.find(in: ["HF_TOKEN": " \n "], read: files([:])) == nil)
  }

  @Test func the_description_names_the_source_never_the_value() {
    let token = HFToken(value: "hf_secret", source: "HF_TOKEN")
    #expect(!token.description.contains("hf_secret"))
    #expect(!"\(token)".contains("hf_secret"))
  }

  @Test func the_token_goes_to_the_hubs_origin_only() throws {
    let hub = HFEndpoint("http://127.0.0.1:8080")!
    let interceptor = HFTokenInterceptor(
      token: HFToken(value: "hf_x", source: "HF_TOKEN"), endpoint: hub, inner: nil)
    let entry = ManifestEntry(
      line: 1, text: "", url: URL(string: "http://127.0.0.1:8080/o/n")!, path: "n")
    var own = TransferRequest(url: URL(string: "http://127.0.0.1:8080/o/n/resolve/c/x")!)
    try interceptor.adaptNow(&own, for: entry)
    #expect(own.headers.value(for: "Authorization") == "Bearer hf_x")
    var other = TransferRequest(url: URL(string: "http://127.0.0.1:8081/o/n/resolve/c/x")!)
    try interceptor.adaptNow(&other, for: entry)
    #expect(other.headers.value(for: "Authorization") == nil)
  }

  @Test func a_refusal_names_the_repository_and_the_token_situation() {
    let hub = HFEndpoint("http://127.0.0.1:8080")!
    let url = URL(string: "http://127.0.0.1:8080/datasets/org/gated/resolve/c/x")!
    var head = ResponseHead(status: 403)
    head.headers = [
      HTTPField("X-Error-Code", "GatedRepo"), HTTPField("X-Error-Message", "Access restricted"),
    ]
    let withToken = HFRefusals(
      endpoint: hub, token: HFToken(value: "hf_secret", source: "HF_TOKEN"))
    let said = withToken.explain(head, for: url) ?? ""
    #expect(said.contains("hf://datasets/org/gated"))
    #expect(said.contains("Access restricted"))
    #expect(said.contains("HF_TOKEN"))
    #expect(!said.contains("hf_secret"))
    #expect(
      HFRefusals(endpoint: hub, token: nil).explain(head, for: url)?.contains("no token") == true)
    #expect(withToken.explain(ResponseHead(status: 404), for: url) == nil)
  }
}
