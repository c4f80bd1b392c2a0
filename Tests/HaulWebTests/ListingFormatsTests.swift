import Foundation
import Testing

@testable import HaulCore
@testable import HaulWeb

/// The listing parsers against pages captured from the real servers
/// (`scripts/interop/capture-listings`, into ListingSamples/), and against the cases a
/// captured page does not show.
@Suite("Listing formats: index pages, JSON listings and WebDAV multistatus")
struct ListingFormatsTests {
  /// One captured answer: its body and what the capture recorded of it.
  struct Sample: CustomStringConvertible {
    var name: String
    var body: [UInt8]
    var url: URL
    var contentType: String
    var description: String { name }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("ListingSamples")

    init(_ name: String) {
      self.name = name
      body = Array(
        (try? Data(contentsOf: Self.folder.appendingPathComponent(name + ".body"))) ?? Data())
      let meta =
        (try? JSONSerialization.jsonObject(
          with: Data(contentsOf: Self.folder.appendingPathComponent(name + ".json"))))
        as? [String: Any] ?? [:]
      url = URL(string: meta["url"] as? String ?? "http://127.0.0.1/tree/")!
      contentType = meta["content_type"] as? String ?? ""
    }
  }

  /// The capture tree's top folder (`capture-listings`' FILES), with each file's size.
  static let files: [String: Int64] = [
    "plain.txt": 6, "with space.txt": 11, "100%.txt": 8, "hash#1.txt": 5, "what?.txt": 9,
    "a&b.txt": 10, "it's.txt": 11, "\u{FC}n\u{EF}c\u{F6}d\u{E9}.txt": 8,
  ]
  static let folders: Set<String> = ["sub", "empty"]

  static let pages = [
    "nginx-autoindex-html", "apache2-autoindex-plain", "apache2-autoindex-fancy",
    "apache2-autoindex-fancy-table", "lighttpd-dirlisting", "caddy-browse-html",
    "python-http-server", "rclone-serve-http",
  ]
  static let jsonListings = ["nginx-autoindex-json", "caddy-browse-json"]
  static let multistatus = [
    "nginx-dav-ext-propfind", "apache2-mod-dav-propfind", "lighttpd-webdav-propfind",
    "rclone-serve-webdav-propfind",
  ]

  func expectTree(_ names: [ListedName], sizes: Bool, _ sample: Sample) {
    let files = names.filter { !$0.isFolder }
    let folders = names.filter(\.isFolder)
    #expect(Set(files.map(\.name)) == Set(Self.files.keys), "\(sample)")
    #expect(files.count == Self.files.count, "\(sample): each file once")
    #expect(Set(folders.map(\.name)) == Self.folders, "\(sample)")
    #expect(folders.count == Self.folders.count, "\(sample): each folder once")
    for file in files {
      #expect(file.size == (sizes ? Self.files[file.name] : nil), "\(sample): \(file.name)")
    }
    #expect(folders.allSatisfy { $0.size == nil }, "\(sample): a folder has no size")
  }

  @Test(arguments: pages.map(Sample.init))
  func an_index_page_names_the_folders_children_once_without_sizes(sample: Sample) throws {
    try #require(!sample.body.isEmpty, "the sample \(sample) is in ListingSamples")
    let names = try #require(
      IndexPage.parse(sample.body, contentType: sample.contentType, folder: sample.url))
    expectTree(names, sizes: false, sample)
  }

  @Test(arguments: jsonListings.map(Sample.init))
  func a_json_listing_gives_exact_sizes_and_mtimes(sample: Sample) throws {
    try #require(!sample.body.isEmpty, "the sample \(sample) is in ListingSamples")
    let names = try #require(
      IndexPage.parse(sample.body, contentType: sample.contentType, folder: sample.url))
    expectTree(names, sizes: true, sample)
    #expect(names.allSatisfy { $0.modified != nil }, "\(sample)")
  }

  @Test(arguments: multistatus.map(Sample.init))
  func a_propfind_answer_gives_exact_sizes_mtimes_and_collections(sample: Sample) throws {
    try #require(!sample.body.isEmpty, "the sample \(sample) is in ListingSamples")
    let children = try #require(DAVMultistatus.parse(sample.body, folder: sample.url))
    expectTree(children.map(\.name), sizes: true, sample)
    #expect(children.allSatisfy { $0.name.modified != nil }, "\(sample)")
    if sample.name != "nginx-dav-ext-propfind" {
      #expect(
        children.filter { !$0.name.isFolder }.allSatisfy { $0.etag?.hasSuffix("\"") == true },
        "\(sample): every file's getetag")
    }
  }

  let folder = URL(string: "http://127.0.0.1:8080/pub/tree/")!

  func page(_ html: String) -> [ListedName] {
    IndexPage.html(Array(html.utf8), folder: folder)
  }

  @Test func links_elsewhere_sort_links_parents_and_the_folder_itself_are_left_out() {
    let names = page(
      """
      <a href="?C=N;O=D">Name</a> <a href="../">Parent</a> <a href="/pub/">Up</a>
      <a href="">self</a> <a href=".">self</a> <a href="./">self</a> <a href="#top">top</a>
      <a href="http://127.0.0.2:8080/pub/tree/x">other host</a>
      <a href="http://127.0.0.1:8081/pub/tree/x">other port</a>
      <a href="https://127.0.0.1:8080/pub/tree/x">other scheme</a>
      <a href="mailto:a@b">mail</a> <a href="sub/deeper/f">deeper</a>
      <a href="x?download=1">query</a> <a href="/pub/treeish/y">sibling prefix</a>
      <A HREF='kept'>kept</A>
      """)
    #expect(names == [ListedName(name: "kept", isFolder: false)])
  }

  @Test func a_page_that_links_its_parent_without_a_slash_leaves_its_folders_unmarked() {
    let h2o = page(
      #"<UL><LI><A HREF="..">Parent Directory</A><LI><A HREF="a.txt">a.txt</A>"#
        + #"<LI><A HREF="sub">sub</A><LI><A HREF="marked/">marked</A></UL>"#)
    #expect(h2o.map(\.name) == ["a.txt", "sub", "marked"])
    #expect(h2o.map(\.mayBeFolder) == [true, true, false])
    let nginx = page(#"<a href="../">../</a><a href="a.txt">a.txt</a><a href="sub/">sub/</a>"#)
    #expect(
      nginx.allSatisfy { !$0.mayBeFolder }, "a page that marks its folders is taken at its word")
  }

  @Test func links_are_read_relative_absolute_encoded_and_with_entities() {
    let names = page(
      """
      <a class="x" href="/pub/tree/abs.txt">a</a>
      <a href="http://127.0.0.1:8080/pub/tree/full.txt">b</a>
      <a href="HTTP://127.0.0.1:8080/pub/tree/case.txt">c</a>
      <a href=unquoted.txt>d</a>
      <a href="a&amp;b&#x20;c&#39;d.txt">e</a>
      <a href="100%25%20done.txt">f</a> <a href="raw space ü.txt">g</a>
      <a href="50%.txt">h</a> <a href="./dir/">i</a> <a href="dir/">dup</a> <a href="abs.txt">dup</a>
      <a title="a > b" href="after-gt.txt">j</a>
      """)
    #expect(
      names.map(\.name) == [
        "abs.txt", "full.txt", "case.txt", "unquoted.txt", "a&b c'd.txt", "100% done.txt",
        "raw space ü.txt", "50%.txt", "dir", "after-gt.txt",
      ])
    #expect(
      names.map(\.isFolder) == [
        false, false, false, false, false, false, false, false, true, false,
      ])
  }

  @Test func a_link_of_one_segment_is_read_as_its_url_would_be() {
    let folder = URL(string: "http://127.0.0.1:8080/pub/tree/")!
    let links = [
      "f.bin", "sub/", "a%20b.txt", "100%.bin", "%E6%97%A5.txt", "bad%FF.txt", "x%2Fy", "a[1]",
    ]
    #expect(
      links.compactMap { ListedName.child($0, of: folder)?.name } == [
        "f.bin", "sub", "a b.txt", "100%.bin", "\u{65E5}.txt", "bad%FF.txt", "x/y", "a[1]",
      ])
    #expect(ListedName.child("sub/", of: folder)?.isFolder == true)
    // Not one segment below the folder: read as URLs, and left out.
    for link in ["..", ".", "./", "a/b", "x?y", "x#y", "mailto:x"] {
      #expect(ListedName.child(link, of: folder) == nil, "\(link)")
    }
  }

  @Test func a_name_that_would_leave_the_folder_becomes_a_refused_file() {
    let names = page(#"<a href="%2E%2E/">dots</a> <a href="a%2F..%2F..%2Fx">slash</a>"#)
    #expect(names.map(\.name) == ["..", "a/../../x"])
    let listed = WebFolderLister.page(
      names, in: ListedFolder(url: folder, relativePath: "", depth: 1))
    #expect(listed.folders.isEmpty, "no folder to list")
    #expect(listed.files.map(\.url) == [nil, nil])
    let entry = ManifestEntry(line: 1, text: "{}", url: folder, path: "tree/", recursive: true)
    for file in listed.files {
      guard case .ended(_, let error) = ListingItem(file, of: entry, folders: FolderOptions())
      else {
        Issue.record("\(file.relativePath) is refused")
        continue
      }
      #expect(error.code == .pathRefused)
    }
  }

  @Test func a_listed_page_becomes_files_and_subfolders_with_their_urls() {
    let sub = ListedFolder(
      url: URL(string: "http://127.0.0.1:8080/pub/tree/a%20b/")!, relativePath: "a b/", depth: 2)
    let listed = WebFolderLister.page(
      [
        ListedName(name: "x#1?.txt", isFolder: false, size: 3),
        ListedName(name: "ü", isFolder: true),
      ], in: sub)
    #expect(
      listed.files.map(\.url?.absoluteString) == [
        "http://127.0.0.1:8080/pub/tree/a%20b/x%231%3F.txt"
      ])
    #expect(listed.files.map(\.relativePath) == ["a b/x#1?.txt"])
    #expect(listed.files.map(\.size) == [3])
    #expect(
      listed.folders.map(\.url.absoluteString) == ["http://127.0.0.1:8080/pub/tree/a%20b/%C3%BC/"])
    #expect(listed.folders.map(\.relativePath) == ["a b/ü/"])
    #expect(listed.folders.map(\.depth) == [3])
  }

  @Test func a_json_listing_that_is_no_array_of_named_objects_is_not_one() {
    #expect(IndexPage.json(Array(#"{"name": "x"}"#.utf8), folder: folder) == nil)
    #expect(IndexPage.json(Array(#"[{"size": 1}]"#.utf8), folder: folder) == nil)
    #expect(IndexPage.json(Array("[".utf8), folder: folder) == nil)
    #expect(
      IndexPage.parse(Array("plain text".utf8), contentType: "text/plain", folder: folder) == nil)
  }

  @Test func a_multistatus_with_any_prefix_and_absolute_hrefs_is_read() throws {
    let xml = """
      <?xml version="1.0"?><multistatus xmlns="DAV:"><response>
      <href>http://127.0.0.1:8080/pub/tree/</href><propstat><prop><resourcetype><collection/>
      </resourcetype></prop></propstat></response>
      <response><href>http://127.0.0.1:8080/pub/tree/f%20g.bin</href><propstat><prop>
      <getcontentlength>12345678901</getcontentlength><getetag>"e&quot;1"</getetag>
      <getlastmodified>Tue, 01 Dec 2026 10:00:00 GMT</getlastmodified><resourcetype/>
      </prop><status>HTTP/1.1 200 OK</status></propstat></response>
      <x:response xmlns:x="DAV:"><x:href>/pub/tree/d</x:href><x:propstat><x:prop>
      <x:resourcetype><x:collection/></x:resourcetype></x:prop></x:propstat></x:response>
      <response><href>/elsewhere/z</href></response></multistatus>
      """
    let children = try #require(DAVMultistatus.parse(Array(xml.utf8), folder: folder))
    #expect(children.map(\.name.name) == ["f g.bin", "d"])
    #expect(children.map(\.name.isFolder) == [false, true], "a collection without a / is a folder")
    #expect(children[0].name.size == 12_345_678_901)
    #expect(children[0].etag == "\"e\"1\"")
    #expect(children[0].name.modified == HTTPDate.parse("Tue, 01 Dec 2026 10:00:00 GMT"))
    #expect(DAVMultistatus.parse(Array("<html></html>".utf8), folder: folder) == nil)
  }
}

@Suite("ListingClient's answer bound")
struct ListingAnswerBoundTests {
  @Test func an_answer_past_the_bound_fails_and_one_at_it_is_kept() throws {
    let sink = MemoryAnswerSink(limit: 8, errorBodies: nil)
    #expect(try sink.receive(head: ResponseHead(status: 200, headers: [])))
    try [UInt8](repeating: 1, count: 8).withUnsafeBytes { try sink.receive(body: $0) }
    #expect(sink.body.count == 8)
    #expect(throws: TransferError.self) {
      try [UInt8(2)].withUnsafeBytes { try sink.receive(body: $0) }
    }
    #expect(ListingClient.pageLimit == 64 << 20)
  }
}
