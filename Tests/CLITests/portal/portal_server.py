#!/usr/bin/env python3
"""A login portal in the shape of NASA Earthdata's, for CLIPortalTests.swift.

usage: portal_server.py FOLDER LOG LOGIN PASSWORD

Serves two origins from one process, both on 127.0.0.1 with ports of their own, and prints
"DATA_PORT LOGIN_PORT" on one line once both listen:

- the data host (reach it as http://127.0.0.1:DATA_PORT) serves the files of FOLDER under
  /data/ to a request carrying its session cookie; without one it redirects (302) to the
  login host's /oauth/authorize with redirect_uri and state. Its /login?code=C&state=PATH
  takes a code the login host issued, sets the session cookie (Max-Age 3600, HttpOnly) and
  a second one in the same response (an Expires date, whose comma must not split it) and
  redirects back to PATH. Any request that carries an Authorization header is refused with
  400: a login must never reach it.
- the login host (reach it as http://localhost:LOGIN_PORT: another host name, since cookies
  ignore ports) answers /oauth/authorize: with Basic LOGIN:PASSWORD, or its own session
  cookie, it sets that cookie (a session cookie) and redirects to redirect_uri with a fresh
  code; otherwise 401 with a Basic challenge.

Every request is appended to LOG as one JSON line: which host, the path, whether it carried
an Authorization header and whether that was the right login, and which cookie names came.
No secret is written. The server runs until its standard input closes.
"""
import base64
import json
import os
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlsplit

folder, log_path, login, password = sys.argv[1:5]
expected_basic = "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()
lock = threading.Lock()
codes = set()
data_sessions = set()
login_sessions = set()
ports = {}


def cookies_of(headers):
    found = {}
    for field in headers.get_all("Cookie") or []:
        for part in field.split(";"):
            if "=" in part:
                name, value = part.strip().split("=", 1)
                found[name] = value
    return found


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    role = "?"

    def log_message(self, *args):
        pass

    def record(self, cookies):
        authorization = self.headers.get("Authorization")
        line = {
            "host": self.role,
            "path": urlsplit(self.path).path,
            "authorization": authorization is not None,
            "login_right": authorization == expected_basic,
            "cookies": sorted(cookies),
        }
        with lock, open(log_path, "a") as log:
            log.write(json.dumps(line) + "\n")

    def answer(self, status, headers=(), body=b""):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()


class DataHost(Handler):
    role = "data"

    def do_GET(self):
        cookies = cookies_of(self.headers)
        self.record(cookies)
        url = urlsplit(self.path)
        if self.headers.get("Authorization") is not None:
            return self.answer(400, body=b"credentials sent to the data host\n")
        if url.path == "/login":
            query = parse_qs(url.query)
            code = query.get("code", [""])[0]
            state = query.get("state", ["/"])[0]
            with lock:
                valid = code in codes
                codes.discard(code)
            if not valid:
                return self.answer(403, body=b"bad code\n")
            session = secrets.token_hex(16)
            with lock:
                data_sessions.add(session)
            return self.answer(
                302,
                [
                    ("Location", state),
                    ("Set-Cookie", f"portal_session={session}; Path=/; Max-Age=3600; HttpOnly"),
                    ("Set-Cookie", "portal_seen=1; Path=/data; Expires=Fri, 31 Dec 2098 23:59:59 GMT"),
                ],
            )
        if not url.path.startswith("/data/"):
            return self.answer(404)
        with lock:
            known = cookies.get("portal_session") in data_sessions
        if not known:
            back = f"http://127.0.0.1:{ports['data']}/login"
            target = (
                f"http://localhost:{ports['login']}/oauth/authorize?client_id=haul"
                f"&redirect_uri={quote(back, safe='')}&state={quote(url.path, safe='')}"
            )
            return self.answer(302, [("Location", target)])
        path = os.path.join(folder, url.path[len("/data/"):])
        if not os.path.isfile(path):
            return self.answer(404)
        with open(path, "rb") as source:
            body = source.read()
        self.answer(200, [("Content-Type", "application/octet-stream")], body)


class LoginHost(Handler):
    role = "login"

    def do_GET(self):
        cookies = cookies_of(self.headers)
        self.record(cookies)
        url = urlsplit(self.path)
        if url.path != "/oauth/authorize":
            return self.answer(404)
        with lock:
            known = cookies.get("urs_session") in login_sessions
        if self.headers.get("Authorization") != expected_basic and not known:
            return self.answer(401, [("WWW-Authenticate", 'Basic realm="portal"')], b"login\n")
        query = parse_qs(url.query)
        code = secrets.token_hex(8)
        session = secrets.token_hex(16)
        with lock:
            codes.add(code)
            login_sessions.add(session)
        back = query.get("redirect_uri", [""])[0]
        state = query.get("state", ["/"])[0]
        self.answer(
            302,
            [
                ("Location", f"{back}?code={code}&state={quote(state, safe='')}"),
                ("Set-Cookie", f"urs_session={session}; Path=/; HttpOnly"),
            ],
        )


servers = [ThreadingHTTPServer(("127.0.0.1", 0), DataHost), ThreadingHTTPServer(("127.0.0.1", 0), LoginHost)]
ports["data"] = servers[0].server_address[1]
ports["login"] = servers[1].server_address[1]
for server in servers:
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
print(ports["data"], ports["login"], flush=True)
sys.stdin.read()
for server in servers:
    server.shutdown()
