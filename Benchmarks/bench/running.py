"""The timed runs: each run of a tool (run_once, its output emptied and checked), the
interleaved rounds (run_all), the page cache warmed first (warm), the VM's free page
reporting as each run found it (page_reporting_order) or paused on request (steady_memory)
and the tmpfs the runs write to (tmpfs_folder)."""

import mmap
import os
import random
import shutil
import subprocess
import tempfile
import time

from .common import GIB, KIB, MIB, WORK, log
from .servers import count_connections


def reset_output(tool, www):
    if tool.output:
        shutil.rmtree(tool.output, ignore_errors=True)
        os.makedirs(tool.output)
    if tool.uploads:
        shutil.rmtree(os.path.join(www, tool.uploads), ignore_errors=True)


def check_output(workload, tool):
    """Counts the files and bytes a run left, so a fast failure never counts as a result."""
    if workload.check:
        return workload.check(workload, tool)
    if workload.kind == "upload":
        folder = os.path.join(workload.www, tool.uploads)
    else:
        folder = tool.output
    count = total = 0
    if os.path.isdir(folder):
        for entry in os.scandir(folder):
            if entry.is_file() and entry.name.endswith(".bin"):
                count += 1
                total += entry.stat().st_size
    if count != workload.files or total != workload.bytes:
        return f"left {count} files / {total} bytes, expected {workload.files} / {workload.bytes}"
    return None


def run_once(workload, tool):
    """Runs `tool` once on `workload`: wall time around the process; CPU from `wait4`, to the
    microsecond (`/usr/bin/time` prints it in 10 ms steps, a few percent of a small-file
    run); peak RSS from `/usr/bin/time`, which the tool is started through because a child
    of this harness would report the harness's own peak as its own (exec keeps the larger)."""
    reset_output(tool, workload.www)
    os.sync()
    order = page_reporting_order()
    if workload.connections:
        open(workload.connections, "w").close()  # nginx appends: emptied, it counts afresh
    with tempfile.NamedTemporaryFile("r", suffix=".time") as timing:
        command = ["/usr/bin/time", "-f", "%M", "-o", timing.name] + tool.command
        helper_before = tool.helper_cpu() if tool.helper_cpu else 0.0
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
        errors = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.stderr.close()
        process.returncode = os.waitstatus_to_exitcode(status)
        rss = int(timing.read().split()[-1])
    user, system = usage.ru_utime, usage.ru_stime
    helper = tool.helper_cpu() - helper_before if tool.helper_cpu else 0.0
    problem = None
    if process.returncode != 0:
        problem = f"exit {process.returncode}: {errors.strip()[-300:]}"
    else:
        problem = check_output(workload, tool)
    connections = count_connections(workload.connections) if workload.connections else None
    return {"wall": wall, "cpu": user + system + helper, "user": user, "sys": system,
            "rss_mib": rss / 1024, "error": problem, "connections": connections,
            "page_reporting_order": order}


def warm(selected):
    """Reads every file the selected workloads serve or upload once, so that the page cache
    holds them before the first timed run: otherwise whichever tool ran first paid for
    reading a 1 GiB file back from the disk."""
    for folder in sorted({w.source for w in selected}):
        for root, _, names in os.walk(folder):
            for name in names:
                with open(os.path.join(root, name), "rb") as file:
                    while file.read(1 << 20):
                        pass


PAGE_REPORTING = "/sys/module/page_reporting/parameters/page_reporting_order"
# Above the largest block the kernel frees: nothing is reported (steady_memory).
PAUSED_ORDER = "11"


def page_reporting_order():
    """The VM's free page reporting order as a run starts ("11": paused), or None where
    there is no such setting. Read before every run: another benchmark on the same machine
    may pause and restore it while this one runs, and the report says which runs it saw."""
    try:
        with open(PAGE_REPORTING) as file:
            return file.read().strip()
    except OSError:
        return None


def steady_memory():
    """With `--pause-page-reporting`, on a VM that hands free memory back to its host (free
    page reporting), stops that for the run and touches the free memory once, so that the
    host backs it; returns how to undo the change, or None where there is nothing to do (no
    such VM, or not root).

    Why: such a VM pays a host fault for each page it touches again after giving it back.
    A tool writing a gigabyte into the page cache in large pieces gets large folios, taken
    from exactly that memory and paid several times the system time of the same run
    elsewhere; which tool paid depended on what ran before it (figures: HISTORY.md). Not
    the default: a user's cloud VM has reporting on, and the runs should show that case."""
    if os.geteuid() != 0 or not os.access(PAGE_REPORTING, os.W_OK):
        return None
    with open(PAGE_REPORTING) as file:
        saved = file.read().strip()
    with open(PAGE_REPORTING, "w") as file:
        file.write(PAUSED_ORDER)
    with open("/proc/meminfo") as file:
        free_kib = next(int(line.split()[1]) for line in file if line.startswith("MemFree:"))
    chunk = 64 * MIB
    # At most 16 GiB: several times what the workloads hold at once, whatever the machine.
    count = min(max(0, free_kib * KIB - 2 * GIB), 16 * GIB) // chunk
    log(f"free page reporting paused; touching {count * chunk // GIB} GiB of free memory once")
    pattern, held = b"\1" * chunk, []
    for _ in range(count):
        region = mmap.mmap(-1, chunk)
        region.write(pattern)
        held.append(region)
    for region in held:
        region.close()

    def restore():
        with open(PAGE_REPORTING, "w") as file:
            file.write(saved)
    return restore


def run_all(selected, rounds):
    runs = {w.name: {t.name: [] for t in w.tools} for w in selected}
    for round_index in range(rounds):
        for workload in selected:
            if workload.rounds is not None and round_index >= workload.rounds:
                continue
            # Interleaved: every tool once per pass, in an order shuffled for each pass
            # (seeded, so every run of the harness uses the same orders). A fixed cycle
            # made the same tool always follow the same peer, and on a VM a run's speed can
            # depend on what ran just before it (results/README.md).
            order = []
            for index in range(workload.passes):
                tools = [t for t in workload.tools if not t.skipped]
                seed = f"{workload.name}/{round_index}" + (f"/{index}" if index else "")
                random.Random(seed).shuffle(tools)
                order += tools
            for tool in order:
                result = run_once(workload, tool)
                runs[workload.name][tool.name].append(result)
                state = f"FAILED {result['error']}" if result["error"] else (
                    f"{result['wall']:.2f} s, cpu {result['cpu']:.3f} s, "
                    f"rss {result['rss_mib']:.0f} MiB"
                    + ("" if result["connections"] is None
                       else f", {result['connections']} connections")
                    + ("" if result["page_reporting_order"] is None
                       else f", page reporting order {result['page_reporting_order']}"))
                log(f"round {round_index + 1}/{rounds} {workload.name:<12} {tool.name:<16} {state}")
            for tool in workload.tools:
                reset_output(tool, workload.www)
    return runs


def tmpfs_folder():
    """A tmpfs for the small-file run and nginx's uploads: a fresh mount when root, else
    /dev/shm."""
    folder = os.path.join(WORK, "tmpfs")
    os.makedirs(folder, exist_ok=True)
    if os.geteuid() == 0 and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=3g", "haul-bench", folder],
            stderr=subprocess.DEVNULL).returncode == 0:
        return folder, lambda: subprocess.run(["umount", folder])
    folder = tempfile.mkdtemp(prefix="haul-bench-", dir="/dev/shm")
    return folder, lambda: shutil.rmtree(folder, ignore_errors=True)
