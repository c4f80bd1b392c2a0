// swift-tools-version:6.0
// Two small programs that embed haul's library, as docs/library.md shows: `mirror` downloads
// every file a SHA256SUMS lists, each checked against its digest; `publish` uploads files;
// `handoff` hands URLs to the daemon (`haul serve`) and, on its next start, collects what
// finished while it was away.
// `Examples/run` builds them and runs them against a local nginx (`make test` does).
import Foundation
import PackageDescription

// haul itself, two folders up. A package named by a path is known by that folder's name,
// which is whatever the clone was called, so the name is read from the path.
let haulPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent()
let haul = haulPath.lastPathComponent.lowercased()

let package = Package(
  name: "haul-examples",
  platforms: [.macOS(.v15)],
  dependencies: [.package(path: haulPath.path)],
  targets: [
    .executableTarget(
      name: "mirror",
      dependencies: [
        .product(name: "HaulCore", package: haul), .product(name: "HaulCurl", package: haul),
      ]),
    .executableTarget(
      name: "publish",
      dependencies: [
        .product(name: "HaulCore", package: haul), .product(name: "HaulCurl", package: haul),
      ]),
    .executableTarget(
      name: "handoff", dependencies: [.product(name: "HaulClient", package: haul)]),
  ]
)
