import HaulCore

/// The command tables: every command's options, from which parsing and help are derived.
enum Commands {
  static let help = OptionSpec("help", short: "h", help: "show this help")

  // Options `run` and `bench` share, with the same meaning and default.
  static let concurrency = OptionSpec(
    "concurrency", short: "j", value: "N|auto", default: "auto",
    help: "transfers in flight at once; auto finds the level where the servers saturate")
  static let perHost = OptionSpec(
    "per-host", value: "N", default: "8", help: "transfers in flight to one host")
  static let retries = OptionSpec(
    "retries", value: "N", default: "5", help: "retries per source after its first attempt")
  static let timeout = OptionSpec(
    "timeout", value: "SECONDS", default: "30",
    help: "a transfer that moves no byte this long fails")
  static let header = OptionSpec(
    "header", value: "'Name: value'", repeatable: true,
    help: "add a header to every request; repeatable")
  static let cacert = OptionSpec(
    "cacert", value: "FILE", help: "also trust the CA certificates in FILE (PEM)")
  // `run` and `verify`.
  static let checksums = OptionSpec(
    "checksums", value: "FILE", repeatable: true,
    help: "expected digests from a sha256sum/md5sum/BSD-style FILE, matched by path; repeatable")

  static let run = CommandSpec(
    name: "run",
    summary: "run every transfer of a manifest; the main job",
    argument: "MANIFEST",
    description: [
      """
      Runs every transfer of MANIFEST with bounded concurrency: skips what is already
      complete, resumes partial files, retries what is transient, verifies size and every
      digest given, and reports. MANIFEST '-' reads standard input.
      """
    ],
    options: [
      OptionSpec("output", short: "o", value: "DIR", default: ".", help: "root for every path"),
      concurrency,
      perHost,
      OptionSpec(
        "transport", value: "NAME", default: "curl",
        choices: TransportChoice.allCases.map(\.rawValue),
        help: "which transport runs the transfers"),
      retries,
      OptionSpec(
        "segments", value: "N", default: "1",
        help: "ranges fetched in parallel for one large download (8 for an --s3 object)"),
      OptionSpec(
        "min-segment-size", value: "SIZE", default: "8M",
        help: "smaller downloads are never split"),
      OptionSpec(
        "max-rate", value: "RATE",
        help: "overall cap in bytes per second over all transfers, e.g. 50M"),
      OptionSpec(
        "loops", value: "N", default: "cores, up to 4",
        help: "threads driving the curl transport's transfers"),
      timeout,
      header,
      OptionSpec(
        "auth-command", value: "CMD",
        help: "send CMD's output as a bearer token; rerun on 401"),
      OptionSpec(
        "netrc", help: "send each host's login from ~/.netrc (or $NETRC) as Basic auth, to it only"),
      OptionSpec("netrc-file", value: "FILE", help: "as --netrc, with the logins of FILE"),
      OptionSpec(
        "cookies", value: "FILE",
        help: "load cookies from a Netscape cookie FILE, as curl and wget write them"),
      OptionSpec(
        "cookie-jar", value: "FILE",
        help: "keep cookies and write those the run ends with to FILE (mode 0600)"),
      OptionSpec(
        "hf-cache", inlineValue: "DIR",
        help:
          "put hf:// folders in the Hugging Face Hub cache DIR (default $HF_HUB_CACHE, else"
          + " $HF_HOME/hub), in place of -o"),
      OptionSpec(
        "s3", help: "sign requests with AWS SigV4 and accept s3://BUCKET/KEY URLs"),
      OptionSpec(
        "s3-endpoint", value: "URL", default: "https://s3.REGION.amazonaws.com",
        help: "where s3:// URLs go (with --s3)"),
      OptionSpec(
        "s3-region", value: "R", help: "the region to sign for (default: AWS_REGION, ~/.aws)"),
      OptionSpec(
        "s3-addressing", value: "STYLE",
        help: "path or virtual (default: virtual on AWS, path on a custom endpoint)"),
      OptionSpec(
        "s3-page-size", value: "N", default: "1000",
        help: "keys per listing page of an s3:// prefix (1-1000)"),
      OptionSpec(
        "recursive", help: "download lines whose URL ends in / mirror the folder's whole tree"),
      OptionSpec(
        "depth", value: "N", default: "32",
        help: "folders: 1 takes a folder's own files, 2 its subfolders' too, ..."),
      OptionSpec(
        "include", value: "GLOB", repeatable: true,
        help: "folders: take only files whose path below the folder matches (*, ?, **, [...])"),
      OptionSpec(
        "exclude", value: "GLOB", repeatable: true,
        help: "folders: leave out files whose path below the folder matches"),
      OptionSpec(
        "resumable", value: "PROTOCOL", choices: ResumableProtocol.allCases.map(\.rawValue),
        help: "send every file upload through this resumable upload protocol"),
      OptionSpec(
        "multipart-threshold", value: "SIZE", default: "64M",
        help: "S3 uploads larger than SIZE go in parts, resumable across runs"),
      OptionSpec("part-size", value: "SIZE", default: "16M", help: "the size of each part (5M-5G)"),
      OptionSpec(
        "part-concurrency", value: "N", default: "4",
        help: "parts of one multipart upload in flight at once (each holds a slot of -j)"),
      OptionSpec(
        "abort-incomplete",
        help: "cancel a failed multipart or resumable upload instead of keeping it"),
      OptionSpec("report", value: "FILE", help: "write the JSON report to FILE"),
      OptionSpec(
        "events", help: "JSON Lines events on standard output instead of the progress display"),
      OptionSpec(
        "shard", value: "K/N",
        help: "run only shard K of N (0 <= K < N), chosen by a stable hash of each destination"),
      OptionSpec("quiet", short: "q", help: "no progress display; errors and summary still shown"),
      cacert,
      OptionSpec("fsync", help: "make each finished file durable before it is put in place"),
      OptionSpec(
        "proxy", value: "URL",
        help: "send requests through this proxy (http://, https://, socks5h://)"),
      OptionSpec("no-proxy", help: "use no proxy, whatever the proxy variables say"),
      OptionSpec(
        "no-remote-time",
        help: "keep the download time as each file's mtime, not the server's Last-Modified"),
      OptionSpec(
        "refresh",
        help: "re-check files in place without size/sha256 with a conditional request"),
      OptionSpec(
        "failed", value: "FILE", help: "write the manifest lines of failed transfers to FILE"),
      checksums,
      OptionSpec(
        "no-server-digests",
        help: "neither ask for nor check the digests a server declares (Repr-Digest, ...)"),
      help,
    ],
    epilogue: [
      """
      SIZE and RATE take K, M, G as binary multiples (8M = 8 MiB).
      """,
      """
      Exit status: 0 all transfers ok or already complete, 1 some failed, 2 usage or
      manifest error (nothing transferred), 130 interrupted (SIGINT/SIGTERM; partial files
      are kept and the next run resumes them).
      """,
    ])

  static let verify = CommandSpec(
    name: "verify",
    summary: "check local files against size and digests; transfers nothing",
    argument: "MANIFEST",
    description: [
      """
      Checks, without any network access, that each download's file exists under the output
      directory and matches the manifest's size and every digest given (sha256, sha512, sha1,
      md5, and those of --checksums files). Uploads are not checked (the server's copy cannot
      be seen). MANIFEST '-' reads standard input.
      """
    ],
    options: [
      OptionSpec("output", short: "o", value: "DIR", default: ".", help: "root for every path"),
      OptionSpec(
        "failed", value: "FILE",
        help: "write the manifest lines of missing or differing files to FILE"),
      checksums,
      help,
    ],
    epilogue: [
      """
      Exit status: 0 every file present and matching, 1 otherwise, 2 usage or manifest error.
      """
    ])

  static let bench = CommandSpec(
    name: "bench",
    summary: "run a manifest through each transport and compare",
    argument: "MANIFEST",
    description: [
      """
      Runs MANIFEST through each transport in turn, --repeat rounds interleaved (curl,
      urlsession, curl, urlsession, ...), every run into a fresh folder under -o that is
      removed afterwards (upload bodies are read from -o), and prints one row per transport:
      files/s, MB/s, CPU seconds (user+sys) per GiB and per 1,000 files, peak RSS, per-transfer
      latency p50/p99, and files/s as a ratio to the first transport. Medians over rounds.
      """
    ],
    options: [
      OptionSpec(
        "output", short: "o", value: "DIR", default: ".",
        help: "where upload bodies are read; each run downloads into a fresh folder here"),
      OptionSpec(
        "transports", value: "LIST", default: "curl,urlsession",
        help: "transports to compare, comma-separated; ratios are against the first"),
      OptionSpec(
        "repeat", value: "N", default: "3", help: "rounds, each running every transport once"),
      concurrency,
      perHost,
      retries,
      timeout,
      header,
      cacert,
      OptionSpec("json", value: "FILE", help: "also write the comparison, every run, as JSON"),
      help,
    ],
    epilogue: [
      """
      Runs use the library in this process (a new transport per run), so CPU and peak RSS
      are the process's: peak RSS is restarted before each run where Linux allows it.
      Benchmark a local server: every run moves the whole manifest again.
      """,
      """
      Exit status: 0 every run succeeded, 1 some transfer failed, 2 usage or manifest error.
      """,
    ])

  static let all = [run, verify, bench] + serviceCommands

  static func named(_ name: String) -> CommandSpec? { all.first { $0.name == name } }
}
