import Foundation
import HaulCore
import Testing

@testable import HaulResumable

/// Which uploads a run's resumable options send through a protocol.
struct ResumableOptionsTests {
  @Test func the_run_option_covers_file_uploads_without_a_protocol_of_their_own() {
    let options = ResumableOptions(protocolForUploads: .tus)
    let url = URL(string: "http://h/f/")!
    let upload = ManifestEntry(line: 1, text: "", operation: .upload, url: url, path: "a")
    let own = ManifestEntry(
      line: 2, text: "", operation: .upload, url: url, path: "a", resumable: .ietf)
    let download = ManifestEntry(line: 3, text: "", url: url, path: "a")
    let folder = ManifestEntry(
      line: 4, text: "", operation: .upload, url: url, path: "d/", recursive: true)
    #expect(options.resumable(upload) == .tus)
    #expect(options.resumable(own) == .ietf)
    #expect(options.resumable(download) == nil)
    #expect(options.resumable(folder) == nil)
    #expect(ResumableOptions().resumable(upload) == nil)
  }
}
