"""Tool, one command on one workload, and the builders of each workload's tools: downloads
(download_tools), uploads (upload_tools), the link workloads' defaults and sweep (link_tools,
same_j_tools) and the tree mirrors (tree_tools), with what this haul offers (loops_missing,
auto_missing)."""

import json
import os
import subprocess

from .common import HAUL_PER_HOST, LINK_J, SWEEP, write_lines


class Tool:
    """One command on one workload: `command` runs it, `prepare` empties its output.
    `skipped`: why the tool is not run here (it keeps its row in the report)."""

    def __init__(self, name, command, output=None, uploads=None, skipped=None, helper_cpu=None):
        self.name = name
        self.command = command
        self.output = output
        self.uploads = uploads
        self.skipped = skipped
        self.kept = None  # a folder the tool works in that is kept between runs (a rerun)
        # The CPU seconds so far of a process the command hands its work to (a daemon),
        # counted with the command's own.
        self.helper_cpu = helper_cpu

    def renamed(self, name):
        """The same command under another name, as a further row of its workload."""
        return Tool(name, self.command, self.output, self.uploads, self.skipped,
                    self.helper_cpu)


def quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def download_tools(spec, base, kind, entries, output, j, haul, multi, digests=None,
                   whole_folder=True, loops=None, urlsession=None):
    """The download tools for one workload, with their manifests and lists in `spec`.
    `digests`: manifest fields given for every entry, by entry name (`{name: {"sha256": ...}}`).
    `whole_folder`: the entries are all of the corpus folder `kind`, so rclone copies the
    folder from its listing; otherwise it is given their names. `loops`: None when haul runs
    `--loops`, else why haul-curl-1loop is skipped. `urlsession`: URLSession's own program
    (reference/urlsession.swift), `j` transfers in flight: `data(from:)` for each body
    (urlsession-ref) and `download(from:)` (urlsession-ref-download)."""
    os.makedirs(spec, exist_ok=True)
    urls = [f"{base}/{kind}/{e['name']}" for e in entries]
    names = [e["name"] for e in entries]
    manifest = []
    for url, e in zip(urls, entries):
        line = {"url": url, "path": e["name"], "size": e["size"]}
        line.update((digests or {}).get(e["name"], {}))
        manifest.append(json.dumps(line))
    write_lines(os.path.join(spec, "manifest.jsonl"), manifest)
    write_lines(os.path.join(spec, "urls.txt"), urls)
    write_lines(os.path.join(spec, "curl.cfg"),
                [f"url = {quote(u)}\noutput = {quote(os.path.join(output, n))}"
                 for u, n in zip(urls, names)])
    write_lines(os.path.join(spec, "aria2.txt"), [f"{u}\n  out={n}" for u, n in zip(urls, names)])
    write_lines(os.path.join(spec, "multi.txt"),
                [f"{u}\t{os.path.join(output, n)}" for u, n in zip(urls, names)])
    write_lines(os.path.join(spec, "rclone.conf"), [])
    write_lines(os.path.join(spec, "rclone-names.txt"), names)
    # rclone's defaults otherwise (see results/README.md): a HEAD per file during the listing
    # (run by the checkers), multi-thread download above 250 MiB, no checksum (http has none).
    rclone = ["rclone", "copy", "--config", os.path.join(spec, "rclone.conf"), "--http-url",
              f"{base}/{kind}/", ":http:", output, "--transfers", str(j), "--checkers", str(j),
              "-q"]
    if not whole_folder:
        rclone += ["--files-from-raw", os.path.join(spec, "rclone-names.txt")]
    haul_args = ["run", os.path.join(spec, "manifest.jsonl"), "-o", output, "-j", str(j),
                 "--per-host", str(j), "-q"]
    return {
        # haul as a user runs it (one engine loop per core, up to 4), and beside it one loop,
        # so that 1 loop and the default stand side by side.
        "haul-curl": Tool("haul-curl", [haul] + haul_args + ["--transport", "curl"], output),
        "haul-curl-1loop": Tool("haul-curl-1loop",
                                [haul] + haul_args + ["--transport", "curl", "--loops", "1"],
                                output, skipped=loops),
        "haul-urlsession": Tool("haul-urlsession",
                                [haul] + haul_args + ["--transport", "urlsession"], output),
        # -j auto with haul's default per-host ceiling, beside the fixed -j above.
        "haul-curl-auto": Tool("haul-curl-auto",
                               [haul, "run", os.path.join(spec, "manifest.jsonl"), "-o", output,
                                "-q", "--transport", "curl", "-j", "auto"], output),
        "curl-parallel": Tool("curl-parallel",
                              ["curl", "--parallel", "--parallel-max", str(j), "-K",
                               os.path.join(spec, "curl.cfg"), "--no-progress-meter"], output),
        "aria2c": Tool("aria2c",
                       ["aria2c", "-i", os.path.join(spec, "aria2.txt"), "-d", output, "-j",
                        str(j), "--auto-save-interval=0", "--file-allocation=none", "-q",
                        "--summary-interval=0", "--console-log-level=warn"], output),
        "wget2": Tool("wget2",
                      ["wget2", "-q", f"--max-threads={j}", "-nd", "-P", output, "-i",
                       os.path.join(spec, "urls.txt")], output),
        "multi-ref": Tool("multi-ref", [multi, "-j", str(j), os.path.join(spec, "multi.txt")],
                          output),
        "rclone": Tool("rclone", rclone, output),
        "urlsession-ref": Tool("urlsession-ref",
                               [urlsession or "", "get", os.path.join(spec, "multi.txt"), "-j",
                                str(j)], output),
        "urlsession-ref-download": Tool("urlsession-ref-download",
                                        [urlsession or "", "download",
                                         os.path.join(spec, "multi.txt"), "-j", str(j)], output),
        # A data task whose task delegate writes each chunk to the file as it arrives: what a
        # program that streams bodies to disk (as haul does) must be.
        "urlsession-ref-delegate": Tool("urlsession-ref-delegate",
                                        [urlsession or "", "get-delegate",
                                         os.path.join(spec, "multi.txt"), "-j", str(j)], output),
    }


def upload_tools(spec, base, kind, entries, source, j, haul, tag, urlsession):
    os.makedirs(spec, exist_ok=True)
    target = f"upload/{tag}"
    manifest = [json.dumps({"op": "upload", "url": f"{base}/{target}/{e['name']}",
                            "path": f"{kind}/{e['name']}"}) for e in entries]
    write_lines(os.path.join(spec, "manifest.jsonl"), manifest)
    write_lines(os.path.join(spec, "curl.cfg"),
                [f"upload-file = {quote(os.path.join(source, kind, e['name']))}\n"
                 f"url = {quote(f'{base}/{target}/' + e['name'])}\noutput = \"/dev/null\""
                 for e in entries])
    write_lines(os.path.join(spec, "urlsession.txt"),
                [f"{base}/{target}/{e['name']}\t{os.path.join(source, kind, e['name'])}"
                 for e in entries])
    haul_args = ["run", os.path.join(spec, "manifest.jsonl"), "-o", source, "-j", str(j),
                 "--per-host", str(j), "-q"]
    tools = {
        "haul-curl": Tool("haul-curl", [haul] + haul_args + ["--transport", "curl"],
                          uploads=target),
        "haul-urlsession": Tool("haul-urlsession",
                                [haul] + haul_args + ["--transport", "urlsession"],
                                uploads=target),
        # URLSession's own program: upload(for:fromFile:), j in flight.
        "urlsession-ref-T": Tool("urlsession-ref-T",
                                 [urlsession, "put", os.path.join(spec, "urlsession.txt"), "-j",
                                  str(j)], uploads=target),
        # The same with a task delegate counting the bytes sent, as a program that shows
        # progress or decides its redirects (as haul does) must have one.
        "urlsession-ref-delegate-T": Tool("urlsession-ref-delegate-T",
                                          [urlsession, "put-delegate",
                                           os.path.join(spec, "urlsession.txt"), "-j", str(j)],
                                          uploads=target),
        # The same with each file's InputStream as the body and its length stated, as
        # haul-urlsession sends a file.
        "urlsession-ref-stream-T": Tool("urlsession-ref-stream-T",
                                        [urlsession, "put-stream",
                                         os.path.join(spec, "urlsession.txt"), "-j", str(j)],
                                        uploads=target),
        # And that through a session whose task delegate counts the bytes sent.
        "urlsession-ref-stream-delegate-T": Tool("urlsession-ref-stream-delegate-T",
                                                 [urlsession, "put-stream-delegate",
                                                  os.path.join(spec, "urlsession.txt"),
                                                  "-j", str(j)],
                                                 uploads=target),
    }
    if len(entries) == 1:
        e = entries[0]
        tools["curl-T"] = Tool("curl-T", ["curl", "-sS", "-T", os.path.join(source, kind, e["name"]),
                                          f"{base}/{target}/{e['name']}", "-o", "/dev/null"],
                               uploads=target)
    else:
        tools["curl-parallel-T"] = Tool(
            "curl-parallel-T", ["curl", "--parallel", "--parallel-max", str(j), "-K",
                                os.path.join(spec, "curl.cfg"), "--no-progress-meter"],
            uploads=target)
    return tools


def loops_missing(haul):
    """None when `haul run --help` lists `--loops` (the curl transport's engine loops, each its
    own multi handle); until then haul rejects the option with exit 2, so the 2-loop variant
    is skipped, and this says why."""
    done = subprocess.run([haul, "run", "--help"], capture_output=True, text=True)
    if "--loops" in done.stdout + done.stderr:
        return None
    return "skipped: `haul run --help` does not list --loops (this haul has one engine loop)"


def auto_missing(haul):
    """None when haul's `-j` takes `auto` (its help says so on the -j line); else why the
    haul-curl-auto rows are skipped."""
    done = subprocess.run([haul, "run", "--help"], capture_output=True, text=True)
    for line in (done.stdout + done.stderr).splitlines():
        if ("-j" in line or "concurrency" in line) and "auto" in line:
            return None
    return "skipped: `haul run --help` offers no -j auto yet"


def link_tools(spec, base, kind, entries, output, haul, multi, links, j=LINK_J):
    """Every tool twice on a link workload: with its own defaults (no concurrency option:
    haul's own, curl --parallel 50, wget2 5 threads, aria2c -j 5) and with `j` in
    flight (haul also --per-host j); haul's `-j auto` and its sweep where `links` says they
    run. Over https each tool trusts the run's throwaway CA (`links["ca"]`, None over http)."""
    download_tools(spec, base, kind, entries, output, j, haul, multi)  # the lists, the manifest
    ca = links["ca"] if base.startswith("https:") else None
    with_ca = {"curl": ["--cacert", ca], "wget2": [f"--ca-certificate={ca}"],
               "aria2c": [f"--ca-certificate={ca}"]} if ca else {}
    haul_run = [haul, "run", os.path.join(spec, "manifest.jsonl"), "-o", output, "-q",
                "--transport", "curl"] + with_ca.get("curl", [])

    def haul_j(n):
        return haul_run + ["-j", str(n), "--per-host", str(n)]

    curl = (["curl", "--parallel", "-K", os.path.join(spec, "curl.cfg"), "--no-progress-meter"]
            + with_ca.get("curl", []))
    wget2 = (["wget2", "-q", "-nd", "-P", output, "-i", os.path.join(spec, "urls.txt")]
             + with_ca.get("wget2", []))
    aria2c = (["aria2c", "-i", os.path.join(spec, "aria2.txt"), "-d", output,
               "--auto-save-interval=0", "--file-allocation=none", "-q", "--summary-interval=0",
               "--console-log-level=warn"] + with_ca.get("aria2c", []))
    tools = {
        "haul-curl": Tool("haul-curl", haul_run, output),
        f"haul-curl-j{j}": Tool(f"haul-curl-j{j}", haul_j(j), output),
        "haul-curl-auto": Tool("haul-curl-auto", haul_run + ["-j", "auto"], output,
                               skipped=links["auto"]),
        "curl-parallel": Tool("curl-parallel", curl, output),
        f"curl-parallel-j{j}": Tool(f"curl-parallel-j{j}", curl + ["--parallel-max", str(j)],
                                    output),
        # curl with as many in flight as haul's defaults keep connections to one host over
        # HTTP/1.1 (--per-host): what the link gives that many connections.
        f"curl-parallel-j{HAUL_PER_HOST}": Tool(f"curl-parallel-j{HAUL_PER_HOST}",
                                                curl + ["--parallel-max", str(HAUL_PER_HOST)],
                                                output),
        "wget2": Tool("wget2", wget2, output),
        f"wget2-j{j}": Tool(f"wget2-j{j}", wget2 + [f"--max-threads={j}"], output),
        "aria2c": Tool("aria2c", aria2c, output),
        f"aria2c-j{j}": Tool(f"aria2c-j{j}", aria2c + ["-j", str(j)], output),
    }
    for n in SWEEP:
        if n != j:
            tools[f"haul-curl-j{n}"] = Tool(f"haul-curl-j{n}", haul_j(n), output,
                                            skipped=links["sweep"])
    # The sweep's highest -j under the default --per-host: over HTTP/1.1 the per-host ceiling,
    # not -j, is what binds a run to one host, so this moves what the defaults move.
    tools[f"haul-curl-j{SWEEP[-1]}-per-host{HAUL_PER_HOST}"] = Tool(
        f"haul-curl-j{SWEEP[-1]}-per-host{HAUL_PER_HOST}", haul_run + ["-j", str(SWEEP[-1])],
        output, skipped=links["sweep"])
    # -j auto under the sweep's own per-host ceiling (its highest -j), so that it is judged
    # against the fixed levels with the same room: over HTTP/1.1 haul's default --per-host
    # holds -j auto to that many connections, by design.
    tools["haul-curl-auto-open"] = Tool("haul-curl-auto-open",
                                        haul_run + ["-j", "auto", "--per-host", str(SWEEP[-1])],
                                        output, skipped=links["sweep"])
    return tools


def same_j_tools(spec, base, kind, entries, output, haul, multi, links, j=LINK_J):
    """haul, curl --parallel, wget2 and aria2c with `j` in flight over https (the throwaway
    CA), under the names the loopback workloads give them."""
    tools = link_tools(spec, base, kind, entries, output, haul, multi, links, j)
    return [tools[f"haul-curl-j{j}"].renamed("haul-curl"),
            tools[f"curl-parallel-j{j}"].renamed("curl-parallel"),
            tools[f"wget2-j{j}"].renamed("wget2"), tools[f"aria2c-j{j}"].renamed("aria2c")]


def tree_tools(spec, url, output, haul, j, rerun):
    """haul (its folder entry), wget2 -r -np, rclone copy (http backend) and wget -r -np, all
    into `output`, with j in flight (wget has one connection: it fetches one file at a time).
    A rerun keeps each tool's tree and asks each to skip what is there as it does: haul by
    default (the listing's names, sizes and times), rclone by default (size and modification
    time), wget2 and wget with -N (time-stamping). wget2 and wget fetch each index page and
    delete it (-R)."""
    os.makedirs(spec, exist_ok=True)
    manifest = write_lines(os.path.join(spec, "tree.jsonl"),
                           [json.dumps({"url": url, "recursive": True, "path": "tree/"})])
    write_lines(os.path.join(spec, "rclone.conf"), [])
    stamping = ["-N"] if rerun else []
    wget_common = ["-q", "-r", "-np", "-nH", "-R", "index.html*", "-e", "robots=off"]
    return [
        Tool("haul-curl", [haul, "run", manifest, "-o", output, "-j", str(j), "--per-host",
                           str(j), "-q", "--transport", "curl"], output),
        Tool("wget2", ["wget2", "-q", "-r", "-np", "-nH", "-R", "index.html*", "--robots=off",
                       f"--max-threads={j}", "-P", output] + stamping + [url], output),
        Tool("rclone", ["rclone", "copy", "--config", os.path.join(spec, "rclone.conf"),
                        "--http-url", url, ":http:", output, "--transfers", str(j),
                        "--checkers", str(j), "-q"], output),
        Tool("wget", ["wget"] + wget_common + ["-P", output] + stamping + [url], output),
    ]
