// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "haul",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "haul", targets: ["haul"]),
    .library(name: "HaulCore", targets: ["HaulCore"]),
    .library(name: "HaulWeb", targets: ["HaulWeb"]),
    .library(name: "HaulHF", targets: ["HaulHF"]),
    .library(name: "HaulResumable", targets: ["HaulResumable"]),
    .library(name: "HaulCurl", targets: ["HaulCurl"]),
    .library(name: "HaulURLSession", targets: ["HaulURLSession"]),
    .library(name: "HaulServe", targets: ["HaulServe"]),
    .library(name: "HaulClient", targets: ["HaulClient"]),
  ],
  targets: [
    // System libraries, reached through module maps.
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    // SQLite is linked from its static archive (see its module map), so no pkg-config: its
    // `-lsqlite3` would load the shared library beside it.
    .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
    // libdispatch calls missing from Swift's Dispatch overlay (libdispatch ships with Swift).
    .systemLibrary(name: "CDispatchQueue"),
    // <sys/xattr.h> of the C library, which the Glibc module leaves out.
    .systemLibrary(name: "CXattr"),
    // <malloc.h> of the C library (mallopt), for the executable's allocator settings.
    .systemLibrary(name: "CMalloc"),

    // Core: manifest, transfer model, Transport protocol, scheduler, files, report, and the
    // extension points protocols plug into. No curl, no FoundationNetworking, no protocol.
    .target(name: "HaulCore", dependencies: ["CCrypto", "CXattr"]),

    // The protocols beside the core (docs/architecture.md, "Protocols beside the core"): each
    // imports HaulCore only, never a transport or another protocol; the CLI plugs them in.
    // Object storage: `s3://` URLs, SigV4 signing, prefix listings, multipart uploads and S3
    // error documents, plugged into the core's extension points.
    .target(name: "HaulS3", dependencies: ["HaulCore"]),
    // The web: recursive folders listed through WebDAV (`PROPFIND`) or index pages, and
    // folder uploads to a web server's collections (`MKCOL`), plugged into the same points.
    .target(name: "HaulWeb", dependencies: ["HaulCore"]),
    // The Hugging Face Hub: `hf://` URLs, the revision resolved to a commit, its tree listed
    // page by page, each file checked against its LFS SHA-256 or git blob id, the Hub token
    // sent to the Hub's origin only.
    .target(name: "HaulHF", dependencies: ["HaulCore"]),
    // Resumable uploads: tus 1.0 and the IETF draft, as an upload strategy of the core.
    .target(name: "HaulResumable", dependencies: ["HaulCore"]),

    // The two transports.
    .target(name: "HaulCurl", dependencies: ["HaulCore", "CCurl"]),
    .target(name: "HaulURLSession", dependencies: ["HaulCore", "CDispatchQueue"]),

    // The background service (`haul serve`): the queue of jobs, its SQLite journal, the HTTP
    // server (libmicrohttpd) of the control socket and the API, WebSocket's handshake hashed
    // with OpenSSL's SHA-1. The engine that runs a job is
    // plugged in by the CLI (`JobEngine`), so the service names no transport.
    .target(
      name: "HaulServe", dependencies: ["HaulCore", "CSQLite", "CMicroHTTPD", "CCrypto"]),
    // The daemon's client, for the CLI's client commands and Swift programs: HTTP over the
    // control socket or TCP through libcurl, and the event stream as an async sequence.
    .target(name: "HaulClient", dependencies: ["CCurl"]),

    // The command-line tool: argument tables, progress display, report files. It reads the
    // libcurl and OpenSSL versions for `--version` straight from the system libraries.
    .executableTarget(
      name: "haul",
      dependencies: [
        "HaulCore", "HaulS3", "HaulWeb", "HaulHF", "HaulResumable", "HaulCurl", "HaulURLSession",
        "HaulServe", "HaulClient",
        "CCurl",
        "CCrypto", "CMalloc",
      ]),

    // Test doubles and fixtures: fault-injecting server, nginx, fake transport.
    .target(name: "HaulTestSupport", dependencies: ["HaulCore"]),
    // The fault server on its own, for the soak (`Benchmarks/soak/run`) and manual tests.
    .executableTarget(name: "haul-fault-server", dependencies: ["HaulTestSupport"]),
    // The digest benchmark (`Benchmarks/digests/run`), built with the package so that every
    // build compiles it against the digests the transfers use.
    .executableTarget(
      name: "haul-digest-bench", dependencies: ["HaulCore"], path: "Benchmarks/digests",
      exclude: ["run"]),

    .testTarget(name: "HaulCoreTests", dependencies: ["HaulCore", "HaulTestSupport"]),
    // S3's pure parts: SigV4 (against botocore too), endpoints, AWS configuration, documents.
    .testTarget(name: "HaulS3Tests", dependencies: ["HaulS3", "HaulCore", "HaulTestSupport"]),
    // The web listings' parsers, against pages captured from real servers (read from
    // ListingSamples by path, not built into the tests).
    .testTarget(
      name: "HaulWebTests", dependencies: ["HaulWeb", "HaulCore"], exclude: ["ListingSamples"]),
    // HaulHF's pure parts: `hf://` URLs, the Hub's URLs, tree pages, `Link` fields, tokens.
    .testTarget(name: "HaulHFTests", dependencies: ["HaulHF", "HaulCore"]),
    // The resumable protocols' machines and the attempt they share, as values.
    .testTarget(name: "HaulResumableTests", dependencies: ["HaulResumable", "HaulCore"]),
    .testTarget(name: "HaulCurlTests", dependencies: ["HaulCore", "HaulCurl"]),
    // The service's pure parts (the queue as a state machine), its journal over a real SQLite
    // file, its HTTP server over real sockets, and the client against it.
    .testTarget(
      name: "HaulServeTests",
      dependencies: ["HaulServe", "HaulClient", "HaulCore", "HaulTestSupport"],
      exclude: ["Fixtures"]),
    // The fixtures' own behaviour, so a failure elsewhere can be trusted to be haul's.
    .testTarget(name: "HaulTestSupportTests", dependencies: ["HaulCore", "HaulTestSupport"]),
    .testTarget(
      name: "TransportConformanceTests",
      dependencies: ["HaulCore", "HaulCurl", "HaulURLSession", "HaulTestSupport"]),
    // The page's browser script (page/), the aria2p script (aria2/), the login portal's
    // server (portal/) and the Hugging Face Hub server (hf/) are run by the tests.
    .testTarget(
      name: "CLITests", dependencies: ["HaulCore", "HaulTestSupport"],
      exclude: ["page", "aria2", "portal", "hf"]),
    // The CLI's pure parts (the progress display's state and lines, a bench run's tally),
    // without running it.
    .testTarget(name: "ProgressDisplayTests", dependencies: ["haul", "HaulCore"]),
  ]
)
