"""The interop cases. Each is a function (context, server, transport) that returns a short
detail for its ok line, or raises CaseFailure (FAIL) or NotApplicable (n/a, with the
reason: something the transport or the server cannot do by design)."""

import collections
import email.utils
import functools
import hashlib
import http.client
import os
import signal
import time

from support import CaseFailure, NotApplicable, check, sha256_file, write_file

MiB = 1 << 20
SMALL_COUNT = 200
BIG_SIZE = 64 * MiB
# The time every served file carries as its mtime, so as its Last-Modified.
SERVED_TIME = 981173106  # 2001-02-03 04:05:06 UTC

# Why the URLSession transport sits out a case (the README's table of URLSession limits).
NO_EXTRA_CA = "URLSession cannot trust an extra CA: --cacert has no effect, so no https here"
NO_IPV6 = "URLSession cannot reach IPv6 literals"


# The tree the tree cases mirror, below /tree/ of every origin: names with a space, %, #, ?,
# & and non-ASCII letters, a deep path, two empty folders, and a link back to an ancestor.
TREE_FILES = {
    "plain.txt": 10, "with space.txt": 2_000, "100%.bin": 70_000, "hash#1.txt": 1,
    "what?.txt": 5, "a&b.txt": 6, "\u00fcn\u00efc\u00f6d\u00e9 \u65e5\u672c.txt": 300,
    "sub/one.txt": 11, "sub/deeper/two.bin": 123_456,
    "/".join("d%d" % level for level in range(1, 13)) + "/bottom.txt": 3,
}
TREE_EMPTY = ("empty", "sub/empty too")
# sub/deeper/up -> .. : sub/ again, under a new URL at every level.
TREE_LOOP = ("sub/deeper/up", "..")


# The large tree: MANY_FOLDERS folders of MANY_PER_FOLDER small files each, below /many/ of
# the origins that run the many-FORMAT cases.
MANY_FOLDERS, MANY_PER_FOLDER = 100, 100


def many_path(index):
    return "d%02d/f%03d.bin" % divmod(index, MANY_PER_FOLDER)


def many_bytes(index):
    """The content of the large tree's file `index`: 16 to 2,015 bytes of its own."""
    size = 16 + (index * 7919) % 2000
    return (hashlib.sha256(b"many-%d" % index).digest() * (size // 32 + 1))[:size]


class DataSet:
    """The files every origin serves (hard links into each docroot), with their digests."""

    def __init__(self, folder):
        self.folder = folder
        self.small = []  # (relative path, size, sha256)
        for i in range(SMALL_COUNT):
            path, size = "small/f%03d.bin" % i, 500 + i * 41
            self.small.append((path, size, write_file(os.path.join(folder, path), size, i)))
        self.big_sha = write_file(os.path.join(folder, "big.bin"), BIG_SIZE, 1000)
        self.time_sha = write_file(os.path.join(folder, "time.bin"), 10_000, 1001)
        self.uploads = {}
        for name, size in (("up-small.bin", 100_000), ("up-mid.bin", 16 * MiB)):
            self.uploads[name] = (size, write_file(os.path.join(folder, name), size, 1002))
        self.uploads["up-big.bin"] = (BIG_SIZE, self.big_sha)
        self.tree = {}
        for index, (path, size) in enumerate(sorted(TREE_FILES.items())):
            self.tree[path] = write_file(os.path.join(folder, "tree", path), size, 3000 + index)
        for root, _, files in os.walk(folder):
            for name in files:
                os.utime(os.path.join(root, name), (SERVED_TIME, SERVED_TIME))

    def link_into(self, docroot):
        for path, _, _ in self.small:
            link(os.path.join(self.folder, path), os.path.join(docroot, path))
        for name in ("big.bin", "time.bin"):
            link(os.path.join(self.folder, name), os.path.join(docroot, name))
        for path in self.tree:
            link(os.path.join(self.folder, "tree", path), os.path.join(docroot, "tree", path))
        for path in TREE_EMPTY:
            os.makedirs(os.path.join(docroot, "tree", path))
        os.symlink(TREE_LOOP[1], os.path.join(docroot, "tree", TREE_LOOP[0]))

    def many_into(self, docroot):
        """The large tree below docroot/many/, made (written once per run, into the data
        set) and linked on the first call for that docroot; returns {relative path: sha256}."""
        if not hasattr(self, "many"):
            self.many = {}
            for index in range(MANY_FOLDERS * MANY_PER_FOLDER):
                path, content = many_path(index), many_bytes(index)
                full = os.path.join(self.folder, "many", path)
                if index % MANY_PER_FOLDER == 0:
                    os.makedirs(os.path.dirname(full))
                with open(full, "wb") as f:
                    f.write(content)
                os.utime(full, (SERVED_TIME, SERVED_TIME))
                self.many[path] = hashlib.sha256(content).hexdigest()
        if not os.path.isdir(os.path.join(docroot, "many")):
            for path in self.many:
                link(os.path.join(self.folder, "many", path), os.path.join(docroot, "many", path))
        return self.many

    def link_uploads(self, out, names):
        for name in names:
            link(os.path.join(self.folder, name if name != "up-big.bin" else "big.bin"),
                 os.path.join(out, name))


def link(source, destination):
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    os.link(source, destination)


class Context:
    """What cases share: the haul runner, the data set, the certificate, the origin the
    proxy cases go to, and a fresh folder per case."""

    def __init__(self, haul, data, cert, work, proxy_origin):
        self.haul, self.data, self.cert, self.work = haul, data, cert, work
        self.proxy_origin = proxy_origin
        self.sequence = 0

    def folder(self, name):
        """A fresh folder for the case; `tag` becomes its query string."""
        self.sequence += 1
        self.tag = "case%03d" % self.sequence
        path = os.path.join(self.work, "cases", "%03d-%s" % (self.sequence, name))
        os.makedirs(os.path.join(path, "out"))
        return path


def refused_by_design(run, why):
    """The URLSession transport must refuse what it cannot do with a usage error before
    any transfer: exit 2 makes the case n/a, anything else is a FAIL."""
    check(run.status == 2 and not run.transfers,
          "expected a usage error (exit 2) for %s, got %s" % (why, run.brief()))
    raise NotApplicable(why + ": refused, exit 2")


def trust(context, transport):
    """The options that make haul trust the suite's CA: URLSession refuses --cacert (it
    cannot honour it), so its runs get none and reach only plain http."""
    return ["--cacert", context.cert] if transport == "curl" else []


def tagged_entries(server, tag, predicate=lambda e: True, wanted=1):
    """The access-log entries whose target carries `tag` (a case's query string) and match
    predicate, waiting up to the server's `log_seconds` for at least `wanted` (lighttpd
    writes its log every 4 s, so a count taken before a run would not do)."""
    deadline = time.monotonic() + server.log_seconds
    while True:
        found = [e for e in server.entries() if e["path"].endswith("?" + tag) and
                 predicate(e)]
        if len(found) >= wanted or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def small_lines(context, origin, https=False, host="127.0.0.1", count=SMALL_COUNT):
    return [{"url": origin.url("/%s?%s" % (path, context.tag), https, host), "path": path,
             "size": size,
             "sha256": sha} for path, size, sha in context.data.small[:count]]


def check_ok(run, count):
    check(run.all_ok() and len(run.transfers) == count, run.brief())


def check_small_files(folder, context, count=SMALL_COUNT):
    for path, _, sha in context.data.small[:count]:
        check(sha256_file(os.path.join(folder, "out", path)) == sha, "%s differs" % path)


# Origin cases.

def small_files(context, origin, transport):
    folder = context.folder("small")
    run = context.haul.run(folder, small_lines(context, origin), transport, ["-j", "16"])
    check_ok(run, SMALL_COUNT)
    check_small_files(folder, context)
    return "%d files" % SMALL_COUNT


def small_files_h2(context, origin, transport):
    if transport == "urlsession":
        raise NotApplicable(NO_EXTRA_CA)
    folder = context.folder("small-h2")
    run = context.haul.run(folder, small_lines(context, origin, https=True), transport,
                           ["-j", "16", "--cacert", context.cert])
    check_ok(run, SMALL_COUNT)
    check_small_files(folder, context)
    served = tagged_entries(origin, context.tag, wanted=SMALL_COUNT)
    h2 = [e for e in served if e["proto"].startswith("HTTP/2")]
    check(len(h2) == SMALL_COUNT, "%d of %d requests over HTTP/2 (%s)" % (
        len(h2), len(served), sorted(set(e["proto"] for e in served))))
    return "%d files over HTTP/2" % SMALL_COUNT


def kill_resume(context, origin, transport):
    folder = context.folder("resume")
    lines = [{"url": origin.url("/big.bin"), "path": "big.bin", "size": BIG_SIZE,
              "sha256": context.data.big_sha}]
    partial = os.path.join(folder, "out", "big.bin.haul-partial")
    process = context.haul.start(folder, lines, transport, ["--max-rate", "16M"])
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and process.poll() is None:
            if os.path.exists(partial) and os.path.getsize(partial) >= 8 * MiB:
                break
            time.sleep(0.05)
        running = process.poll() is None
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    stderr = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    check(running, "haul ended before it was killed: %s" % stderr.strip()[-200:])
    check(os.path.exists(partial), "no partial file after 30 s")
    kept = os.path.getsize(partial)
    run = context.haul.run(folder, lines, transport)
    check_ok(run, 1)
    check(sha256_file(os.path.join(folder, "out", "big.bin")) == context.data.big_sha,
          "the resumed file differs")
    moved = run.transfers[0]["bytes"]
    check(moved == BIG_SIZE - kept, "rerun moved %d bytes, %d were left after %d kept" % (
        moved, BIG_SIZE - kept, kept))
    return "killed at %.1f MiB, resumed %.1f MiB" % (kept / MiB, moved / MiB)


def segments(context, origin, transport):
    folder = context.folder("segments")
    lines = [{"url": origin.url("/big.bin?" + context.tag), "path": "big.bin", "size": BIG_SIZE,
              "sha256": context.data.big_sha}]
    run = context.haul.run(folder, lines, transport,
                           ["--segments", "4", "--min-segment-size", "1M"])
    check_ok(run, 1)
    check(sha256_file(os.path.join(folder, "out", "big.bin")) == context.data.big_sha,
          "the file differs")
    ranges = tagged_entries(origin, context.tag, lambda e: e["status"] == 206, 4)
    check(len(ranges) >= 2, "%d ranged (206) requests in the access log" % len(ranges))
    return "%d ranges" % len(ranges)


def uploads(context, origin, transport, https=False):
    if not origin.takes_puts:
        raise NotApplicable("%s takes no PUT" % origin.name)
    if https and transport == "urlsession":
        raise NotApplicable(NO_EXTRA_CA)
    folder = context.folder("put")
    names = ["up-small.bin", "up-mid.bin"]
    context.data.link_uploads(os.path.join(folder, "out"), names)
    scheme = "https" if https else "http"
    targets = {name: "%s-%s-%s" % (transport, scheme, name) for name in names}
    lines = [{"op": "upload", "url": origin.url("/up/" + targets[name], https),
              "path": name} for name in names]
    arguments = ["--cacert", context.cert] if https else []
    run = context.haul.run(folder, lines, transport, arguments)
    check_ok(run, len(names))
    for name in names:
        stored = os.path.join(origin.docroot, "up", targets[name])
        check(os.path.exists(stored), "%s is not on the server" % targets[name])
        check(sha256_file(stored) == context.data.uploads[name][1],
              "%s differs on the server" % targets[name])
    return "%d files, bytes checked on the server" % len(names)


def folder_upload(context, origin, transport):
    """A local tree (nested folders, names with a space and #) uploaded as one folder entry:
    the server refuses a PUT into a missing folder, so each collection must be made with
    MKCOL first."""
    if not origin.takes_puts:
        raise NotApplicable("%s takes no PUT" % origin.name)
    folder = context.folder("put-folder")
    files = {"a.bin": 1000, "sub/b c.bin": 70_000, "sub/deeper/d#1.bin": 5}
    sums = {}
    for index, (path, size) in enumerate(sorted(files.items())):
        sums[path] = write_file(os.path.join(folder, "out", "site", path), size, 2000 + index)
    target = "folder-%s" % transport
    line = {"op": "upload", "path": "site/", "url": origin.url("/up/%s/" % target)}
    run = context.haul.run(folder, [line], transport)
    check_ok(run, len(files))
    for path, sha in sums.items():
        stored = os.path.join(origin.docroot, "up", target, path)
        check(os.path.exists(stored), "%s is not on the server" % path)
        check(sha256_file(stored) == sha, "%s differs on the server" % path)
    return "%d files in 3 collections, bytes checked on the server" % len(files)


def uploads_https(context, origin, transport):
    return uploads(context, origin, transport, https=True)


def early_refusal_h2(context, origin, transport):
    if not origin.takes_puts:
        raise NotApplicable("%s takes no PUT" % origin.name)
    if not getattr(origin, "refuses_early", True):
        raise NotApplicable("%s reads a PUT's whole body before it refuses it" % origin.name)
    if transport == "urlsession":
        raise NotApplicable(NO_EXTRA_CA)
    folder = context.folder("early-409")
    names = ["up-small.bin", "up-big.bin"]
    context.data.link_uploads(os.path.join(folder, "out"), names)
    lines = [{"op": "upload", "url": origin.url("/missing/dir/" + name, https=True),
              "path": name} for name in names]
    run = context.haul.run(folder, lines, transport,
                           ["--cacert", context.cert, "--retries", "2"])
    seen = [(t.get("error", {}).get("code"), t["attempts"]) for t in run.transfers]
    check(run.status == 1 and seen == [("http_409", 1)] * 2,
          "%s; (code, attempts) %s" % (run.brief(), seen))
    return "http_409 after 1 attempt, 100 KB and 64 MiB"


def remote_time(context, origin, transport):
    folder = context.folder("remote-time")
    run = context.haul.run(folder, [{"url": origin.url("/time.bin"), "path": "time.bin"}],
                           transport)
    check_ok(run, 1)
    connection = http.client.HTTPConnection("127.0.0.1", origin.http_port, timeout=10)
    connection.request("HEAD", "/time.bin")
    header = connection.getresponse().getheader("Last-Modified")
    connection.close()
    check(header is not None, "the server sent no Last-Modified")
    served = email.utils.parsedate_to_datetime(header).timestamp()
    mtime = os.stat(os.path.join(folder, "out", "time.bin")).st_mtime
    check(served == SERVED_TIME, "Last-Modified %s is not the served file's mtime" % header)
    check(mtime == served, "mtime %s, Last-Modified %s" % (
        time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(mtime)), header))
    return "mtime = Last-Modified %s" % header


def ipv6(context, origin, transport):
    folder = context.folder("ipv6")
    count = 20
    lines = small_lines(context, origin, False, "::1", count)
    lines += [dict(line, url=line["url"].replace(str(origin.http_port),
                                                 str(origin.https_port)).replace(
                                                     "http://", "https://"),
                   path="tls/" + line["path"]) for line in lines]
    run = context.haul.run(folder, lines, transport, ["-j", "8", *trust(context, transport)])
    if transport == "urlsession":
        check("manifest.jsonl:1:" in run.stderr, "no MANIFEST:LINE message: " + run.brief())
        refused_by_design(run, NO_IPV6)
    check_ok(run, 2 * count)
    served = tagged_entries(origin, context.tag, wanted=2 * count)
    check(all(e["client"] == "::1" for e in served) and len(served) == 2 * count,
          "%d requests from ::1 of %d" % (
              sum(e["client"] == "::1" for e in served), len(served)))
    h2 = sum(e["proto"].startswith("HTTP/2") for e in served)
    check(h2 == count, "%d https requests over HTTP/2 of %d" % (h2, count))
    return "http and https (HTTP/2) from [::1]"


def refresh(context, origin, transport):
    """A file changed on the server is fetched again by --refresh, an unchanged one is
    not. Runs once haul's --refresh exists."""
    if not context.haul.offers("--refresh"):
        raise NotApplicable("haul run --help does not list --refresh yet")
    served = os.path.join(origin.docroot, "refresh.txt")
    write_version(origin, served, b"first version\n", SERVED_TIME)
    folder = context.folder("refresh")
    lines = [{"url": origin.url("/refresh.txt"), "path": "refresh.txt"}]
    check_ok(context.haul.run(folder, lines, transport), 1)
    again = context.haul.run(folder, lines, transport, ["--refresh"])
    check(again.status == 0 and [(t["status"], t.get("refresh")) for t in again.transfers]
          == [("skipped", "unchanged")], "unchanged file: " + again.brief())
    write_version(origin, served, b"second, longer version\n", SERVED_TIME + 3600)
    changed = context.haul.run(folder, lines, transport, ["--refresh"])
    check(changed.status == 0 and [(t["status"], t.get("refresh")) for t in
                                   changed.transfers] == [("ok", "changed")],
          "changed file: " + changed.brief())
    with open(os.path.join(folder, "out", "refresh.txt"), "rb") as f:
        check(f.read() == b"second, longer version\n", "the refreshed file differs")
    return "unchanged kept (304), changed fetched"


def folder_tree(context, origin, transport):
    """The small files' folder as a recursive entry: listed with PROPFIND where the server
    speaks WebDAV (apache2, lighttpd), from its index page otherwise (caddy browse, h2o
    dirlisting), every file fetched once and byte for byte."""
    folder = context.folder("folder")
    line = {"url": origin.url("/small/"), "recursive": True, "path": "tree/"}
    run = context.haul.run(folder, [line], transport, ["-j", "16"])
    check_ok(run, SMALL_COUNT)
    for path, _, sha in context.data.small:
        name = os.path.join(folder, "out", "tree", os.path.basename(path))
        check(sha256_file(name) == sha, "%s differs" % name)
    deadline = time.monotonic() + origin.log_seconds
    while True:
        listed = [e for e in origin.entries() if e["path"] == "/small/"]
        if listed or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    dav = any(e["method"] == "PROPFIND" and e["status"] == 207 for e in listed)
    how = "PROPFIND" if dav else "the index page" if listed else "what it serves (no log)"
    return "%d files, listed by %s" % (SMALL_COUNT, how)


def folder_names(context, origin, transport, listing, prefix):
    """The tree (TREE_FILES) in one of the origin's listing formats: every file fetched once
    and byte for byte, nothing else, empty folders no failure; then a rerun that fetches
    nothing. The link back to an ancestor is taken for the loop it is where the server
    lists it as a folder; a server that lists it as a file (lighttpd) or not at all
    (rclone) gives it a transfer of its own or none, which the detail names."""
    folder = context.folder("tree-" + listing)
    line = {"url": origin.url(prefix + "/tree/"), "recursive": True, "path": "tree/"}
    loop = "tree/" + TREE_LOOP[0]

    def split(run):
        looped = [t for t in run.transfers if t["path"].startswith(loop)]
        return [t for t in run.transfers if t not in looped], looped

    run = context.haul.run(folder, [line], transport, ["-j", "8"])
    files, looped = split(run)
    check(len(files) == len(TREE_FILES) and all(t["status"] == "ok" for t in files) and
          run.status == (1 if any(t["status"] == "failed" for t in looped) else 0),
          run.brief())
    out = os.path.join(folder, "out", "tree")
    found = set()
    for root, _, names in os.walk(out):
        found.update(os.path.relpath(os.path.join(root, name), out) for name in names)
    found -= {t["path"][len("tree/"):] for t in looped}
    check(found == set(TREE_FILES), "files %s, expected %s" % (
        sorted(found - set(TREE_FILES)), sorted(set(TREE_FILES) - found)))
    for path, sha in context.data.tree.items():
        check(sha256_file(os.path.join(out, path)) == sha, "%s differs" % path)
    listed = [e for e in origin.entries() if e["path"] == prefix + "/tree/"]
    dav = any(e["method"] == "PROPFIND" and e["status"] == 207 for e in listed)
    check(not listed or dav == (listing == "propfind"),
          "listed by %s" % ("PROPFIND" if dav else "GET"))
    served = "a 207 multistatus"
    if listing != "propfind":
        served = listing_type(origin, prefix + "/tree/")
        check(listing.split("-")[0] in served, "the folder's GET answers %s" % served)
        served = served.split(" ", 1)[-1].split(";")[0]
    again = context.haul.run(folder, [line], transport, ["-j", "8"])
    files, _ = split(again)
    check(len(files) == len(TREE_FILES) and all(t["status"] == "skipped" for t in files),
          "rerun: " + again.brief())
    how = ", the loop: " + ",".join(sorted(set(
        t.get("error", {}).get("code", t["status"]) for t in looped))) if looped else ""
    return "%d files from %s, rerun skipped all%s" % (len(TREE_FILES), served, how)


def many_files(context, origin, transport, listing, prefix):
    """MANY_FOLDERS x MANY_PER_FOLDER small files in one of the origin's listing formats:
    every file fetched once (the access log shows one GET of each, none twice) and byte for
    byte, nothing else, then a rerun that skips every file and fetches none (the log shows
    no GET of a file, only the listings)."""
    tree = context.data.many_into(origin.docroot)
    folder = context.folder("many-" + listing)
    base = prefix + "/many/"
    line = {"url": origin.url(base), "recursive": True, "path": "many/"}

    def fetched(entries):
        return collections.Counter(e["path"][len(base):] for e in entries if e["method"] ==
                                   "GET" and e["path"].startswith(base) and
                                   not e["path"].endswith("/"))

    before = len(origin.entries())
    started = time.monotonic()
    run = context.haul.run(folder, [line], transport, ["-j", "16"], timeout=900)
    took = time.monotonic() - started
    check(run.all_ok() and len(run.transfers) == len(tree), run.brief())
    out = os.path.join(folder, "out", "many")
    found = set()
    for root, _, names in os.walk(out):
        found.update(os.path.relpath(os.path.join(root, name), out) for name in names)
    check(found == set(tree), "%d files, %d expected; extra %s, missing %s" % (
        len(found), len(tree), sorted(found - set(tree))[:3], sorted(set(tree) - found)[:3]))
    for path, sha in tree.items():
        check(sha256_file(os.path.join(out, path)) == sha, "%s differs" % path)
    deadline = time.monotonic() + origin.log_seconds
    while True:
        gets = fetched(origin.entries()[before:])
        if sum(gets.values()) >= len(tree) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    twice = sorted(path for path, count in gets.items() if count > 1)
    check(set(gets) == set(tree) and not twice, "%d files fetched of %d, %d twice (%s)" % (
        len(gets), len(tree), len(twice), twice[:3]))
    before = len(origin.entries())
    started = time.monotonic()
    again = context.haul.run(folder, [line], transport, ["-j", "16"], timeout=900)
    rerun = time.monotonic() - started
    check(again.status == 0 and len(again.transfers) == len(tree) and
          all(t["status"] == "skipped" for t in again.transfers), "rerun: " + again.brief())
    time.sleep(min(origin.log_seconds, 2.0))
    gets = fetched(origin.entries()[before:])
    check(not gets, "the rerun fetched %d files (%s)" % (len(gets), sorted(gets)[:3]))
    return "%d files in %d folders in %.0f s, rerun skipped all in %.1f s, no GET" % (
        len(tree), MANY_FOLDERS, took, rerun)


# The Accept of haul's GET of a folder (WebFolderLister.accept): JSON where the server
# offers it, else the page.
LISTING_ACCEPT = "application/json;q=0.9, text/html, */*;q=0.5"


def listing_type(origin, path):
    """The Content-Type `origin` answers a GET of the folder `path` with, asked as haul asks,
    so a format case tells which format the server really gave."""
    connection = http.client.HTTPConnection("127.0.0.1", origin.http_port, timeout=10)
    try:
        connection.request("GET", path, headers={"Accept": LISTING_ACCEPT})
        response = connection.getresponse()
        response.read()
        return "%d %s" % (response.status, response.getheader("Content-Type", ""))
    finally:
        connection.close()


# The local tree the S3 folder upload sends: nested folders, and names whose keys need
# encoding (a space, %, #, ?, +, =, &, non-ASCII letters; a + beside a space, which a
# server that reads + in a key as a space would store as two spaces).
S3_TREE = {"a.bin": 1000, "with space.txt": 2_000, "100%.bin": 300, "hash#1.txt": 1,
           "what?.txt": 5, "a+b=c&d.txt": 6, "one+two three.txt": 7,
           "\u00fcn\u00efc\u00f6d\u00e9 \u65e5\u672c.txt": 40,
           "sub/b c.bin": 70_000, "sub/deeper/d.bin": 5}


def s3_folder_upload(context, origin, transport):
    """A local folder uploaded to an S3 prefix under --s3 (`{"op": "upload", "path":
    "site/", "url": "s3://BUCKET/PREFIX/"}`): every regular file becomes the key of its path
    below the prefix, byte for byte in the server's store, and no other key is there; a
    symlink that leads out of the
    folder is not sent and an empty folder costs nothing. Then the prefix, listed back
    (ListObjectsV2), brings every file down again."""
    folder = context.folder("s3-put-folder")
    out = os.path.join(folder, "out")
    sums = {}
    for index, (path, size) in enumerate(sorted(S3_TREE.items())):
        sums[path] = write_file(os.path.join(out, "site", path), size, 4000 + index)
    write_file(os.path.join(out, "outside.txt"), 10, 4100)
    os.symlink("../outside.txt", os.path.join(out, "site", "leads-out"))
    os.makedirs(os.path.join(out, "site", "empty"))
    prefix = "%s/pub/" % transport
    url = "s3://%s/%s" % (origin.bucket, prefix)
    arguments, env = origin.s3_arguments(), origin.s3_environment(folder)
    run = context.haul.run(folder, [{"op": "upload", "path": "site/", "url": url}], transport,
                           arguments, env)
    check_ok(run, len(S3_TREE))
    stored = origin.objects(prefix)
    expected = {prefix + path: sha for path, sha in sums.items()}
    check(set(stored) == set(expected), "keys %s are not on the server, %s are" % (
        sorted(set(expected) - set(stored)), sorted(set(stored) - set(expected))))
    for key, sha in expected.items():
        check(stored[key] == sha, "%s differs on the server" % key)
    back = context.haul.run(folder, [{"url": url, "path": "back/"}], transport, arguments, env)
    check_ok(back, len(S3_TREE))
    for path, sha in sums.items():
        name = os.path.join(out, "back", path)
        check(os.path.exists(name) and sha256_file(name) == sha, "%s came back wrong" % path)
    return "%d files as keys below %s, listed back byte for byte" % (len(S3_TREE), prefix)


S3_CASES = [("put-folder-s3", s3_folder_upload)]


def write_version(origin, path, content, mtime):
    """Puts a new version of a served file in place, and waits until `origin` has seen it: a
    user refreshes after the server noticed the change, not within its stat cache."""
    staged = path + ".new"
    with open(staged, "wb") as f:
        f.write(content)
    os.utime(staged, (mtime, mtime))
    os.replace(staged, path)
    time.sleep(origin.stat_cache_seconds)


ORIGIN_CASES = [
    ("small-files", small_files), ("small-files-h2", small_files_h2),
    ("kill-resume", kill_resume), ("segments", segments), ("put", uploads),
    ("put-https", uploads_https), ("early-409-h2", early_refusal_h2),
    ("remote-time", remote_time), ("ipv6", ipv6), ("refresh", refresh),
    ("folder", folder_tree), ("put-folder", folder_upload),
]


def origin_cases(origin):
    """The cases `origin` runs, in order: the origin cases it takes, then "tree-FORMAT"
    (folder_names) for each listing format it serves and "many-FORMAT" (many_files) for
    each of its `many_formats` (a case filter "tree" or "many" takes them all);
    an S3 server runs the S3 cases alone."""
    if getattr(origin, "speaks_s3", False):
        return list(S3_CASES)
    wanted = origin.cases
    cases = [(name, function) for name, function in ORIGIN_CASES
             if wanted is None or name in wanted]
    if wanted is None or "tree" in wanted:
        for listing, prefix in origin.formats.items():
            cases.append(("tree-" + listing, functools.partial(
                folder_names, listing=listing, prefix=prefix)))
    for listing in origin.many_formats:
        cases.append(("many-" + listing, functools.partial(
            many_files, listing=listing, prefix=origin.formats[listing])))
    return cases


# Proxy cases: the files go from context.proxy_origin through the proxy.

def proxied_lines(context, https_too=True, host="127.0.0.1"):
    origin = context.proxy_origin
    path, size, sha = context.data.small[0]
    target = "/%s?%s" % (path, context.tag)
    lines = [{"url": origin.url(target, False, host), "path": "plain.bin",
              "size": size, "sha256": sha}]
    if https_too:
        lines.append({"url": origin.url(target, True, host),
                      "path": "tls.bin", "size": size, "sha256": sha})
    return lines


def through_proxy(context, proxy, transport, name, arguments=(), env=None, https_too=True,
                  host="127.0.0.1", refused=None):
    """Runs the proxied lines; checks they went through `proxy` (its log or, for SOCKS,
    the origin's log); returns the detail."""
    origin = context.proxy_origin
    folder = context.folder(proxy.name + "-" + name)
    before_proxy = len(proxy.requests()) if hasattr(proxy, "requests") else 0
    lines = proxied_lines(context, https_too, host)
    run = context.haul.run(folder, lines, transport, [*trust(context, transport), *arguments],
                           env)
    if refused:
        refused_by_design(run, refused)
    check_ok(run, len(lines))
    if hasattr(proxy, "requests"):
        # squid logs a CONNECT when its tunnel closes, which may come after haul exited.
        deadline = time.monotonic() + 5
        while True:
            seen = proxy.requests()[before_proxy:]
            plain = [r for r in seen if r.startswith("GET ") and r.endswith("?" + context.tag)]
            tunnels = [r for r in seen if r.startswith("CONNECT ")
                       and r.endswith(":%d" % origin.https_port)]
            if len(tunnels) >= (1 if https_too else 0) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        check(len(plain) == 1 and len(tunnels) == (1 if https_too else 0),
              "the proxy logged %s" % seen)
        return "GET forwarded" + (", https through CONNECT" if https_too else "")
    served = tagged_entries(origin, context.tag, wanted=len(lines))
    clients = sorted(set(e["client"] for e in served))
    check(len(served) == len(lines) and clients == [proxy.outgoing],
          "the origin saw requests from %s, not only from %s" % (clients, proxy.outgoing))
    return "origin saw the requests from the proxy's %s" % proxy.outgoing


def http_proxy_variables(context, proxy, transport):
    if proxy.scheme == "socks5h":
        env = {"ALL_PROXY": proxy.url()}
        refused = "SOCKS in the proxy variables" if transport == "urlsession" else None
        return through_proxy(context, proxy, transport, "env", env=env, refused=refused)
    if transport == "urlsession":
        detail = through_proxy(context, proxy, transport, "env", https_too=False,
                               env={"http_proxy": proxy.url()})
        return detail + " (https: n/a, " + NO_EXTRA_CA.split(":")[0] + ")"
    env = {"http_proxy": proxy.url(), "HTTPS_PROXY": proxy.url()}
    return through_proxy(context, proxy, transport, "env", env=env)


def proxy_option(context, proxy, transport):
    refused = "--proxy with URLSession" if transport == "urlsession" else None
    return through_proxy(context, proxy, transport, "option", ["--proxy", proxy.url()],
                         refused=refused)


def no_proxy(context, proxy, transport):
    origin = context.proxy_origin
    folder = context.folder(proxy.name + "-no-proxy")
    variable = "ALL_PROXY" if proxy.scheme == "socks5h" else "http_proxy"
    env = {variable: proxy.url(), "no_proxy": "example.test,127.0.0.1"}
    before_proxy = len(proxy.requests()) if hasattr(proxy, "requests") else 0
    lines = proxied_lines(context, https_too=False)
    run = context.haul.run(folder, lines, transport, [], env)
    if transport == "urlsession" and proxy.scheme == "socks5h":
        refused_by_design(run, "SOCKS in the proxy variables")
    check_ok(run, 1)
    if hasattr(proxy, "requests"):
        check(len(proxy.requests()) == before_proxy, "the proxy saw a request")
    served = tagged_entries(origin, context.tag)
    check([e["client"] for e in served] == ["127.0.0.1"],
          "the origin saw %s" % [e["client"] for e in served])
    return "no_proxy=127.0.0.1 went direct"


def proxy_ipv6(context, proxy, transport):
    """An IPv6 literal as the proxy (squid on [::1]) or the origin behind it."""
    proxy_host = "::1" if proxy.listens_ipv6 else "127.0.0.1"
    origin_host = "127.0.0.1" if proxy.scheme == "socks5h" else "::1"
    arguments = ["--proxy", proxy.url(proxy_host)]
    if transport == "urlsession":
        return through_proxy(context, proxy, transport, "ipv6", arguments, host="::1",
                             refused=NO_IPV6)
    detail = through_proxy(context, proxy, transport, "ipv6", arguments, host=origin_host)
    return "proxy %s, origin %s: %s" % (proxy.url(proxy_host), origin_host, detail)


def https_proxy(context, proxy, transport):
    """TLS to the proxy itself (squid's https_port), checked against --cacert: plain http
    is forwarded inside that TLS, https goes through CONNECT inside it."""
    if not hasattr(proxy, "tls_url"):
        raise NotApplicable("%s offers no TLS to the proxy" % proxy.name)
    refused = "an https:// proxy with URLSession" if transport == "urlsession" else None
    detail = through_proxy(context, proxy, transport, "https-proxy",
                           ["--proxy", proxy.tls_url()], refused=refused)
    return "proxy %s: %s" % (proxy.tls_url(), detail)


PROXY_CASES = [
    ("proxy-variables", http_proxy_variables), ("proxy-option", proxy_option),
    ("https-proxy", https_proxy), ("no_proxy", no_proxy), ("ipv6", proxy_ipv6),
]
