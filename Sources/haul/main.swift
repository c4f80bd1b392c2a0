import Glibc

// A closed pipe must end a write with EPIPE, not the process.
signal(SIGPIPE, SIG_IGN)
// A file-size limit (ulimit -f) must end a write with EFBIG (an `io` error), not the process.
signal(SIGXFSZ, SIG_IGN)

AllocatorSettings.apply()

/// Runs the command and exits from the thread that ran it: returning to the top level first
/// would hop to the main actor, whose queue libdispatch drains on a thread it starts for it.
nonisolated func runAndExit(_ arguments: [String]) async -> Never {
  exit(await Haul.main(arguments).rawValue)
}

await runAndExit(Array(CommandLine.arguments.dropFirst()))
