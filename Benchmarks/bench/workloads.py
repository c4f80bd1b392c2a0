"""Workload and every workload a run knows: the loopback downloads and uploads (workloads),
serve-small through `haul serve` (serve_workload), issue 22's https and long-link workloads
(link_workloads), issue 23's tree (tree_workloads, with its check) and issue 43's hf-model
(hf_model.py)."""

import os
import shutil
import subprocess

from .common import (GIB, HAUL_PER_HOST, HERE, KIB, LINK_J, LINK_RTT_MS, MIB, RTT_MS,
                     SHORT_PASSES, SWEEP, WORK, log)
from .corpus import digest_of, make_tree
from .haul_daemon import Daemon
from .hf_model import hf_workload
from .servers import link_round_trip_ms
from .tools import (Tool, download_tools, link_tools, loops_missing, same_j_tools, tree_tools,
                    upload_tools)


class Workload:
    """`connections`: nginx's connection log, read after each run for the connections the
    tool opened (None: not counted). `rounds`: at most this many rounds (the long-link
    workloads are slow by nature). `total_bytes`: for a corpus of mixed sizes."""

    def __init__(self, name, title, files, size, reference, tools, kind="download",
                 check=None, passes=1, connections=None, folder=None, rounds=None,
                 total_bytes=None, prepare=None):
        self.name = name
        self.title = title
        self.files = files
        self.bytes = files * size if total_bytes is None else total_bytes
        self.connections = connections
        self.folder = folder
        self.rounds = rounds
        self.reference = reference
        self.tools = tools
        self.kind = kind
        self.check = check  # check(workload, tool): what check_output says, for this one
        self.prepare = prepare  # run once before the first round (untimed)
        self.passes = passes  # shuffled passes over the tools per round (SHORT_PASSES)


def workloads(corpus, files, base, j, haul, multi, tmpfs, disk, uploads, urlsession, links):
    www = os.path.join(corpus, "www")
    up = os.path.join(corpus, "up")
    spec = os.path.join(WORK, "spec")
    result = []
    small, medium, large = files["small"], files["medium"], files["large"]
    n, size = len(small), small[0]["size"]
    # 1 engine loop against 2 side by side where the loop thread can saturate.
    everyone = ["haul-curl", "haul-curl-1loop", "haul-urlsession", "curl-parallel", "aria2c",
                "wget2", "rclone", "multi-ref"]
    loops = loops_missing(haul)

    tools = download_tools(os.path.join(spec, "small-tmpfs"), base, "small", small,
                           os.path.join(tmpfs, "out"), j, haul, multi, loops=loops,
                           urlsession=urlsession)
    result.append(Workload("small-tmpfs", f"{n} x {size // KIB} KiB to tmpfs", n, size,
                           "curl-parallel",
                           [tools[t] for t in everyone + ["urlsession-ref",
                                                          "urlsession-ref-delegate"]],
                           passes=SHORT_PASSES))
    result.append(serve_workload(os.path.join(spec, "serve-small"), base, small,
                                 os.path.join(tmpfs, "out"), j, haul, multi))
    tools = download_tools(os.path.join(spec, "small-disk"), base, "small", small,
                           os.path.join(disk, "out"), j, haul, multi, loops=loops)
    result.append(Workload("small-disk", f"{n} x {size // KIB} KiB to disk", n, size,
                           "curl-parallel", [tools[t] for t in everyone]))
    m, msize = len(medium), medium[0]["size"]
    tools = download_tools(os.path.join(spec, "medium"), base, "medium", medium,
                           os.path.join(disk, "out"), j, haul, multi, loops=loops)
    result.append(Workload("medium", f"{m} x {msize // MIB} MiB to disk", m, msize,
                           "curl-parallel", [tools[t] for t in everyone]))
    lsize = large[0]["size"]
    label = f"{lsize // GIB} GiB" if lsize >= GIB else f"{lsize // MIB} MiB"
    tools = download_tools(os.path.join(spec, "large"), base, "large", large,
                           os.path.join(disk, "out"), j, haul, multi, loops=loops)
    result.append(Workload("large", f"{len(large)} x {label} to disk", len(large), lsize,
                           "curl-parallel",
                           [tools[t] for t in ["haul-curl", "haul-curl-1loop", "haul-curl-auto",
                                               "haul-urlsession", "curl-parallel",
                                               "aria2c", "wget2", "rclone"]]))
    one = large[:1]
    out = os.path.join(disk, "out")
    target = os.path.join(out, one[0]["name"])
    url = f"{base}/large/{one[0]['name']}"
    plain = download_tools(os.path.join(spec, "single"), base, "large", one, out, j, haul, multi,
                           whole_folder=len(one) == len(large), urlsession=urlsession)
    curl_o = Tool("curl-o", ["curl", "-sS", "-o", target, url], out)
    result.append(Workload("single", f"1 x {label} to disk, no digest asked", 1, lsize, "curl-o",
                           [plain["haul-curl"], plain["haul-urlsession"], curl_o,
                            plain["rclone"], plain["multi-ref"],
                            plain["urlsession-ref-download"], plain["urlsession-ref-delegate"]]))
    # SHA-256 against its peer, and beside it what SHA-512 and two digests at once cost.
    source = os.path.join(www, "large", one[0]["name"])
    name = one[0]["name"]
    sha256 = {name: {"sha256": one[0]["sha256"]}}
    sha512 = {name: {"sha512": digest_of(source, "sha512")}}
    two = {name: {"sha256": one[0]["sha256"], "md5": digest_of(source, "md5")}}
    hashed = download_tools(os.path.join(spec, "single-sha"), base, "large", one, out, j, haul,
                            multi, digests=sha256)
    hashed512 = download_tools(os.path.join(spec, "single-sha512"), base, "large", one, out, j,
                               haul, multi, digests=sha512)
    hashed_two = download_tools(os.path.join(spec, "single-sha256-md5"), base, "large", one, out,
                                j, haul, multi, digests=two)
    curl_sha = Tool("curl-o+sha256",
                    ["sh", "-c", f"curl -sS -o '{target}' '{url}' && openssl dgst -sha256 "
                                 f"'{target}' >/dev/null"], out)
    result.append(Workload("single-sha", f"1 x {label} to disk, SHA-256 checked", 1, lsize,
                           "curl-o+sha256",
                           [hashed["haul-curl"], hashed["haul-urlsession"],
                            hashed512["haul-curl"].renamed("haul-curl-sha512"),
                            hashed_two["haul-curl"].renamed("haul-curl-sha256+md5"),
                            curl_sha, curl_o]))
    ups = files["up-small"]
    tools = upload_tools(os.path.join(spec, "up-small"), base, "up-small", ups, up, j, haul,
                         "small", urlsession)
    result.append(Workload("up-small", f"{len(ups)} x {ups[0]['size'] // KIB} KiB PUT",
                           len(ups), ups[0]["size"], "curl-parallel-T", list(tools.values()),
                           kind="upload", passes=SHORT_PASSES))
    # The same uploads 40 ms away (relay.py in front of the plain port), haul and curl -T with
    # LINK_J in flight: what a round trip per upload costs each.
    far = ups[:links["files"]]
    tools = upload_tools(os.path.join(spec, "up-small-40ms"), links["bases"]["up-40ms"],
                         "up-small", far, up, LINK_J, haul, "small-40ms", urlsession)
    result.append(Workload("up-small-40ms", f"{len(far)} x {far[0]['size'] // KIB} KiB PUT, "
                           f"plain HTTP/1.1, {RTT_MS} ms round trip, -j {LINK_J} for both",
                           len(far), far[0]["size"], "curl-parallel-T",
                           [tools["haul-curl"], tools["curl-parallel-T"]], kind="upload",
                           rounds=links["long_rounds"]))
    upl = files["up-large"]
    usize = upl[0]["size"]
    ulabel = f"{usize // GIB} GiB" if usize >= GIB else f"{usize // MIB} MiB"
    tools = upload_tools(os.path.join(spec, "up-large"), base, "up-large", upl, up, j, haul,
                         "large", urlsession)
    result.append(Workload("up-large", f"1 x {ulabel} PUT", 1, usize, "curl-T",
                           list(tools.values()), kind="upload"))
    sources = {"small-tmpfs": "www/small", "small-disk": "www/small", "serve-small": "www/small",
               "medium": "www/medium",
               "large": "www/large", "single": "www/large", "single-sha": "www/large",
               "up-small": "up/up-small", "up-small-40ms": "up/up-small",
               "up-large": "up/up-large"}
    for workload in result:
        workload.www = uploads if workload.kind == "upload" else www
        workload.source = os.path.join(corpus, sources[workload.name])
    for workload in link_workloads(spec, small, links, haul, multi, tmpfs, disk):
        workload.www = www
        workload.source = os.path.join(www, workload.folder)
        result.append(workload)
    for workload in tree_workloads(spec, base, corpus, links["tree"], haul, j, tmpfs):
        workload.www = www
        workload.source = workload.folder
        result.append(workload)
    result.append(hf_workload(os.path.join(spec, "hf-model"), links["size"], haul,
                              os.path.join(disk, "out"), DAEMONS))
    return result


# The daemons the workloads started, stopped when the runs end (before tmpfs is unmounted).
DAEMONS = []


def serve_workload(spec, base, small, output, j, haul, multi):
    """serve-small (issue 45): the small files handed to a running `haul serve` (`haul add
    --wait`, the daemon started before the first round with the same -j and --per-host),
    beside `haul run` on the same manifest. The daemon's CPU counts with its client's. Two
    more rows follow the event stream meanwhile: `haul-serve-reader` with `haul events`
    reading every event (the run fails unless it saw every file's `entry-done`), and
    `haul-serve-stalled` with a reader that never reads, which must cost the transfers
    nothing."""
    tools = download_tools(spec, base, "small", small, output, j, haul, multi)
    manifest = os.path.join(spec, "manifest.jsonl")
    daemon_work = os.path.join(WORK, "serve-small-daemon")
    socket_path = os.path.join(daemon_work, "serve", "haul.sock")
    started = []

    def start():
        shutil.rmtree(daemon_work, ignore_errors=True)
        daemon = Daemon(haul, daemon_work, ["-j", str(j), "--per-host", str(j)])
        started.append(daemon)
        DAEMONS.append(daemon)

    def cpu():
        return started[0].cpu() if started else 0.0

    reader = os.path.join(HERE, "serve", "add-with-reader")
    rows = [
        tools["haul-curl"],
        Tool("haul-serve", [haul, "add", "--socket", socket_path, manifest, "-o", output,
                            "--wait", "-q"], output, helper_cpu=cpu),
        Tool("haul-serve-reader", [reader, "keeping", haul, socket_path, output, manifest,
                                   str(len(small))], output, helper_cpu=cpu),
        Tool("haul-serve-stalled", [reader, "stalled", haul, socket_path, output, manifest,
                                    str(len(small))], output, helper_cpu=cpu),
    ]
    n, size = len(small), small[0]["size"]
    return Workload("serve-small", f"{n} x {size // KIB} KiB to tmpfs through haul serve", n,
                    size, "haul-curl", rows, passes=SHORT_PASSES, prepare=start)


def link_workloads(spec, small, links, haul, multi, tmpfs, disk):
    """Issue 22's workloads: https without a round trip (5,000 x 16 KiB to tmpfs and to disk,
    the mixed corpus) with the same concurrency for every tool, and 1,000 x 16 KiB over h2,
    https h1.1 and plain http/1.1 at 0 and 40 ms round trip with each tool's defaults and the
    same concurrency. Every one counts the connections each tool opens (nginx's log)."""
    result = []
    bases, log_path = links["bases"], links["log"]
    tmp_out, disk_out = os.path.join(tmpfs, "out"), os.path.join(disk, "out")
    n, size = len(small), small[0]["size"]
    for name, where, out in [("https-small-tmpfs", "tmpfs", tmp_out),
                             ("https-small-disk", "disk", disk_out)]:
        tools = same_j_tools(os.path.join(spec, name), bases["https"], "small", small, out, haul,
                             multi, links)
        result.append(Workload(name, f"{n} x {size // KIB} KiB over https (h1.1) to {where}, "
                               f"-j {LINK_J} for every tool", n, size, "curl-parallel", tools,
                               connections=log_path, folder="small"))
    mixed = links["mixed"]
    total = sum(e["size"] for e in mixed)
    tools = same_j_tools(os.path.join(spec, "https-mixed"), bases["https"], "mixed", mixed,
                         disk_out, haul, multi, links)
    result.append(Workload("https-mixed", f"{len(mixed)} files of 1 KiB to 8 MiB ({total / 1e6:.0f} "
                           f"MB) over https (h1.1) to disk, -j {LINK_J} for every tool",
                           len(mixed), 0, "curl-parallel", tools, connections=log_path,
                           folder="mixed", total_bytes=total))
    few = small[:links["files"]]
    k = len(few)
    # The same over https h1.1 with each tool's own CAs, the run's CA installed as a system
    # CA would be: what a user without --cacert pays per TLS connection.
    prefix, why = links["system_ca"]
    tools = same_j_tools(os.path.join(spec, "https-system-ca"), bases["https"], "small", few,
                         tmp_out, haul, multi, dict(links, ca=None))
    tools = [Tool(t.name, (prefix or []) + t.command, t.output, skipped=why) for t in tools]
    result.append(Workload("https-system-ca", f"{k} x {size // KIB} KiB over https (h1.1) to "
                           f"tmpfs, -j {LINK_J} for every tool, the system's CAs (no CA option)",
                           k, size, "curl-parallel", tools, connections=log_path,
                           folder="small"))
    rows = ["haul-curl", f"haul-curl-j{LINK_J}", "haul-curl-auto", "curl-parallel",
            f"curl-parallel-j{LINK_J}", "wget2", f"wget2-j{LINK_J}", "aria2c",
            f"aria2c-j{LINK_J}"] + [f"haul-curl-j{n}" for n in SWEEP if n != LINK_J] + [
                "haul-curl-auto-open"]
    for name, base, title, long in [
            ("h2-0ms", "h2", "https, HTTP/2, no round trip", False),
            ("h1s-0ms", "https", "https, HTTP/1.1, no round trip", False),
            ("h2-40ms", "h2-40ms", f"https, HTTP/2, {RTT_MS} ms round trip", True),
            ("h1s-40ms", "https-40ms", f"https, HTTP/1.1, {RTT_MS} ms round trip", True),
            ("h1-40ms", "http-40ms", f"plain HTTP/1.1, {RTT_MS} ms round trip", True)]:
        tools = link_tools(os.path.join(spec, name), bases[base], "small", few, tmp_out, haul,
                           multi, links)
        # Over HTTP/1.1 at 40 ms, curl held to haul's connections shows what the relay gives
        # that many connections.
        # haul's highest fixed -j under the default --per-host shows that ceiling binding.
        extra = ([f"curl-parallel-j{HAUL_PER_HOST}",
                  f"haul-curl-j{SWEEP[-1]}-per-host{HAUL_PER_HOST}"]
                 if long and name != "h2-40ms" else [])
        # At 40 ms, -j 4 is held to 4 files per round trip (100 files/s), below every other
        # row: the sweep leaves it out there, where it would take 10 s a run.
        chosen = [t for t in rows if not (long and t == "haul-curl-j4")] + extra
        prepare = None
        if long and name != "h2-40ms":
            url = f"{bases[base]}/small/{few[0]['name']}"

            def prepare(name=name, url=url):
                LINK_RTT_MS[name] = link_round_trip_ms(url, links["ca"])
                log(f"{name}: the relay's round trip is {LINK_RTT_MS[name]:.2f} ms")
        # aria2c speaks no HTTP/2: its rows there are HTTP/1.1, as a user gets them.
        result.append(Workload(name, f"{k} x {size // KIB} KiB to tmpfs, {title}; each tool "
                               f"with its defaults and with -j {LINK_J}", k, size,
                               "curl-parallel", [tools[t] for t in chosen], connections=log_path,
                               folder="small", rounds=links["long_rounds"] if long else None,
                               passes=1 if long else SHORT_PASSES, prepare=prepare))
    # The relay itself at 0 ms, against h2-0ms's direct runs: what the relay can carry.
    tools = link_tools(os.path.join(spec, "h2-relay-0ms"), bases["h2-relay-0ms"], "small", few,
                       tmp_out, haul, multi, links)
    result.append(Workload("h2-relay-0ms", f"{k} x {size // KIB} KiB to tmpfs, https, HTTP/2 "
                           "through the relay at 0 ms (its capacity, against h2-0ms)", k, size,
                           "curl-parallel",
                           [tools[t] for t in ["curl-parallel", f"wget2-j{LINK_J}",
                                               f"haul-curl-j{LINK_J}"]],
                           connections=log_path, folder="small", rounds=links["long_rounds"]))
    return result


def count_tree(folder):
    """The .bin files below `folder` (any depth) and their bytes."""
    count = total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            if name.endswith(".bin"):
                count += 1
                total += os.path.getsize(os.path.join(root, name))
    return count, total


def check_tree(workload, tool):
    count, total = count_tree(tool.kept or tool.output)
    if count != workload.files or total != workload.bytes:
        return f"left {count} files / {total} bytes, expected {workload.files} / {workload.bytes}"
    return None


def tree_workloads(spec, base, corpus, shape, haul, j, disk):
    """`tree`: the whole tree into an empty folder, each tool in turn; `tree-rerun`: each
    tool again over the tree it fetched (filled once, untimed, before the first round).
    `disk` is the tmpfs: on the machine's ext4, creating 10,000 files in folders just
    emptied took most of every tool's time in the kernel's inode allocation, whose cost
    grew from round to round (HISTORY.md), so the disk measured itself, not the clients."""
    folders, per, size = shape
    make_tree(corpus, shape)
    url = f"{base}/tree/"
    files = folders * per
    title = f"{files} x {size // KIB} KiB in {folders} folders, nginx autoindex"
    first = tree_tools(os.path.join(spec, "tree"), url, os.path.join(disk, "out"), haul, j,
                       rerun=False)
    again = []
    for tool in tree_tools(os.path.join(spec, "tree-rerun"), url, None, haul, j, rerun=True):
        kept = os.path.join(disk, "tree-kept", tool.name)
        tool.command = [kept if part is None else part for part in tool.command]
        tool.output, tool.kept = None, kept
        again.append(tool)

    def fill():
        for tool in tree_tools(os.path.join(spec, "tree-fill"), url, None, haul, j, False):
            kept = os.path.join(disk, "tree-kept", tool.name)
            shutil.rmtree(kept, ignore_errors=True)
            os.makedirs(kept)
            command = [kept if part is None else part for part in tool.command]
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        log(f"tree-rerun: filled {len(again)} trees")

    source = os.path.join(corpus, "www", "tree")
    return [
        Workload("tree", title, files, size, "wget2", first, check=check_tree, folder=source),
        Workload("tree-rerun", f"rerun over the complete tree ({files} files)", files, size,
                 "wget2", again, check=check_tree, folder=source, prepare=fill),
    ]
