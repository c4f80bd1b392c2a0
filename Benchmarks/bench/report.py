"""The report: the machine it ran on (machine), latest.md (markdown, with syscall_lines for
each strace table), and the three files a run writes, latest.{json,md,png} in
Benchmarks/results/ (write_results; the plot is plot.py's)."""

import datetime
import json
import os
import platform
import subprocess
import sys

from .common import HERE, RESULTS, ROOT, STRACE_CHECKED, STRACE_TOTAL_CHECKED, log, sh


def machine():
    def first(command):
        try:
            return subprocess.run(command, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "?"
    commit = first(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    return {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(), "kernel": platform.release(), "cpus": os.cpu_count(),
            "commit": commit, "curl": first(["curl", "--version"]),
            "aria2c": first(["aria2c", "--version"]), "wget2": first(["wget2", "--version"]),
            "rclone": first(["rclone", "version"]),
            "nginx": "nginx (loopback, sendfile, keep-alive, access log off)"}


def syscall_lines(syscalls):
    """latest.md's section on one workload's system calls per file, haul beside its curl peer,
    with the issue's checks where they apply."""
    haul, curl = syscalls["pair"]
    lines = [f"## System calls per file: {syscalls['workload']} under strace -f -c", "",
             "One run of each tool after the timed rounds (strace slows every system call, so it "
             f"never runs in them); every thread, start-up included, divided by the "
             f"{syscalls['files']} files. A row for each system call that either tool makes at "
             f"least {syscalls['shown_from']} times per file; failed calls per file in brackets.",
             ""]
    for name, tool in syscalls["tools"].items():
        if tool["error"]:
            lines += [f"{name} not counted: {tool['error']}", ""]

    def cell(value):
        if value is None:
            return "not counted"
        text = f"{value['calls']:.3f}"
        return text + (f" ({value['errors']:.3f})" if value["errors"] >= 0.0005 else "")

    lines += [f"| system call | {haul} | {curl} |", "| --- | ---: | ---: |"]
    for row in syscalls["rows"]:
        lines.append(f"| {row['syscall']} | {cell(row[haul])} | {cell(row[curl])} |")
    futex, total = syscalls["futex_per_file"], syscalls["total_per_file"]
    lines.append(f"| **futex per file** | {cell(futex[haul])} | {cell(futex[curl])} |")
    lines.append("| **total per file** | "
                 + " | ".join("not counted" if total[t] is None else f"{total[t]:.3f}"
                              for t in syscalls["pair"]) + " |")
    checks = syscalls["checks"]
    if syscalls["workload"] not in STRACE_TOTAL_CHECKED:
        return lines + [""]
    said = []
    if "futex_per_file" in checks:
        c = checks["futex_per_file"]
        said.append(f"{haul} makes {c['value']:.3f} futex calls per file, goal at most "
                    f"{c['goal']:.3f} (one per 20 files): {'met' if c['met'] else 'NOT met'}")
    if "total_over_curl" in checks:
        c = checks["total_over_curl"]
        said.append(f"its total is {total[haul]:.3f} per file against {curl}'s "
                    f"{total[curl]:.3f}, goal at most {curl}'s + 1 (the rename): "
                    f"{'met' if c['met'] else 'NOT met'}")
    issue = "Engine issue's" if syscalls["workload"] == STRACE_CHECKED else "Issue 22's"
    lines += ["", f"{issue} target: " + ("; ".join(said) if said else "not measured")
              + ".", ""]
    return lines


def page_reporting(options):
    """What the runs found of the VM's free page reporting: paused by the harness
    (--pause-page-reporting) or left as it was, with the orders the runs saw (11: paused, as
    another benchmark on the machine may have done meanwhile)."""
    orders = options.get("page_reporting_orders") or []
    seen = f" (order {', '.join(orders)} as the runs found it)" if orders else ""
    if not options.get("page_reporting", True):
        return ", free page reporting paused" + seen
    return ", free page reporting left as the VM has it" + seen if orders else ""


def markdown(table, goals, meta, options, syscalls=None):
    repeated = [f"{w['name']} {w['passes']}" for w in table if w.get("passes", 1) > 1]
    passes = f" (passes per round: {', '.join(repeated)})" if repeated else ""
    lines = ["# haul benchmarks: latest run", "",
             f"{meta['date']}, commit {meta['commit']}, {meta['cpus']} CPUs, kernel "
             f"{meta['kernel']}; {options['rounds']} interleaved round(s){passes}, -j "
             f"{options['j']} for every tool, {'quick' if options['quick'] else 'full'} corpora"
             f"{page_reporting(options)}. "
             "Medians over all runs (best s: the fastest run); peak RSS is the maximum. "
             "MB = 10^6 bytes.", "",
             f"Peers: {meta['curl']}; {meta['aria2c']}; {meta['wget2']}; {meta['rclone']}.", ""]
    skipped = {}
    for workload in table:
        for row in workload["tools"]:
            if row.get("skipped"):
                skipped.setdefault((row["tool"], row["skipped"]), []).append(workload["name"])
    for (tool, why), names in skipped.items():
        lines += [f"{tool} ({', '.join(names)}): {why}.", ""]
    lines += ["## Targets", "",
             "A speed target's ratio is of the two tools' medians; \"runs ahead\" counts the "
             "paired runs (the same round and pass) in which haul was the faster, as a measure "
             "of how far the median stands from the runs' spread.", "",
             "| target | measured | goal | met | runs ahead |",
             "| --- | --- | --- | --- | --- |"]
    for goal in goals:
        unit = "x" if goal["unit"] == "x" else f" {goal['unit']}"
        digits = 3 if goal["unit"] == "calls/file" else 2
        sign = {"higher": ">=", "above": ">", "lower": "<="}[goal["better"]]
        wanted = "(report)" if goal["goal"] == 0.0 else f"{sign} {goal['goal']}{unit}"
        if goal["value"] is None:
            lines.append(f"| {goal['target']} | not measured | {wanted} | | |")
            continue
        value = f"{goal['value']:.{digits}f}{unit}"
        met = "" if goal["goal"] == 0.0 else "yes" if goal["met"] else "NO"
        led = goal.get("runs_ahead")
        runs = f"{led[0]} of {led[1]}" if led else ""
        lines.append(f"| {goal['target']} | {value} | {wanted} | {met} | {runs} |")
    lines += [""] + [line for traced in syscalls or [] for line in syscall_lines(traced)]
    lines += ["## Results", ""]
    for workload in table:
        # The connections each tool opened (nginx's log), where the workload counts them.
        counted = any("connections" in row for row in workload["tools"])
        extra = " connections |" if counted else ""
        blank = " |" if counted else ""
        lines += [f"### {workload['name']}: {workload['title']}", "",
                  f"Ratio: files/s (equally MB/s) against `{workload['reference']}`.", "",
                  "| tool | wall s | best s | files/s | MB/s | CPU s | CPU s/GiB | CPU s/1k files | "
                  "peak RSS MiB | ratio |" + extra,
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
                  + (" ---: |" if counted else "")]
        for row in workload["tools"]:
            if row.get("skipped"):
                lines.append(f"| {row['tool']} | {row['skipped']} | | | | | | | | |" + blank)
                continue
            if "wall_s" not in row:
                lines.append(f"| {row['tool']} | failed: {row['error']} | | | | | | | | |"
                             + blank)
                continue
            flag = "" if row["ok"] else f" ({row['failed_runs']} run(s) failed)"
            connections = ""
            if counted:
                low, high = row.get("connections_range", [None, None])
                connections = (f" {low} |" if low == high else f" {row['connections']:g} "
                               f"({low}-{high}) |") if low is not None else " |"
            lines.append(
                f"| {row['tool']}{flag} | {row['wall_s']:.3f} | {row['wall_min_s']:.3f} | "
                f"{row['files_per_s']:.1f} | "
                f"{row['mb_per_s']:.1f} | {row['cpu_s']:.3f} | {row['cpu_s_per_gib']:.2f} | "
                f"{row['cpu_s_per_1000_files']:.3f} | {row['peak_rss_mib']:.1f} | "
                + (f"{row['ratio_to_reference']:.2f} |" if "ratio_to_reference" in row
                   else " |") + connections)
        lines.append("")
    return "\n".join(lines)


def write_results(table, goals, meta, options, syscalls, runs):
    """Writes Benchmarks/results/latest.json (every number, every run), latest.md (markdown)
    and latest.png (plot.py, from the JSON)."""
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "latest.json"), "w") as file:
        json.dump({"machine": meta, "options": options, "targets": goals, "workloads": table,
                   "syscalls": syscalls, "runs": runs}, file, indent=2)
    with open(os.path.join(RESULTS, "latest.md"), "w") as file:
        file.write(markdown(table, goals, meta, options, syscalls) + "\n")
    sh([sys.executable, os.path.join(HERE, "plot.py"), os.path.join(RESULTS, "latest.json"),
        os.path.join(RESULTS, "latest.png")])
    log(f"wrote {os.path.relpath(RESULTS, ROOT)}/latest.md, latest.json, latest.png")
