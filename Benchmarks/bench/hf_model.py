"""hf-model (issue 43): a model repository, one large file and a few small ones, behind the
Hub test server (Tests/CLITests/hf/hub_server.py answers the API and redirects each LFS
file's resolve URL) with the LFS files on a storage origin of their own, nginx throttled per
connection as the Hub's CDN is (HF_RATE). haul with its defaults (16 connections to the Hub's
files) against huggingface_hub's snapshot_download with and without hf_transfer and aria2c
-x8 -s8 and -x16 -s16 on the resolve URLs, and haul with --per-host 8 (every other host's
default) beside them; every file of every tool is checked against the repository's SHA-256
after its run (check), untimed: of them, only haul checks as it runs."""

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time

from .common import GIB, KIB, MIB, ROOT, WORK, log, write_lines
from .corpus import hash_seed, sha256_of, write_random
from .servers import free_port
from .tools import Tool

# The large file's size; quick runs shrink it.
HF_LARGE = {"full": 2 * GIB, "quick": 256 * MIB}
# Bytes a second each storage connection gets: CloudFront's per connection, roughly.
HF_RATE = 60_000_000
# The repository's other files: (path, bytes, stored in LFS).
HF_SMALL = [(".gitattributes", 1_519, False), ("README.md", 6_000, False),
            ("config.json", 700, False), ("generation_config.json", 180, False),
            ("tokenizer_config.json", 3_000, False), ("tokenizer.json", 4 * MIB, True)]
HF_REPO = "bench/model"
# The Python clients, each in a virtual environment of its own made by the run: the
# huggingface_hub of today, and the last one that still uses hf_transfer (1.0 dropped it,
# and now only warns that HF_HUB_ENABLE_HF_TRANSFER is deprecated) with hf_transfer itself.
HF_CURRENT = ["huggingface_hub==2.5.0"]
HF_TRANSFER = ["huggingface_hub==0.36.2", "hf_transfer==0.1.9"]
SNAPSHOT = ("import sys\nfrom huggingface_hub import snapshot_download\n"
            f"snapshot_download({HF_REPO!r}, local_dir=sys.argv[1], token=False)\n")


def blob_id(path):
    """The file's git blob id: SHA-1 of `blob SIZE\\0` and its bytes."""
    with open(path, "rb") as file:
        data = file.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def make_repo(size_name):
    """The repository's files in WORK/hf-SIZE/repo, once (a stamp), its LFS files linked by
    SHA-256 from WORK/hf-SIZE/blobs (what the storage nginx serves), and the spec the Hub
    test server reads (--repo). Returns the spec's path."""
    folder = os.path.join(WORK, f"hf-{size_name}")
    spec_path = os.path.join(folder, "spec.json")
    large = HF_LARGE[size_name]
    files = [("model.safetensors", large, True)] + HF_SMALL
    shape = [list(f) for f in files]
    if os.path.exists(spec_path):
        with open(spec_path) as file:
            if json.load(file).get("shape") == shape:
                return spec_path
    log(f"generating the hf-model repository in {folder} (once)")
    shutil.rmtree(folder, ignore_errors=True)
    root, blobs = os.path.join(folder, "repo"), os.path.join(folder, "blobs")
    os.makedirs(root)
    os.makedirs(blobs)
    meta = {}
    for index, (path, size, lfs) in enumerate(files):
        target = os.path.join(root, path)
        write_random(target, size, seed=hash_seed("hf-model", index))
        digest = sha256_of(target)
        meta[path] = {"size": size, "sha256": digest, "lfs": lfs,
                      "blob": None if lfs else blob_id(target)}
        if lfs:
            os.symlink(target, os.path.join(blobs, digest))
    spec = {"kind": "model", "id": HF_REPO, "root": root, "files": meta, "shape": shape,
            "sha": hashlib.sha1(json.dumps(shape).encode()).hexdigest()}
    with open(spec_path, "w") as file:
        json.dump(spec, file)
    return spec_path


def python_with(name, packages):
    """A virtual environment in WORK/hf-venvs/NAME holding `packages` (pip, once: a stamp),
    and its python; or None and why not."""
    venv = os.path.join(WORK, "hf-venvs", name)
    stamp = os.path.join(venv, "haul-bench-packages.json")
    python = os.path.join(venv, "bin", "python")
    if os.path.exists(stamp):
        with open(stamp) as file:
            if json.load(file) == packages:
                return python, None
    log(f"installing {' '.join(packages)} with pip in {venv}")
    shutil.rmtree(venv, ignore_errors=True)
    done = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
    if done.returncode == 0:
        done = subprocess.run([python, "-m", "pip", "install", "-q"] + packages,
                              capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"skipped: pip could not install {' '.join(packages)}: " + (
            done.stderr.strip().splitlines() or ["?"])[-1]
    with open(stamp, "w") as file:
        json.dump(packages, file)
    return python, None


class HFServers:
    """The storage origin (nginx on `storage_port`, `limit_rate` HF_RATE on every
    connection, each request's connection serial logged to `conn_log`, its range, bytes and
time to `requests_log`) and the Hub test
    server on `hub_port` in front of it."""

    def __init__(self, work, hub_port):
        self.work = work
        self.hub_port = hub_port
        self.storage_port = free_port()
        self.conn_log = os.path.join(work, "storage-connections.log")
        # Each request with when it ended, its range, bytes and time: where a run's time went.
        self.requests_log = os.path.join(work, "storage-requests.log")
        self.processes = []

    def start(self, spec_path):
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        with open(spec_path) as file:
            blobs = os.path.join(os.path.dirname(json.load(file)["root"]), "blobs")
        user = "user root;" if os.geteuid() == 0 else ""
        config = write_lines(os.path.join(self.work, "nginx.conf"), [
            "worker_processes 2;", "daemon off;", f"pid {self.work}/nginx.pid;",
            f"error_log {self.work}/error.log warn;", user,
            "events { worker_connections 1024; }", "http {",
            "  log_format connection '$connection';",
            "  log_format detail '$msec $connection $status \"$http_range\" $bytes_sent "
            "$request_time';",
            f"  access_log {self.conn_log} connection;",
            f"  access_log {self.requests_log} detail;",
            f"  client_body_temp_path {self.work}/body;",
            "  sendfile on;", "  tcp_nopush on;", "  keepalive_requests 100000;",
            "  etag on;", "  types { }", "  default_type application/octet-stream;",
            f"  server {{\n    listen 127.0.0.1:{self.storage_port};\n    root {blobs};",
            f"    location /blobs/ {{ alias {blobs}/; limit_rate {HF_RATE}; }}\n  }}", "}"])
        self.processes.append(subprocess.Popen(["nginx", "-c", config, "-p", self.work]))
        self.wait(self.storage_port, "the storage nginx")
        hub_log = open(os.path.join(self.work, "hub.log"), "w")
        self.processes.append(subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "Tests", "CLITests", "hf", "hub_server.py"),
             str(self.hub_port), os.path.join(self.work, "hub"), "--repo", spec_path,
             "--storage", f"http://127.0.0.1:{self.storage_port}/blobs", "--page", "1000"],
            stdout=subprocess.DEVNULL, stderr=hub_log))
        self.wait(self.hub_port, "the Hub test server")

    def wait(self, port, what):
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"bench: {what} did not start (see {self.work})")

    def stop(self):
        for process in reversed(self.processes):
            process.terminate()
            process.wait()
        self.processes = []


def hf_workload(spec, size_name, haul, output, daemons):
    """The hf-model workload: its tools, and a `prepare` that makes the repository (once),
    the Python clients' environments (once) and starts the servers (added to `daemons`,
    stopped when the runs end)."""
    from .workloads import Workload  # workloads.py imports this module

    os.makedirs(spec, exist_ok=True)
    hub_port = free_port()
    endpoint = f"http://127.0.0.1:{hub_port}"
    servers = HFServers(os.path.join(WORK, "hf-servers"), hub_port)
    home = os.path.join(spec, "hf-home")
    env = ["env", f"HF_ENDPOINT={endpoint}", f"HF_HOME={home}", "HF_TOKEN=",
           "HUGGING_FACE_HUB_TOKEN=", f"HF_TOKEN_PATH={home}/no-token", "HF_HUB_DISABLE_XET=1",
           "HF_HUB_DISABLE_TELEMETRY=1", "HF_HUB_DISABLE_PROGRESS_BARS=1"]
    into = os.path.join(output, "model")
    manifest = write_lines(os.path.join(spec, "manifest.jsonl"),
                           [json.dumps({"url": f"hf://{HF_REPO}", "path": "model/"})])
    aria2 = os.path.join(spec, "aria2.txt")
    snapshot = [SNAPSHOT, into]
    tools = [
        Tool("haul", env + [haul, "run", manifest, "-o", output, "-q"], output),
        # Beside the defaults: with the connections every other host gets (--per-host 8),
        # what the per-connection rate holds haul to there.
        Tool("haul-per-host8",
             env + [haul, "run", manifest, "-o", output, "-q", "--per-host", "8"], output),
        Tool("snapshot_download", env + ["python-hf-current", "-c"] + snapshot, output),
        Tool("snapshot_download-hf_transfer",
             env + ["HF_HUB_ENABLE_HF_TRANSFER=1", "python-hf-transfer", "-c"] + snapshot,
             output),
        Tool("aria2c-x8", ["aria2c", "-x8", "-s8", "-i", aria2, "-d", output,
                           "--auto-save-interval=0", "--file-allocation=none", "-q",
                           "--summary-interval=0", "--console-log-level=warn"], output),
        Tool("aria2c-x16", ["aria2c", "-x16", "-s16", "-i", aria2, "-d", output,
                            "--auto-save-interval=0", "--file-allocation=none", "-q",
                            "--summary-interval=0", "--console-log-level=warn"], output),
    ]
    files = [("model.safetensors", HF_LARGE[size_name], True)] + HF_SMALL
    total = sum(size for _, size, _ in files)
    label = f"{HF_LARGE[size_name] // GIB} GiB" if HF_LARGE[size_name] >= GIB else \
        f"{HF_LARGE[size_name] // MIB} MiB"
    expected = {}

    def prepare():
        spec_path = make_repo(size_name)
        with open(spec_path) as file:
            repo = json.load(file)
        expected.update(repo["files"])
        write_lines(aria2, [f"{endpoint}/{HF_REPO}/resolve/{repo['sha']}/{path}\n  "
                            f"out=model/{path}" for path in sorted(repo["files"])])
        for name, packages in [("python-hf-current", HF_CURRENT),
                               ("python-hf-transfer", HF_TRANSFER)]:
            python, why = python_with(name[len("python-"):], packages)
            for tool in tools:
                if name in tool.command:
                    if python:
                        tool.command[tool.command.index(name)] = python
                    else:
                        tool.skipped = why
        for path in sorted(repo["files"]):  # into the page cache before the first run
            with open(os.path.join(repo["root"], path), "rb") as file:
                while file.read(1 << 20):
                    pass
        servers.start(spec_path)
        daemons.append(servers)

    def check(workload, tool):
        """Every file of the repository in place, at its size and SHA-256."""
        for path, meta in sorted(expected.items()):
            local = os.path.join(into, path)
            if not os.path.isfile(local):
                return f"no {path}"
            if os.path.getsize(local) != meta["size"]:
                return f"{path} has {os.path.getsize(local)} bytes, expected {meta['size']}"
            if sha256_of(local) != meta["sha256"]:
                return f"{path}'s SHA-256 is not the repository's"
        return None

    workload = Workload(
        "hf-model", f"hf://{HF_REPO}: 1 x {label} and {len(HF_SMALL)} small files from a Hub "
        f"test server, its storage origin nginx at {HF_RATE // 1_000_000} MB/s a connection, "
        "to disk; haul and snapshot_download (huggingface_hub 2.5.0) with their defaults, "
        "hf_transfer through huggingface_hub 0.36.2 (the last that uses it), aria2c -x8 -s8 "
        "and -x16 -s16; "
        "every file's SHA-256 checked after each run",
        len(files), 0, "snapshot_download", tools, check=check, total_bytes=total,
        connections=servers.conn_log, prepare=prepare)
    workload.www = output
    workload.source = os.path.join(WORK, f"hf-{size_name}", "repo")
    return workload
