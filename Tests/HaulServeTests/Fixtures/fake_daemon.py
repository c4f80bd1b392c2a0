#!/usr/bin/env python3
"""A stand-in for `haul serve` that exists to test the daemon's client (HaulClient): its
HTTP exchanges and its Server-Sent Events handling. It is not the daemon and tests none of
the daemon's behaviour: every answer is canned JSON shaped as docs/service.md describes.

It listens on a Unix socket (--socket PATH) or on 127.0.0.1 at a free port (--tcp, which
needs --token), then prints `ready PORT` (0 for the socket) on standard output. Every
request is logged to --log as one JSON line (method, path, headers, body), and every event
stream the client closes as {"kind": "closed"}, so that tests read what the client sent.

The event stream (GET /v1/events) plays a script by the Last-Event-ID it is asked for:
- none: a comment, events 1 (job-added), a progress sample (no id) and 2 (entry-done), each
  in its own write; then it holds the stream open until the file --release exists, sends
  half of event 3 and cuts the connection (a chunked body without its last chunk);
- 2: events 3 (entry-failed) and 4 (job-ended), then holds the stream open;
- 5000: events 5001 to 8000 (progress data) as fast as the client takes them, then holds;
- any other N: a gap event {"after": N, "oldest": N + 5}, then event N + 5.
A held stream ends when the client closes it (logged), or after 60 s.

`GET /v1/jobs/slow/report` never answers: it holds until the client gives up (logged as
closed). `GET /v1/jobs/teapot` answers 418 with a plain-text body, not an error document;
`GET /v1/jobs/nostate` a job without its state.
"""

import argparse
import json
import os
import select
import socket
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

JOB_ID = "3f9c0a1b2c3d4e5f"
ENDED_ID = "0000000000000000"
HOLD_SECONDS = 60


def job(job_id=JOB_ID, state="active", position=0, output="/data/mirror", options=None,
        name="manifest.jsonl"):
    """The job of docs/service.md, with a field no client knows and an option whose value is
    not one of the client's shapes: both must be ignored."""
    return {
        "id": job_id, "state": state, "position": position, "output": output, "name": name,
        "total": 2000, "succeeded": 120, "skipped": 0, "failed": 1, "bytes": 1966080,
        "expected_bytes": 32768000, "rate": 5242880.0, "eta": 6.1,
        "created": "2026-12-07T16:00:00Z", "started": "2026-12-07T16:00:01.250Z",
        "ended": None,
        "options": dict({"max-rate": "10M", "ratio": 0.5}, **(options or {})),
        "added_by_a_later_daemon": {"anything": [1, 2]},
    }


def entry(line, status):
    value = {"line": line, "url": f"https://example.org/f{line}", "path": f"f{line}",
             "op": "download", "status": status, "bytes": 0 if status != "ok" else 16384,
             "attempts": 1, "seconds": 0.25}
    if status == "ok":
        value["sha256"] = "ab" * 32
        value["digests"] = {"sha256": "ab" * 32}
    if status == "failed":
        value["attempts"] = 3
        value["error"] = {"code": "http_404", "message": "the server answered 404 Not Found"}
    return value


ENTRIES = [entry(1, "ok"), entry(2, "skipped"), entry(3, "failed"), entry(4, "ok")]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-haul-daemon"

    def log_message(self, format, *args):
        pass

    def address_string(self):
        return "client"

    # Requests

    def do_GET(self):
        self.handle_call("GET")

    def do_POST(self):
        self.handle_call("POST")

    def do_PATCH(self):
        self.handle_call("PATCH")

    def do_DELETE(self):
        self.handle_call("DELETE")

    def handle_call(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        url = urlsplit(self.path)
        self.server.log({"kind": "request", "method": method, "path": self.path,
                         "headers": {k.lower(): v for k, v in self.headers.items()},
                         "body": body})
        token = self.server.token
        if token is not None and self.headers.get("Authorization") != f"Bearer {token}":
            return self.error(401, "unauthorized", "a valid bearer token is required")
        parts = url.path.strip("/").split("/")
        if parts[:1] != ["v1"]:
            return self.error(404, "not_found", "no such route")
        route = parts[1:]
        query = parse_qs(url.query)
        if route == ["jobs"] and method == "POST":
            return self.submit(json.loads(body or "{}"))
        if route == ["jobs"] and method == "GET":
            return self.answer(200, {"jobs": [job(), job("1111222233334444", "waiting", 1)]})
        if route == ["stats"] and method == "GET":
            return self.answer(200, {"active": 1, "waiting": 1, "paused": 0, "rate": 5242880.0,
                                     "last_event_id": 42, "uptime": 12.5})
        if route == ["shutdown"] and method == "POST":
            self.answer(202, None)
            threading.Thread(target=self.server.shutdown, daemon=True).start()
            return
        if route == ["events"] and method == "GET":
            return self.events()
        if len(route) >= 2 and route[0] == "jobs":
            return self.job_call(method, route[1], route[2:], query, body)
        return self.error(404, "not_found", "no such route")

    def submit(self, body):
        manifest = body.get("manifest")
        if manifest is None and not body.get("urls"):
            return self.error(400, "usage", "give a manifest or urls")
        if manifest is not None and "BAD" in manifest:
            return self.error(400, "manifest", "manifest.jsonl:3: the entry has no url")
        answer = job(state="waiting", output=body.get("output") or "/data/default",
                     options=body.get("options"),
                     name="manifest.jsonl" if manifest is not None else None)
        return self.answer(201, answer)

    def job_call(self, method, job_id, rest, query, body):
        if job_id == "teapot":
            return self.plain(418, "I'm a teapot\nshort and stout\n")
        if job_id == "nostate":
            answer = job()
            del answer["state"]
            return self.answer(200, answer)
        if job_id == "slow":
            return self.hold()
        if job_id not in (JOB_ID, ENDED_ID):
            return self.error(404, "not_found", f"no job {job_id}")
        if not rest and method == "GET":
            answer = job(job_id)
            answer["failures"] = [e for e in ENTRIES if e["status"] == "failed"]
            return self.answer(200, answer)
        if not rest and method == "PATCH":
            change = json.loads(body or "{}")
            return self.answer(200, job(job_id, position=change.get("position", 0),
                                        options=change.get("options")))
        if not rest and method == "DELETE":
            return self.answer(204, None)
        if rest in (["pause"], ["resume"], ["cancel"]) and method == "POST":
            if job_id == ENDED_ID:
                return self.error(409, "conflict", "the job has ended")
            state = {"pause": "paused", "resume": "waiting", "cancel": "removed"}[rest[0]]
            return self.answer(200, job(job_id, state))
        if rest == ["entries"] and method == "GET":
            state = query.get("state", [None])[0]
            offset = int(query.get("offset", ["0"])[0])
            limit = int(query.get("limit", ["100"])[0])
            chosen = [e for e in ENTRIES if state is None or e["status"] == state]
            return self.answer(200, {"entries": chosen[offset:offset + limit]})
        if rest == ["report"] and method == "GET":
            return self.answer(200, {"summary": {"total": 4, "succeeded": 2, "skipped": 1,
                                                 "failed": 1}, "transfers": ENTRIES})
        return self.error(404, "not_found", "no such route")

    # Answers

    def answer(self, status, value):
        data = b"" if value is None else json.dumps(value).encode()
        self.send_response(status)
        if value is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def plain(self, status, text):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, status, code, message):
        self.answer(status, {"error": {"code": code, "message": message}})

    # The event stream

    def events(self):
        last = self.headers.get("Last-Event-ID")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        if last is None:
            self.chunk(": connected\n\n")
            self.chunk(event(1, "job-added", job(state="waiting")))
            time.sleep(0.05)
            self.chunk(event(None, "progress", {"job": JOB_ID, "done": 1, "total": 2000,
                                                "bytes": 16384, "rate": 1024.5}))
            self.chunk(event(2, "entry-done", {"job": JOB_ID, "line": 1, "path": "f1",
                                               "status": "ok", "bytes": 16384}))
            if not self.hold(until_file=self.server.release):
                return
            # Half of event 3, then the connection drops without the chunked body's end.
            self.chunk('id: 3\nevent: entry-failed\ndata: {"job": "')
            self.connection.shutdown(socket.SHUT_RDWR)
        elif last == "2":
            self.chunk(event(3, "entry-failed", {"job": JOB_ID, "line": 3, "path": "f3",
                                                 "code": "http_404", "message": "not found"}))
            self.chunk(event(4, "job-ended", job(state="error")))
            self.hold()
        elif last == "5000":
            for event_id in range(5001, 8001):
                self.chunk(event(event_id, "entry-started",
                                 {"job": JOB_ID, "line": event_id, "path": f"f{event_id}"}))
            self.hold()
        else:
            after = int(last)
            self.chunk(event(after + 5, "gap", {"after": after, "oldest": after + 5}))
            self.chunk(event(after + 5, "job-started", job()))
            self.hold()

    def chunk(self, text):
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def hold(self, until_file=None):
        """Keeps the connection open without sending, until the client closes it (logged;
        answers False), `until_file` exists (answers True) or HOLD_SECONDS pass."""
        deadline = time.monotonic() + HOLD_SECONDS
        self.close_connection = True
        while time.monotonic() < deadline:
            if until_file is not None and os.path.exists(until_file):
                return True
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable:
                try:
                    data = self.connection.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    self.server.log({"kind": "closed", "path": self.path})
                    return False
        return False


def event(event_id, kind, data):
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data)}\n\n"


class Logging:
    """What both servers share: the request log, the token and the release file."""

    def setup_logging(self, log, token, release):
        self.log_file = open(log, "a", buffering=1) if log else None
        self.log_lock = threading.Lock()
        self.token = token
        self.release = release

    def handle_error(self, request, client_address):
        """A client that went away mid-answer (a test that stopped reading) is no error."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)

    def log(self, record):
        if self.log_file is None:
            return
        with self.log_lock:
            self.log_file.write(json.dumps(record) + "\n")
            self.log_file.flush()


class UnixServer(Logging, socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class TCPServer(Logging, ThreadingHTTPServer):
    daemon_threads = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket")
    parser.add_argument("--tcp", action="store_true")
    parser.add_argument("--token")
    parser.add_argument("--log")
    parser.add_argument("--release", default="/nonexistent/release")
    args = parser.parse_args()
    if args.tcp:
        if not args.token:
            parser.error("--tcp needs --token")
        server = TCPServer(("127.0.0.1", 0), Handler)
        port = server.server_address[1]
    else:
        if os.path.exists(args.socket):
            os.unlink(args.socket)
        server = UnixServer(args.socket, Handler)
        port = 0
    server.setup_logging(args.log, args.token, args.release)
    print(f"ready {port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.05)
    finally:
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
