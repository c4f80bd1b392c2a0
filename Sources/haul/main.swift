import Glibc

// A closed pipe must end a write with EPIPE, not the process.
signal(SIGPIPE, SIG_IGN)

let status = await Haul.main(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
