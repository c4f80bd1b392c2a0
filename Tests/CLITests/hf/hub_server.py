#!/usr/bin/env python3
"""A Hugging Face Hub for haul's tests, on 127.0.0.1: the Hub's API and resolve URLs on one
port, the storage host its LFS files redirect to on another.

    hub_server.py PORT DIR [--repo SPEC.json --storage URL] [--page N]

writes the repositories' files under DIR/repos/{models,datasets}/ORG/NAME/ (the bytes the
clients must end with), then "storage on http://127.0.0.1:S" and "listening on
http://127.0.0.1:H" to its standard error, and serves:

- GET /api/{models,datasets}/ORG/NAME/revision/REV: {"id", "sha", "siblings", ...}; REV is
  main, v1, refs/pr/1 (written refs%2Fpr%2F1) or the commit; another is 404 RevisionNotFound.
- GET /api/.../tree/REV[/PATH]?recursive=true[&cursor=N]: the files and folders below PATH,
  PAGE of them a page, the next page named by `Link: <URL>; rel="next"`.
- GET|HEAD /[datasets/]ORG/NAME/resolve/REV/PATH: a small file's bytes (ETag: its git blob
  id, X-Repo-Commit: the commit REV names), or for an LFS file a 302 to the storage host's
  signed URL, as the Hub answers it: X-Repo-Commit, X-Linked-Etag (the SHA-256) and
  X-Linked-Size name the file, while the 302's own ETag (the LFS pointer's git blob id) and
  Content-Length (of its "Found." body) do not, so that a client must read the Hub's own
  fields (`huggingface_hub`'s `get_hf_file_metadata` does).
- The storage host, GET|HEAD /blobs/SHA256?sig=...: the bytes, ranges too. It REFUSES any
  request that carries an Authorization header (403) and logs it to DIR/storage-auth.log:
  the Hub token must never leave the Hub. It serves org/cdn's file at CDN_RATE bytes a
  second on each connection, as the Hub's CDN caps each, and logs to DIR/storage-inflight.log
  how many of its GETs are being served as each starts, itself included.

The Hub answers below /mirror too, as a mirror whose HF_ENDPOINT has a path. org/old-model
is org/model renamed: its resolve URLs answer 307 with a relative Location naming
org/model, as the Hub redirects a renamed repository (a client follows it on the Hub).

Repositories: org/model and datasets/org/data are public; org/private answers 401
RepoNotFound without the token TOKEN; org/gated lists publicly but refuses its files, 401
without a token, 403 with one (GatedRepo); org/corrupt lists true blob ids and sizes but
serves other bytes; org/flaky's storage host cuts its one file's first whole answer off
halfway (a resume must follow); org/large's model.safetensors is 9 MiB, above haul's
--min-segment-size; org/cdn's model.safetensors, 9 MiB too, comes from the storage host at
CDN_RATE a connection. Every request is logged to DIR/requests.log as
"PORT METHOD PATH AUTH RANGE".

With --repo, one more repository is served from files on disk (Benchmarks/run's hf-model):
SPEC.json gives its "kind", "id", "sha" (its commit), "root" (the folder of its files) and
"files" {PATH: {"size", "sha256", "blob" (git blob id), "lfs"}}, so that nothing is read or
hashed here. Its LFS files redirect to URL/SHA256?sig=... (another server, e.g. nginx
serving a folder of the blobs by SHA-256); its other files are served from disk.
"""

import argparse
import hashlib
import json
import os
import random
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "hf_test_token_0123456789"
PAGE = 3
RENAMED = {"org/old-model": "org/model"}
CDN_RATE = 256 << 10
GATED_MESSAGE = (
    "Access to model org/gated is restricted. You must have access to it and be "
    "authenticated to access it. Please log in."
)


def content(seed, size):
    """Deterministic bytes: a repeated SHA-256 stream of `seed`."""
    out = bytearray()
    block = hashlib.sha256(seed.encode()).digest()
    while len(out) < size:
        out += block
        block = hashlib.sha256(block).digest()
    return bytes(out[:size])


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Repo:
    def __init__(self, kind, repo_id, files, lfs, private=False, gated=False, corrupt=False,
                 flaky=False, paced=False):
        self.kind = kind  # "model" or "dataset"
        self.id = repo_id
        self.files = files  # path -> bytes
        self.lfs = lfs  # paths stored in LFS
        self.private = private
        self.gated = gated
        self.corrupt = corrupt
        self.flaky = flaky  # the first whole answer of a blob is cut off halfway
        self.paced = paced  # the storage host sends its blobs at CDN_RATE a connection
        self.sha = hashlib.sha1(f"{kind}/{repo_id}".encode()).hexdigest()

    def revision(self, name):
        return self.sha if name in ("main", "v1", "refs/pr/1", self.sha) else None

    def served(self, path):
        data = self.files[path]
        if self.corrupt:
            return bytes([data[0] ^ 0xFF]) + data[1:]
        return data

    def tree(self, below):
        """The tree's items below `below` ("" for the root), folders and files, sorted."""
        folders = set()
        items = []
        for path in sorted(self.files):
            if below and not path.startswith(below + "/"):
                continue
            parts = path.split("/")
            for depth in range(1, len(parts)):
                folder = "/".join(parts[:depth])
                if (not below or folder.startswith(below + "/")) and folder not in folders:
                    folders.add(folder)
                    items.append(
                        {"type": "directory", "oid": hashlib.sha1(folder.encode()).hexdigest(),
                         "size": 0, "path": folder})
            items.append(self.item(path))
        return items

    def item(self, path):
        """The tree's item of the file `path`."""
        data = self.files[path]
        if path not in self.lfs:
            return {"type": "file", "oid": blob_id(data), "size": len(data), "path": path}
        pointer = (
            "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n"
            % (hashlib.sha256(data).hexdigest(), len(data))
        ).encode()
        return {"type": "file", "oid": blob_id(pointer), "size": len(data), "path": path,
                "lfs": {"oid": hashlib.sha256(data).hexdigest(), "size": len(data),
                        "pointerSize": len(pointer)}}

    def lfs_sha256(self, path):
        return hashlib.sha256(self.files[path]).hexdigest()

    def etag(self, path):
        return blob_id(self.files[path])

    def storage_url(self, sha, storage_port):
        """Where the storage host serves the blob `sha` (a signed URL, as the Hub's are)."""
        return "http://127.0.0.1:%d/blobs/%s?sig=%s" % (storage_port, sha, os.urandom(6).hex())


class DiskRepo(Repo):
    """A repository whose files are on disk, described by a spec (see --repo): nothing is
    read until a small file is served, nothing hashed."""

    def __init__(self, spec, storage):
        super().__init__(spec["kind"], spec["id"], {}, set())
        self.sha = spec["sha"]
        self.root = spec["root"]
        self.meta = spec["files"]
        self.files = {path: None for path in self.meta}
        self.lfs = {path for path, meta in self.meta.items() if meta["lfs"]}
        self.storage = storage

    def storage_url(self, sha, storage_port):
        return "%s/%s?sig=%s" % (self.storage, sha, os.urandom(6).hex())

    def served(self, path):
        with open(os.path.join(self.root, path), "rb") as handle:
            return handle.read()

    def item(self, path):
        meta = self.meta[path]
        if not meta["lfs"]:
            return {"type": "file", "oid": meta["blob"], "size": meta["size"], "path": path}
        pointer = ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n"
                   % (meta["sha256"], meta["size"])).encode()
        return {"type": "file", "oid": blob_id(pointer), "size": meta["size"], "path": path,
                "lfs": {"oid": meta["sha256"], "size": meta["size"],
                        "pointerSize": len(pointer)}}

    def lfs_sha256(self, path):
        return self.meta[path]["sha256"]

    def etag(self, path):
        return self.meta[path]["blob"]


def make_repos():
    model = {
        "config.json": b'{"model_type": "test", "hidden_size": 8}\n',
        "README.md": b"# A test model\n",
        "sub/deep/notes.txt": content("notes", 5000),
        "sub/large.txt": content("large", 150_000),
        "weights/model.bin": content("weights", 300_000),
        "weights/part2.bin": content("part2", 70_000),
        "a b+c.txt": b"a name with a space and a plus\n",
        "empty.txt": b"",
    }
    return [
        Repo("model", "org/model", model, {"weights/model.bin", "weights/part2.bin"}),
        Repo("dataset", "org/data",
             {"data/train.csv": content("train", 40_000), "README.md": b"# data\n"},
             {"data/train.csv"}),
        Repo("model", "org/private",
             {"secret.bin": content("secret", 20_000), "config.json": b"{}\n"},
             {"secret.bin"}, private=True),
        Repo("model", "org/gated",
             {"model.bin": content("gated", 10_000), "config.json": b"{}\n"},
             {"model.bin"}, gated=True),
        Repo("model", "org/corrupt",
             {"broken.txt": content("broken", 3000), "broken.bin": content("broken-lfs", 9000)},
             {"broken.bin"}, corrupt=True),
        Repo("model", "org/flaky", {"big.bin": content("flaky", 200_000)}, {"big.bin"},
             flaky=True),
        Repo("model", "org/large",
             {"model.safetensors": random.Random("large").randbytes(9 << 20),
              "config.json": b"{}\n"},
             {"model.safetensors"}),
        Repo("model", "org/cdn", {"model.safetensors": random.Random("cdn").randbytes(9 << 20)},
             {"model.safetensors"}, paced=True),
    ]


class State:
    def __init__(self, directory, extra=None):
        self.directory = directory
        self.repos = {(r.kind, r.id): r for r in make_repos()}
        self.blobs = {}  # sha256 -> (repo, path)
        self.lock = threading.Lock()
        self.storage_port = 0
        self.cut = set()  # blobs whose whole answer was already cut off once
        self.inflight = 0  # org/cdn's GETs being served
        for repo in self.repos.values():
            for path, data in repo.files.items():
                folder = os.path.join(directory, "repos", repo.kind + "s", repo.id)
                target = os.path.join(folder, path)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as handle:
                    handle.write(data)
                if path in repo.lfs:
                    self.blobs[hashlib.sha256(data).hexdigest()] = (repo, path)
        if extra:
            self.repos[(extra.kind, extra.id)] = extra

    def log(self, name, line):
        with self.lock:
            with open(os.path.join(self.directory, name), "a") as handle:
                handle.write(line + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None
    page = PAGE

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.handle_request(head=True)

    def do_GET(self):
        self.handle_request(head=False)

    def handle_request(self, head):
        port = self.server.server_address[1]
        auth = self.headers.get("Authorization")
        self.state.log(
            "requests.log", "%d %s %s %s %s" % (
                port, self.command, self.path, "auth" if auth else "-",
                self.headers.get("Range", "-")))
        if port == self.state.storage_port:
            return self.storage(head, auth)
        return self.hub(head, auth)

    def send(self, status, body=b"", headers=None, head=False, rate=None):
        """The answer; with `rate`, its body at that many bytes a second."""
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if head:
            return
        if rate is None:
            self.wfile.write(body)
            return
        start = time.monotonic()
        for offset in range(0, len(body), 16 << 10):
            self.wfile.write(body[offset:offset + (16 << 10)])
            self.wfile.flush()
            ahead = start + (offset + (16 << 10)) / rate - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)

    def json(self, status, value, headers=None):
        headers = dict(headers or {})
        headers["Content-Type"] = "application/json"
        self.send(status, json.dumps(value).encode(), headers)

    def refuse(self, status, code, message, head=False):
        self.send(status, json.dumps({"error": message}).encode(),
                  {"X-Error-Code": code, "X-Error-Message": message,
                   "Content-Type": "application/json"}, head)

    def storage(self, head, auth):
        if auth is not None:
            self.state.log("storage-auth.log", self.path)
            return self.send(403, b"the storage host takes no Authorization\n", head=head)
        url = urllib.parse.urlsplit(self.path)
        parts = url.path.split("/")
        if len(parts) != 3 or parts[1] != "blobs" or parts[2] not in self.state.blobs:
            return self.send(404, b"no such blob\n", head=head)
        if "sig=" not in url.query:
            return self.send(403, b"unsigned\n", head=head)
        repo, path = self.state.blobs[parts[2]]
        data = repo.served(path)
        headers = {"ETag": '"%s"' % parts[2], "Accept-Ranges": "bytes",
                   "Content-Type": "application/octet-stream"}
        if repo.flaky and not head and not self.headers.get("Range"):
            with self.state.lock:
                first_time = parts[2] not in self.state.cut
                self.state.cut.add(parts[2])
            if first_time:
                self.send_response(200)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[:len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
        if not repo.paced or head:
            return self.send_bytes(data, headers, head)
        with self.state.lock:
            self.state.inflight += 1
            now = self.state.inflight
        self.state.log("storage-inflight.log", str(now))
        try:
            return self.send_bytes(data, headers, head, CDN_RATE)
        finally:
            with self.state.lock:
                self.state.inflight -= 1

    def send_bytes(self, data, headers, head, rate=None):
        """`data` whole, or the one range the request asks for (206, or 416 past its end)."""
        wanted = self.headers.get("Range")
        if wanted and wanted.startswith("bytes=") and "," not in wanted:
            start, _, end = wanted[6:].partition("-")
            first = int(start) if start else max(len(data) - int(end), 0)
            last = int(end) if start and end else len(data) - 1
            last = min(last, len(data) - 1)
            if first >= len(data):
                headers["Content-Range"] = "bytes */%d" % len(data)
                return self.send(416, b"", headers, head)
            headers["Content-Range"] = "bytes %d-%d/%d" % (first, last, len(data))
            return self.send(206, data[first:last + 1], headers, head, rate)
        return self.send(200, data, headers, head, rate)

    def find(self, segments):
        """The repository the segments name ([datasets,] ORG, NAME, ...), and the rest."""
        kind = "model"
        if segments and segments[0] in ("models", "datasets", "spaces"):
            kind = segments[0][:-1]
            segments = segments[1:]
        if len(segments) < 2:
            return None, segments
        return self.state.repos.get((kind, segments[0] + "/" + segments[1])), segments[2:]

    def hub(self, head, auth):
        url = urllib.parse.urlsplit(self.path)
        segments = [urllib.parse.unquote(s) for s in url.path.split("/")[1:]]
        if segments[:1] == ["mirror"]:
            segments = segments[1:]  # the same Hub below a path: HF_ENDPOINT=.../mirror
        api = segments[:1] == ["api"]
        renamed = RENAMED.get("/".join(segments[:2]))
        if not api and renamed and segments[2:3] == ["resolve"]:
            location = url.path.replace("/".join(segments[:2]), renamed, 1)
            return self.send(307, b"", {"Location": location}, head)
        repo, rest = self.find(segments[1:] if api else segments)
        if repo is None:
            return self.refuse(401, "RepoNotFound", "Repository not found", head)
        token = auth[len("Bearer "):] if auth and auth.startswith("Bearer ") else None
        if repo.private and token != TOKEN:
            return self.refuse(401, "RepoNotFound", "Repository not found", head)
        if api and len(rest) == 2 and rest[0] == "revision":
            commit = repo.revision(rest[1])
            if commit is None:
                return self.refuse(404, "RevisionNotFound", "Invalid rev id: " + rest[1])
            prefix = "" if repo.kind == "model" else repo.kind + "s/"
            return self.json(200, {
                "id": repo.id, "_id": repo.sha[:24], "sha": commit, "private": repo.private,
                "gated": "auto" if repo.gated else False, "disabled": False, "tags": [],
                "siblings": [{"rfilename": p} for p in sorted(repo.files)],
                "lastModified": "2026-12-01T00:00:00.000Z", "modelId": prefix + repo.id,
            })
        if api and len(rest) >= 2 and rest[0] == "tree":
            commit = repo.revision(rest[1])
            if commit is None:
                return self.refuse(404, "RevisionNotFound", "Invalid rev id: " + rest[1])
            below = "/".join(rest[2:]).strip("/")
            items = repo.tree(below)
            if below and not items:
                return self.refuse(404, "EntryNotFound", "no such folder: " + below)
            query = urllib.parse.parse_qs(url.query)
            start = int(query.get("cursor", ["0"])[0])
            headers = {}
            if start + self.page < len(items):
                pairs = [(k, v) for k, v in urllib.parse.parse_qsl(url.query) if k != "cursor"]
                pairs.append(("cursor", str(start + self.page)))
                headers["Link"] = '<http://127.0.0.1:%d%s?%s>; rel="next"' % (
                    self.server.server_address[1], url.path, urllib.parse.urlencode(pairs))
            return self.json(200, items[start:start + self.page], headers)
        if not api and len(rest) >= 3 and rest[0] == "resolve":
            commit = repo.revision(rest[1])
            path = "/".join(rest[2:])
            if commit is None or path not in repo.files:
                return self.refuse(404, "EntryNotFound", "Entry not found", head)
            if repo.gated and token is None:
                return self.refuse(401, "GatedRepo", GATED_MESSAGE, head)
            if repo.gated:
                return self.refuse(403, "GatedRepo", GATED_MESSAGE, head)
            headers = {"X-Repo-Commit": commit, "Accept-Ranges": "bytes"}
            if path in repo.lfs:
                sha = repo.lfs_sha256(path)
                item = repo.item(path)
                location = repo.storage_url(sha, self.state.storage_port)
                headers.update({
                    "ETag": '"%s"' % item["oid"], "X-Linked-Etag": '"%s"' % sha,
                    "X-Linked-Size": str(item["size"]), "Location": location,
                    "Content-Type": "text/plain; charset=utf-8",
                })
                return self.send(302, ("Found. Redirecting to " + location).encode(), headers,
                                 head)
            headers["ETag"] = '"%s"' % repo.etag(path)
            return self.send_bytes(repo.served(path), headers, head)
        return self.refuse(404, "EntryNotFound", "Not found", head)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("port", type=int)
    parser.add_argument("directory")
    parser.add_argument("--repo", help="a repository on disk, described by this JSON file")
    parser.add_argument("--storage", help="where --repo's LFS files redirect: URL/SHA256")
    parser.add_argument("--page", type=int, default=PAGE,
                        help=f"tree items a page (default {PAGE}; the Hub's is 1000)")
    args = parser.parse_args()
    Handler.page = args.page
    port, directory = args.port, args.directory
    os.makedirs(directory, exist_ok=True)
    extra = None
    if args.repo:
        with open(args.repo) as handle:
            extra = DiskRepo(json.load(handle), args.storage.rstrip("/"))
    Handler.state = State(directory, extra)
    storage = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Handler.state.storage_port = storage.server_address[1]
    hub = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=storage.serve_forever, daemon=True).start()
    print("storage on http://127.0.0.1:%d" % storage.server_address[1], file=sys.stderr, flush=True)
    print("listening on http://127.0.0.1:%d" % hub.server_address[1], file=sys.stderr, flush=True)
    hub.serve_forever()


if __name__ == "__main__":
    main()
