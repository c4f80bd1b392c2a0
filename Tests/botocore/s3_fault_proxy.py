"""A reverse proxy in front of an S3 API server that fails CompleteMultipartUpload.

Usage: s3_fault_proxy.py PORT UPSTREAM_PORT FAILURES BARRIER LOG

Listens on 127.0.0.1:PORT (0: a port the kernel picks), says so on standard error
("listening on http://127.0.0.1:PORT", the port it bound), and forwards every request to
127.0.0.1:UPSTREAM_PORT as it came (its Host header too, so the upstream checks the client's
SigV4 signature), except the first FAILURES completions (POST with uploadId in the query),
which it answers 500 InternalError without forwarding; a negative FAILURES fails every one.
The first BARRIER part uploads (PUT with partNumber) are held until BARRIER of them are in
flight, or 10 s have passed, so a client that sends parts in parallel shows it whatever the
machine's speed. Each request is
logged to LOG as "METHOD TARGET STATUS INFLIGHT" on a line of its own after its answer went
out, INFLIGHT being the part uploads in flight when it arrived (itself included).
"""

import http.client
import http.server
import sys
import threading

PORT, UPSTREAM, FAILURES, BARRIER = (int(value) for value in sys.argv[1:5])
LOG = sys.argv[5]
lock = threading.Lock()
arrived = threading.Condition(lock)
failed = 0
in_flight = 0
parts_seen = 0
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade"}


def log(line):
    with lock, open(LOG, "a") as f:
        f.write(line + "\n")


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def fails(self):
        global failed
        query = self.path.partition("?")[2]
        if self.command != "POST" or "uploadId=" not in query:
            return False
        with lock:
            if FAILURES >= 0 and failed >= FAILURES:
                return False
            failed += 1
            return True

    def relay(self):
        global in_flight, parts_seen
        is_part = self.command == "PUT" and "partNumber=" in self.path
        seen = 0
        if is_part:
            with arrived:
                in_flight += 1
                parts_seen += 1
                seen = in_flight
                arrived.notify_all()
                if parts_seen <= BARRIER:
                    arrived.wait_for(lambda: in_flight >= BARRIER or parts_seen > BARRIER, 10)
        try:
            self.answer(seen)
        finally:
            if is_part:
                with arrived:
                    in_flight -= 1

    def answer(self, seen):
        length = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Expect", "").lower() == "100-continue":
            self.send_response_only(100)
            self.end_headers()
        body = self.rfile.read(length) if length else b""
        if self.fails():
            answer = b"<Error><Code>InternalError</Code><Message>injected</Message></Error>"
            self.send_response(500)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
            log(f"{self.command} {self.path} 500 {seen}")
            return
        upstream = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=60)
        upstream.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
        for name, value in self.headers.items():
            if name.lower() not in HOP_BY_HOP and name.lower() != "expect":
                upstream.putheader(name, value)
        upstream.endheaders(body)
        response = upstream.getresponse()
        data = response.read()
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP | {"content-length", "date", "server"}:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        upstream.close()
        log(f"{self.command} {self.path} {response.status} {seen}")

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = relay


server = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Proxy)
print(f"listening on http://127.0.0.1:{server.server_address[1]}", file=sys.stderr, flush=True)
server.serve_forever()
