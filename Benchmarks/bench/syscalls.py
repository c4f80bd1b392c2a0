"""The system-call pass after the timed rounds: haul and its curl peer once each under
`strace -f -c` (strace_pass), and their calls per file (syscall_table)."""

import os
import subprocess

from .common import STRACE_CHECKED, STRACE_PAIRS, STRACE_SHOWN, STRACE_TOTAL_CHECKED, WORK, log
from .running import check_output, reset_output


def strace_counts(path):
    """Reads the summary of `strace -c -U name,calls,errors`: {name: {calls, errors}}, total."""
    counts, total = {}, None
    with open(path) as file:
        for line in file:
            fields = line.split()
            if len(fields) < 2 or not fields[1].isdigit():
                continue  # the header, the rules, anything strace said besides
            calls, errors = int(fields[1]), int(fields[2]) if len(fields) > 2 else 0
            if fields[0] == "total":
                total = calls
            else:
                counts[fields[0]] = {"calls": calls, "errors": errors}
    return counts, total


def strace_pass(selected):
    """Runs each of STRACE_PAIRS whose workload was selected, once each tool under
    `strace -f -c` (every thread, start-up included), in a pass of its own after the timed
    rounds: strace slows every system call, so it never runs in them. Returns the counts per
    workload and tool."""
    by_workload = {w.name: w for w in selected}
    # A pair whose tools --tools left out is not counted.
    return [strace_workload(by_workload[name], pair) for name, pair in STRACE_PAIRS
            if name in by_workload
            and set(pair) <= {t.name for t in by_workload[name].tools}]


def strace_workload(workload, pair):
    """The counts of `pair` (haul, its curl peer) on `workload` under strace."""
    by_name = {t.name: t for t in workload.tools}
    folder = os.path.join(WORK, "strace")
    os.makedirs(folder, exist_ok=True)
    tools = {}
    for name in pair:
        tool = by_name[name]
        reset_output(tool, workload.www)
        os.sync()
        out = os.path.join(folder, f"{workload.name}-{name}.txt")
        if os.path.exists(out):
            os.remove(out)
        done = subprocess.run(["strace", "-f", "-c", "-U", "name,calls,errors", "-o", out, "--"]
                              + tool.command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        problem = (f"exit {done.returncode}: {done.stderr.strip()[-300:]}" if done.returncode
                   else check_output(workload, tool))
        counts, total = strace_counts(out) if os.path.exists(out) else ({}, None)
        if total is None and not problem:
            problem = f"no strace summary: {done.stderr.strip()[-300:]}"
        tools[name] = {"error": problem, "total": total, "syscalls": counts}
        log(f"strace       {workload.name:<12} {name:<16} "
            + (f"FAILED {problem}" if problem else f"{total} system calls"))
        reset_output(tool, workload.www)
    return {"workload": workload.name, "files": workload.files, "pair": list(pair),
            "tools": tools}


def syscall_table(traced):
    """Calls per file for each tool: a row per system call that some tool makes at least
    STRACE_SHOWN times per file, then futex and the total, and on STRACE_CHECKED the engine
    issue's checks."""
    files, pair = traced["files"], traced["pair"]
    good = {n: t for n, t in traced["tools"].items() if not t["error"]}

    def per_file(tool, name):
        entry = good[tool]["syscalls"].get(name) if tool in good else None
        return {"calls": entry["calls"] / files if entry else 0.0,
                "errors": entry["errors"] / files if entry else 0.0} if tool in good else None

    names = {n for t in good.values() for n, c in t["syscalls"].items()
             if c["calls"] / files >= STRACE_SHOWN}
    rows = [{"syscall": n, **{tool: per_file(tool, n) for tool in pair}} for n in names]
    rows.sort(key=lambda r: (-max(r[t]["calls"] for t in pair if r[t]), r["syscall"]))
    futex = {tool: per_file(tool, "futex") for tool in pair}
    total = {tool: good[tool]["total"] / files if tool in good else None for tool in pair}
    haul, curl = pair
    checks = {}
    checked = traced["workload"] == STRACE_CHECKED
    held = traced["workload"] in STRACE_TOTAL_CHECKED
    if checked and futex[haul]:
        checks["futex_per_file"] = {"value": futex[haul]["calls"], "goal": 1 / 20,
                                    "met": futex[haul]["calls"] <= 1 / 20}
    if held and total[haul] is not None and total[curl] is not None:
        # No more system calls than curl's plus one: the rename of the finished file.
        excess = total[haul] - total[curl]
        checks["total_over_curl"] = {"value": excess, "goal": 1.0, "met": excess <= 1.0}
    return {**traced, "shown_from": STRACE_SHOWN, "rows": rows, "futex_per_file": futex,
            "total_per_file": total, "checks": checks}
