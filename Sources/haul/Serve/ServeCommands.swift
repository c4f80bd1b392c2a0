/// The option tables of `haul serve` and its client commands (docs/service.md).
extension Commands {
  /// The client commands' way to the daemon.
  static let socket = OptionSpec(
    "socket", value: "PATH",
    help: "the daemon's control socket (default: HAUL_SOCKET, else $XDG_RUNTIME_DIR/haul/haul.sock)"
  )
  static let json = OptionSpec("json", help: "print JSON instead of lines for people")

  /// `run`'s options that mean something as every job's defaults.
  static let serveRunOptions = run.options.filter {
    !["output", "report", "events", "failed", "quiet", "shard", "help", "checksums"].contains(
      $0.long)
  }

  static let serve = CommandSpec(
    name: "serve",
    summary: "run the background service: a queue of jobs that outlives its clients",
    argument: "",
    description: [
      """
      Runs a daemon that owns a queue of jobs (a job is a manifest, an output directory and
      job options) and carries them out with the engine of haul run, one scheduler for all
      jobs. Its journal (SQLite) holds every accepted job: after kill -9 or a reboot the next
      start carries on every unfinished job, fetching no finished file again. Clients talk to
      it over the control socket (haul add, jobs, status, pause, resume, cancel, wait,
      events, stop) or, with --listen, over loopback TCP with a bearer token.
      """,
      """
      Run options given here (-j, --per-host, --max-rate, --retries, --header...) are every
      job's defaults; a job may set its own max-rate, retries, header, segments, refresh,
      timeout and folder options.
      """,
    ],
    options: [
      OptionSpec(
        "root", value: "DIR", repeatable: true,
        help: "a folder jobs may write in; repeatable (default: the current directory)"),
      OptionSpec(
        "state-dir", value: "DIR",
        help: "journal, token and manifests (default: $XDG_STATE_HOME/haul)"),
      socket,
      OptionSpec(
        "listen", value: "ADDR:PORT", help: "also serve the API on TCP (loopback only)"),
      OptionSpec("listen-public", help: "let --listen take an address that is not loopback"),
      OptionSpec(
        "aria2-rpc", value: "[ADDR:]PORT",
        help: "also serve aria2's JSON-RPC at /jsonrpc (aria2's port is 6800; loopback only)"),
      OptionSpec(
        "token-file", value: "FILE",
        help: "the TCP token (default: state-dir/token, made at first start)"),
      OptionSpec(
        "allow-origin", value: "ORIGIN", repeatable: true,
        help: "a web origin allowed to call the TCP API; repeatable"),
      OptionSpec(
        "max-request-size", value: "SIZE", default: "64M", help: "the largest request body"),
    ] + serveRunOptions + [help],
    epilogue: [
      """
      SIGTERM, SIGINT or haul stop: no new transfer starts, running ones keep their partial
      files, the journal is complete, exit 0.
      """
    ])

  static let add = CommandSpec(
    name: "add",
    summary: "queue a job on the daemon; prints its id",
    argument: "MANIFEST|URL...",
    description: [
      """
      Queues one job: the manifest MANIFEST ('-' reads standard input), or the URLs given,
      each one download. The job is checked as haul run checks a manifest: a bad line refuses
      it with its line number and nothing is queued. Prints the job's id.
      """
    ],
    options: [
      OptionSpec(
        "output", short: "o", value: "DIR",
        help: "the job's output directory, inside a root of the daemon (default: its first)"),
      OptionSpec("wait", help: "then wait for the job as haul wait does"),
      OptionSpec("paused", help: "queue the job paused"),
      OptionSpec("quiet", short: "q", help: "with --wait: no progress display"),
    ] + run.options.filter { ServeEngine.jobOptions.contains($0.long) } + [socket, json, help],
    epilogue: [
      """
      Exit status: 0 queued (with --wait: as haul wait), 2 a bad manifest or option, or no
      daemon.
      """
    ])

  static let jobs = CommandSpec(
    name: "jobs", summary: "list the daemon's jobs", argument: "",
    description: ["One line per job: id, state, files done of total, failed, bytes, rate."],
    options: [socket, json, help], epilogue: [])

  static let status = CommandSpec(
    name: "status", summary: "one job: counts, rate, ETA and its failed entries",
    argument: "ID", description: ["Shows job ID and its first failed entries with their codes."],
    options: [socket, json, help], epilogue: [])

  static let pause = CommandSpec(
    name: "pause", summary: "pause jobs; their running transfers keep their partial files",
    argument: "ID...", description: ["Pauses each job named."], options: [socket, json, help],
    epilogue: [])

  static let resume = CommandSpec(
    name: "resume", summary: "put paused jobs back in the queue", argument: "ID...",
    description: ["Resumes each job named; its partial files resume."],
    options: [socket, json, help], epilogue: [])

  static let cancel = CommandSpec(
    name: "cancel", summary: "cancel jobs; their files and partial files stay",
    argument: "ID...", description: ["Cancels each job named (state removed)."],
    options: [socket, json, help], epilogue: [])

  static let wait = CommandSpec(
    name: "wait", summary: "wait for jobs to end, with the progress display",
    argument: "ID...",
    description: [
      """
      Follows the jobs named until each has ended, with haul run's progress display, and
      exits as haul run would: 0 when every entry succeeded or was complete, 1 when some
      failed or a job was cancelled.
      """
    ],
    options: [
      OptionSpec("quiet", short: "q", help: "no progress display; the summary still shown"),
      socket, json, help,
    ],
    epilogue: [])

  static let events = CommandSpec(
    name: "events", summary: "follow the daemon's events as JSON Lines", argument: "",
    description: [
      """
      Prints each event as one JSON object per line ({"id", "event", "data"}), replaying
      those after --since first; reconnects by itself when the daemon restarts.
      """
    ],
    options: [
      OptionSpec("since", value: "N", help: "replay the events after event id N first"),
      socket, help,
    ],
    epilogue: [])

  static let stop = CommandSpec(
    name: "stop", summary: "stop the daemon as SIGTERM does", argument: "",
    description: ["Asks the daemon to stop; its unfinished jobs carry on at its next start."],
    options: [socket, help], epilogue: [])

  static let page = CommandSpec(
    name: "page", summary: "print the address of the daemon's page, with its token",
    argument: "",
    description: [
      """
      Prints http://ADDR:PORT/#token=TOKEN: open it in a browser on this machine. The address
      is the one haul serve --listen wrote into its state directory (the file listen), the
      token its state directory's token. The page keeps the token for the tab only and
      removes it from the address bar; the daemon never prints it.
      """
    ],
    options: [
      OptionSpec(
        "state-dir", value: "DIR",
        help: "the daemon's state directory (default: $XDG_STATE_HOME/haul)"),
      OptionSpec(
        "listen", value: "ADDR:PORT",
        help: "the daemon's TCP address (default: the one it wrote into state-dir/listen)"),
      help,
    ],
    epilogue: ["Exit status: 0 printed, 2 no address or no token found."])

  static let serviceCommands = [
    serve, add, jobs, status, pause, resume, cancel, wait, events, stop, page,
  ]
}
