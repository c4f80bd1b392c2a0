"""The benchmark harness behind Benchmarks/run, in pieces a reader can take one at a time.

Benchmarks/run is the entry point (its command line and `main`); the parts live here:

    common.py      paths, units, the run's settings, log/sh/write_lines
    build.py       what a run needs first: missing packages installed, haul and the
                   reference programs built
    corpus.py      the corpora: deterministic bytes, the mixed sizes, the folder tree
    servers.py     nginx, relay.py in front of it, the throwaway CA and the system-CA copy
    tools.py       Tool (one command on one workload) and the builders of each tool's command
    workloads.py   Workload and every workload a run knows (loopback, links, serve, tree)
    haul_daemon.py the `haul serve` both Benchmarks/run and Benchmarks/serve/run start
    running.py     the timed runs: run_once, run_all, warm, steady_memory, the tmpfs
    syscalls.py    the strace pass and its table per file
    summary.py     the medians and ratios per workload and tool
    targets.py     the issues' targets, each a ratio against a peer in the same run
    report.py      latest.md, latest.json and (through plot.py) latest.png
"""
