"""The issues' targets, each a ratio against a peer in the same run (or a count beside
curl's): the engine's (targets), issue 22's links and TLS (link_targets), issue 23's tree
(tree_targets), issue 43's hf-model (hf_targets)."""


from .common import HAUL_PER_HOST, LINK_J, LINK_RTT_MS, SETUP_ROUND_TRIPS, STRACE_CHECKED, SWEEP


def targets(table, syscalls=None):
    """The engine issue's targets (issue 11), every one a ratio against a peer in the same run
    (or a count beside curl's), never an absolute time; rows with goal 0.0 are only reported."""
    by = {w["name"]: {t["tool"]: t for t in w["tools"]} for w in table}

    def ratio(workload, tool, reference, key="files_per_s"):
        a, b = by.get(workload, {}).get(tool), by.get(workload, {}).get(reference)
        if not a or not b or not a.get(key) or not b.get(key):
            return None
        return a[key] / b[key]

    def ahead(workload, tool, reference):
        """In how many of the paired runs `tool` was faster than `reference`, and of how
        many: run i of each tool is the same round and pass, so the pair shares the machine's
        state. None when the runs do not pair up."""
        a, b = by.get(workload, {}).get(tool), by.get(workload, {}).get(reference)
        walls = (a or {}).get("walls_s"), (b or {}).get("walls_s")
        if not walls[0] or not walls[1] or len(walls[0]) != len(walls[1]):
            return None
        return [sum(x < y for x, y in zip(*walls)), len(walls[0])]

    out = []

    def add(text, value, goal, better="higher", unit="x", led=None):
        if value is None:
            out.append({"target": text, "value": None, "goal": goal, "met": None, "unit": unit,
                        "better": better, "runs_ahead": None})
            return
        met = {"higher": value >= goal, "above": value > goal, "lower": value <= goal}[better]
        out.append({"target": text, "value": value, "goal": goal, "met": met, "unit": unit,
                    "better": better, "runs_ahead": led})

    def speed(text, workload, tool, reference, goal, better="higher"):
        add(text, ratio(workload, tool, reference), goal, better=better,
            led=ahead(workload, tool, reference))

    speed("small-tmpfs: haul-curl files/s vs curl --parallel", "small-tmpfs", "haul-curl",
          "curl-parallel", 1.0)
    speed("small-tmpfs: haul-curl files/s vs wget2 (ahead of it)", "small-tmpfs", "haul-curl",
          "wget2", 1.0, better="above")
    add("small-tmpfs: haul-curl CPU per 1,000 files vs curl --parallel's",
        ratio("small-tmpfs", "haul-curl", "curl-parallel", key="cpu_s_per_1000_files"), 1.25,
        better="lower")
    checked = next((t for t in syscalls or [] if t["workload"] == STRACE_CHECKED), {})
    checks = checked.get("checks", {})
    add("small-tmpfs: haul-curl futex calls per file (strace)",
        checks.get("futex_per_file", {}).get("value"), 0.05, better="lower", unit="calls/file")
    add("small-tmpfs: haul-curl system calls per file minus curl --parallel's (strace; 1 is "
        "the rename)", checks.get("total_over_curl", {}).get("value"), 1.0, better="lower",
        unit="calls/file")
    # The background service (issue 45): a job handed to `haul serve` against `haul run`.
    speed("serve-small: haul serve (haul add --wait) files/s vs haul run", "serve-small",
          "haul-serve", "haul-curl", 0.95)
    speed("serve-small: haul serve with a reader of every event vs without", "serve-small",
          "haul-serve-reader", "haul-serve", 0.95)
    speed("serve-small: haul serve with a stalled reader vs without", "serve-small",
          "haul-serve-stalled", "haul-serve", 0.95)
    add("serve-small: haul serve CPU per 1,000 files (daemon + client) vs haul run's",
        ratio("serve-small", "haul-serve", "haul-curl", key="cpu_s_per_1000_files"), 0.0,
        better="lower")
    speed("large: haul-curl MB/s vs wget2", "large", "haul-curl", "wget2", 1.0)
    speed("medium: haul-curl MB/s vs wget2", "medium", "haul-curl", "wget2", 0.95)
    # Another build of haul beside this one (--compare-haul): a change's after against before.
    for workload in [w["name"] for w in table]:
        if "haul-curl-base" in by[workload]:
            speed(f"{workload}: haul-curl vs haul-curl-base (--compare-haul)", workload,
                  "haul-curl", "haul-curl-base", 0.0)
            add(f"{workload}: haul-curl CPU vs haul-curl-base's",
                ratio(workload, "haul-curl", "haul-curl-base", key="cpu_s"), 0.0,
                better="lower")
    # Two files: every fixed -j from 2 up runs both at once, so -j 16 is the best fixed level.
    speed("large: haul-curl-auto vs the best fixed -j (-j 16: both files at once)", "large",
          "haul-curl-auto", "haul-curl", 0.9)
    speed("single: haul-curl vs curl -o", "single", "haul-curl", "curl-o", 1.3)
    speed("up-small: haul-curl vs curl --parallel -T", "up-small", "haul-curl",
          "curl-parallel-T", 1.0)
    speed("up-large: haul-curl vs curl -T", "up-large", "haul-curl", "curl-T", 1.0)
    for workload in ["small-tmpfs", "small-disk", "single"]:
        row = by.get(workload, {}).get("haul-curl")
        add(f"{workload}: haul-curl peak RSS (MiB)", row.get("peak_rss_mib") if row else None,
            64, better="lower", unit="MiB")
    # What a stronger digest and a second one at once cost, beside SHA-256 (no goal).
    for tool in ["haul-curl-sha512", "haul-curl-sha256+md5"]:
        add(f"single-sha: {tool} vs haul-curl (SHA-256 alone)",
            ratio("single-sha", tool, "haul-curl"), 0.0)
    for workload in ["small-tmpfs", "small-disk", "medium", "large"]:
        add(f"{workload}: haul-curl vs haul-curl-1loop (the default's loops against 1)",
            ratio(workload, "haul-curl", "haul-curl-1loop"), 0.0)
    link_targets(by, speed, add, ratio, syscalls)
    tree_targets(by, add, ratio)
    hf_targets(by, speed, add, ratio, ahead)
    return out


def link_targets(by, speed, add, ratio, syscalls):
    """Issue 22's targets: long links, TLS, the mixed corpus, URLSession's own ceiling."""
    def best(workload, prefix=""):
        """The row of `workload` with the most files/s, among the tools named `prefix`..."""
        rows = [t for name, t in by.get(workload, {}).items()
                if name.startswith(prefix) and t.get("files_per_s")]
        return max(rows, key=lambda t: t["files_per_s"]) if rows else None

    def versus_best(text, workload, tool, prefix, goal):
        top = best(workload, prefix)
        if top is None or tool not in by.get(workload, {}):
            add(text, None, goal)
            return
        add(f"{text} ({top['tool']})", ratio(workload, tool, top["tool"]), goal)

    speed("h2-40ms, defaults: haul-curl files/s vs curl --parallel's", "h2-40ms", "haul-curl",
          "curl-parallel", 1.5)
    speed("h2-40ms, defaults: haul-curl files/s vs wget2's", "h2-40ms", "haul-curl", "wget2",
          2.0)
    versus_best("h2-40ms, defaults: haul-curl vs the best of any tool at any concurrency",
                "h2-40ms", "haul-curl", "", 0.9)
    # The relay's own capacity: the best rate at 40 ms over the best through it at 0 ms (below
    # 1 where the relay is not what bounds the 40 ms runs).
    top40, top0 = best("h2-40ms"), best("h2-relay-0ms")
    add("h2-40ms: the best files/s over the best through the relay at 0 ms (h2-relay-0ms)",
        top40["files_per_s"] / top0["files_per_s"] if top40 and top0 else None, 0.0)
    for tool in ["curl-parallel", f"wget2-j{LINK_J}", f"haul-curl-j{LINK_J}"]:
        add(f"h2-relay-0ms: {tool} through the relay at 0 ms vs direct (h2-0ms)",
            (by["h2-relay-0ms"][tool]["files_per_s"] / by["h2-0ms"][tool]["files_per_s"])
            if by.get("h2-relay-0ms", {}).get(tool, {}).get("files_per_s")
            and by.get("h2-0ms", {}).get(tool, {}).get("files_per_s") else None, 0.0)
    def link_bound(workload, row):
        """`row`'s files/s over what its connections allow on the link: each request costs
        one round trip on its connection, after the connection's own setup, at the round trip
        the relay was measured to give (files x RTT / connections, plus the setup)."""
        rtt = LINK_RTT_MS.get(workload)
        if not row or not row.get("files_per_s") or not row.get("connections") or not rtt:
            return None
        setup = SETUP_ROUND_TRIPS["https" if workload.startswith("h1s") else "http"]
        files = row["files_per_s"] * row["wall_s"]
        ideal = (files / row["connections"] + setup) * rtt / 1000
        return row["files_per_s"] * ideal / files

    for workload in ["h1s-40ms", "h1-40ms"]:
        rtt = LINK_RTT_MS.get(workload)
        measured = f"{rtt:.1f} ms measured" if rtt else "not measured"
        row = by.get(workload, {}).get("haul-curl")
        add(f"{workload}, defaults: haul-curl files/s vs connections / RTT (its "
            f"{row.get('connections', '?') if row else '?'} connections; the link's round trip "
            f"{measured})", link_bound(workload, row), 0.9)
        peer = by.get(workload, {}).get(f"curl-parallel-j{HAUL_PER_HOST}")
        add(f"{workload}: curl --parallel-max {HAUL_PER_HOST} files/s vs connections / RTT "
            f"(its {peer.get('connections', '?') if peer else '?'} connections)",
            link_bound(workload, peer), 0.0)
        speed(f"{workload}, defaults: haul-curl vs curl --parallel-max {HAUL_PER_HOST} (the same "
              "connections)", workload, "haul-curl", f"curl-parallel-j{HAUL_PER_HOST}", 0.0)
        speed(f"{workload}, defaults: haul-curl vs -j {SWEEP[-1]} under the default --per-host "
              f"{HAUL_PER_HOST} (the per-host ceiling binds)", workload, "haul-curl",
              f"haul-curl-j{SWEEP[-1]}-per-host{HAUL_PER_HOST}", 0.0)
    for workload in ["h2-40ms", "h1s-40ms", "h1-40ms"]:
        row = by.get(workload, {}).get("haul-curl")
        add(f"{workload}, defaults: haul-curl connections (ceiling: --per-host "
            f"{HAUL_PER_HOST})", row.get("connections") if row else None, HAUL_PER_HOST,
            better="lower", unit="connections")
    for workload in ["h2-0ms", "h1s-0ms", "h2-40ms", "h1s-40ms", "h1-40ms"]:
        if workload in ["h1s-40ms", "h1-40ms"]:
            # Over HTTP/1.1 the default --per-host holds -j auto to that many connections, by
            # design (docs/behaviour.md), and the sweep's fixed levels run with a per-host
            # ceiling of their own -j: the fixed level with -j auto's room is the highest -j
            # under the default ceiling. -j auto --per-host 256 is judged against the sweep.
            fixed = f"haul-curl-j{SWEEP[-1]}-per-host{HAUL_PER_HOST}"
            versus_best(f"{workload}: haul-curl-auto vs the best fixed -j of haul under the "
                        f"default --per-host {HAUL_PER_HOST}", workload, "haul-curl-auto", fixed,
                        0.9)
        else:
            versus_best(f"{workload}: haul-curl-auto vs the best fixed -j of haul", workload,
                        "haul-curl-auto", "haul-curl-j", 0.9)
        versus_best(f"{workload}: haul-curl-auto-open (-j auto --per-host {SWEEP[-1]}) vs the "
                    "best fixed -j of haul", workload, "haul-curl-auto-open", "haul-curl-j", 0.9)
    speed(f"https-system-ca: haul-curl files/s vs curl --parallel (-j {LINK_J} both, the "
          "system's CAs)", "https-system-ca", "haul-curl", "curl-parallel", 0.0)
    for workload in ["https-small-tmpfs", "https-small-disk", "https-mixed"]:
        speed(f"{workload}: haul-curl files/s vs curl --parallel (-j {LINK_J} both)", workload,
              "haul-curl", "curl-parallel", 1.2)
        traced = next((t for t in syscalls or [] if t["workload"] == workload), {})
        add(f"{workload}: haul-curl system calls per file minus curl --parallel's (strace)",
            traced.get("checks", {}).get("total_over_curl", {}).get("value"), 1.0,
            better="lower", unit="calls/file")
    speed("small-tmpfs: haul-curl files/s vs curl --parallel (issue 22: no loss)",
          "small-tmpfs", "haul-curl", "curl-parallel", 1.2)
    speed("up-small: haul-curl vs curl --parallel -T (issue 22)", "up-small", "haul-curl",
          "curl-parallel-T", 1.1)
    speed(f"up-small-40ms: haul-curl vs curl --parallel -T (-j {LINK_J} both)", "up-small-40ms",
          "haul-curl", "curl-parallel-T", 1.0)
    for workload, reference in [("small-tmpfs", "urlsession-ref"),
                                ("single", "urlsession-ref-download"),
                                ("up-small", "urlsession-ref-T"), ("up-large", "urlsession-ref-T")]:
        speed(f"{workload}: haul-urlsession vs URLSession's own program ({reference})", workload,
              "haul-urlsession", reference, 0.9)
    for workload, reference in [("small-tmpfs", "urlsession-ref-delegate"),
                                ("single", "urlsession-ref-delegate"),
                                ("up-small", "urlsession-ref-delegate-T"),
                                ("up-large", "urlsession-ref-delegate-T")]:
        speed(f"{workload}: haul-urlsession vs URLSession's own program with a task delegate "
              f"({reference})", workload, "haul-urlsession", reference, 0.0)
    for workload in ["up-small", "up-large"]:
        speed(f"{workload}: haul-urlsession vs URLSession's own program with a stream body "
              "(urlsession-ref-stream-T)", workload, "haul-urlsession", "urlsession-ref-stream-T",
              0.0)
        speed(f"{workload}: haul-urlsession vs URLSession's own program with a stream body and "
              "a task delegate (urlsession-ref-stream-delegate-T)", workload, "haul-urlsession",
              "urlsession-ref-stream-delegate-T", 0.0)


def tree_targets(by, add, ratio):
    """Issue 23's targets: the tree against the fastest peer, haul's rerun against its first
    run, peak RSS."""
    peers = [t for name, t in by.get("tree", {}).items()
             if name != "haul-curl" and t.get("files_per_s")]
    fastest = max(peers, key=lambda t: t["files_per_s"], default=None)
    haul = by.get("tree", {}).get("haul-curl")
    value = (haul["files_per_s"] / fastest["files_per_s"]
             if haul and haul.get("files_per_s") and fastest else None)
    add(f"tree: haul-curl files/s vs the fastest peer ({fastest['tool'] if fastest else '-'})",
        value, 1.5)
    rerun = by.get("tree-rerun", {}).get("haul-curl")
    add("tree-rerun: haul-curl's rerun vs its first run (times faster)",
        haul["wall_s"] / rerun["wall_s"] if haul and rerun and rerun.get("wall_s") else None,
        10.0)
    for workload in ["tree", "tree-rerun"]:
        row = by.get(workload, {}).get("haul-curl")
        add(f"{workload}: haul-curl peak RSS (MiB)", row.get("peak_rss_mib") if row else None,
            64, better="lower", unit="MiB")


def hf_targets(by, speed, add, ratio, ahead):
    """Issue 43's target: haul with its defaults against the fastest of the peers the issue
    names on hf-model (huggingface_hub's snapshot_download with and without hf_transfer,
    aria2c -x8 -s8); beside it, only reported, haul against the fastest of every peer
    (aria2c -x16 -s16 too, which opens as many connections as haul's default), each peer
    alone, and haul with 8 connections."""
    rows = by.get("hf-model", {})
    named = ["snapshot_download", "snapshot_download-hf_transfer", "aria2c-x8"]
    peers = named + ["aria2c-x16"]

    def fastest(names):
        ran = [rows[name] for name in names if rows.get(name, {}).get("files_per_s")]
        best = max(ran, key=lambda t: t["files_per_s"], default=None)
        return best["tool"] if best else None

    for label, names, goal in [("the issue's peers", named, 1.5), ("every peer", peers, 0.0)]:
        best = fastest(names)
        add(f"hf-model: haul (defaults) vs the best of {label} ({best or '-'})",
            ratio("hf-model", "haul", best) if best else None, goal,
            led=ahead("hf-model", "haul", best) if best else None)
    for peer in peers:
        speed(f"hf-model: haul (defaults) vs {peer}", "hf-model", "haul", peer, 0.0)
    best = fastest(peers) or "-"
    speed(f"hf-model: haul --per-host 8 vs the best peer ({best})", "hf-model",
          "haul-per-host8", best, 0.0)
