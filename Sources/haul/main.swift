import Glibc

// A closed pipe must end a write with EPIPE, not the process.
signal(SIGPIPE, SIG_IGN)
// A file-size limit (ulimit -f) must end a write with EFBIG (an `io` error), not the process.
signal(SIGXFSZ, SIG_IGN)

AllocatorSettings.apply()

let status = await Haul.main(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
