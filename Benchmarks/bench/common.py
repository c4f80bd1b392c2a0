"""Paths, units and the run's settings (corpus sizes, the strace pairs, the link
workloads' round trips and concurrency, the tree's shape, passes per round), and the small
helpers every part uses: log, sh, write_lines."""

import os
import subprocess
import sys


HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(HERE)
WORK = os.path.join(HERE, ".work")
RESULTS = os.path.join(HERE, "results")
KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

# Corpus sizes: (count, bytes) per kind. The full set is the one issue 5 asks for.
FULL = {"small": (5000, 16 * KIB), "medium": (100, 4 * MIB), "large": (2, GIB),
        "up-small": (1000, 16 * KIB), "up-large": (1, GIB)}
QUICK = {"small": (500, 16 * KIB), "medium": (20, 4 * MIB), "large": (2, 64 * MIB),
         "up-small": (200, 16 * KIB), "up-large": (1, 64 * MIB)}

# The system-call passes: on each workload, haul and its curl peer once each under strace,
# after the rounds. The engine issue's checks are on the first (STRACE_CHECKED).
STRACE_PAIRS = [("small-tmpfs", ("haul-curl", "curl-parallel")),
                ("up-small", ("haul-curl", "curl-parallel-T")),
                ("https-small-tmpfs", ("haul-curl", "curl-parallel")),
                ("https-small-disk", ("haul-curl", "curl-parallel")),
                ("https-mixed", ("haul-curl", "curl-parallel"))]
STRACE_CHECKED = "small-tmpfs"
# Where haul's total is held to curl's + 1 per file (issue 11 on loopback, issue 22 over TLS).
STRACE_TOTAL_CHECKED = ["small-tmpfs", "https-small-tmpfs", "https-small-disk", "https-mixed"]
STRACE_SHOWN = 0.5  # a system call gets a row when a tool makes this many per file

# Issue 22's link workloads: 1,000 files (quick: 200) at 0 and RTT_MS round trip through
# relay.py, each tool with its defaults and with LINK_J in flight; the long-link workloads
# run at most LONG_ROUNDS rounds, or --long-rounds (each run of theirs takes seconds by
# nature). SWEEP: haul's fixed -j rows beside -j auto, run once haul has `-j auto` (or with
# --sweep).
LINK_FILES = {"full": 1000, "quick": 200}
MIXED_FILES = {"full": 200, "quick": 40}  # log-uniform 1 KiB to 8 MiB: about 190 MB in full
RTT_MS = 40
# The round trip each HTTP/1.1 long-link workload's relay really gives, measured before its
# rounds (link_round_trip_ms): its bound is files x this / connections, not the nominal RTT_MS.
LINK_RTT_MS = {}
# Round trips a new connection costs before its first request: the relay charges one for the
# TCP handshake, and a TLS 1.3 handshake takes one more.
SETUP_ROUND_TRIPS = {"https": 2, "http": 1}
LINK_J = 16
LONG_ROUNDS = 2
SWEEP = [4, 16, 64, 256]
HAUL_PER_HOST = 8  # haul's default --per-host (docs/manual.md), its ceiling on connections

# The tree workloads (issue 23): TREE[size] = (folders, files per folder, bytes per file)
# behind nginx autoindex, mirrored by haul from its folder entry and by wget2 -r -np,
# rclone copy (http backend) and wget -r -np; then each tool's rerun over its complete tree.
TREE = {"full": (100, 100, 16 * KIB), "quick": (10, 50, 16 * KIB)}  # written to tmpfs

# Passes per round for the workloads whose runs take well under a second (small-tmpfs,
# up-small, the links without a round trip): every tool runs that many times per round, so
# their medians rest on more runs. On h2-0ms the sweep's levels lie within one run's spread
# of each other, and the best of their medians over three runs each is the luckiest.
SHORT_PASSES = 3


def log(text):
    print(f"bench: {text}", file=sys.stderr, flush=True)


def sh(command, **kwargs):
    return subprocess.run(command, check=True, **kwargs)


def write_lines(path, lines):
    with open(path, "w") as file:
        file.write("".join(line + "\n" for line in lines))
    return path
