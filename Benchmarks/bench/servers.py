"""What the tools talk to: nginx on free loopback ports (plain, https with HTTP/2 and
HTTP/1.1, each logging its connections), Benchmarks/relay.py in front of it for a round trip,
the throwaway CA of each run and the copy of the system's CAs that holds it."""

import http.client
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import time
import urllib.parse

from .common import HERE, ROOT, WORK, sh, write_lines


SYSTEM_CERTS = "/etc/ssl/certs"


def make_ca(folder):
    """A throwaway CA and a certificate for 127.0.0.1 signed by it, made anew for each run
    (openssl); returns the paths of the CA's certificate, the server's and its key."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    ca_key, ca, key, csr, cert = (os.path.join(folder, n) for n in
                                  ["ca.key", "ca.pem", "server.key", "server.csr", "server.pem"])
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    sh(["openssl", "req", "-x509"] + ec + ["-days", "2", "-subj", "/CN=haul benchmark CA",
       "-addext", "basicConstraints=critical,CA:TRUE",
       "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", ca_key, "-out", ca],
       **quiet)
    sh(["openssl", "req"] + ec + ["-subj", "/CN=127.0.0.1", "-keyout", key, "-out", csr],
       **quiet)
    extensions = write_lines(os.path.join(folder, "server.ext"),
                             ["subjectAltName=IP:127.0.0.1", "extendedKeyUsage=serverAuth",
                              "basicConstraints=CA:FALSE"])
    sh(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
        "-days", "2", "-extfile", extensions, "-out", cert], **quiet)
    return ca, cert, key


def installed_ca(ca, folder):
    """A copy of /etc/ssl/certs holding the throwaway CA `ca` as update-ca-certificates
    installs one (appended to the bundle, linked under its subject hash), and the command
    prefix that runs a tool with that copy as /etc/ssl/certs, in a mount namespace of its
    own; or None and why not. The machine's own trust store is never touched."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return None, "skipped: needs root and unshare (a mount namespace for the CA)"
    if not os.path.isdir(SYSTEM_CERTS):
        return None, f"skipped: no {SYSTEM_CERTS}"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(SYSTEM_CERTS, folder, symlinks=True)
    shutil.copy(ca, os.path.join(folder, "haul-benchmark-ca.pem"))
    bundle = os.path.join(folder, "ca-certificates.crt")
    if os.path.islink(bundle) or not os.path.exists(bundle):
        return None, f"skipped: {SYSTEM_CERTS}/ca-certificates.crt is not a file"
    with open(ca) as source, open(bundle, "a") as target:
        target.write(source.read())
    subject = subprocess.run(["openssl", "x509", "-hash", "-noout", "-in", ca], check=True,
                             capture_output=True, text=True).stdout.strip()
    os.symlink("haul-benchmark-ca.pem", os.path.join(folder, f"{subject}.0"))
    return ["unshare", "--mount", "sh", "-c", 'mount --bind "$0" /etc/ssl/certs && exec "$@"',
            folder], None


def link_round_trip_ms(url, ca, exchanges=40):
    """The median time of one GET of `url` on one kept-alive connection through a relay: the
    round trip the link really gives (the relay's timers and each side's work included), which
    is what a client with one request in flight per connection pays per file."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        context = ssl.create_default_context(cafile=ca)
        connection = http.client.HTTPSConnection(parts.hostname, parts.port, context=context)
    else:
        connection = http.client.HTTPConnection(parts.hostname, parts.port)
    times = []
    try:
        for index in range(exchanges + 1):
            started = time.monotonic()
            connection.request("GET", parts.path)
            connection.getresponse().read()
            if index:  # the first pays the connection's setup
                times.append((time.monotonic() - started) * 1000)
    finally:
        connection.close()
    return statistics.median(times)


class Relay:
    """Benchmarks/relay.py in front of `port`, adding `rtt_ms` of round trip."""

    def __init__(self, port, rtt_ms):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "relay.py"), "--to", f"127.0.0.1:{port}",
             "--rtt-ms", str(rtt_ms)], stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.strip().isdigit():
            raise SystemExit("bench: the relay did not start")
        self.port = int(line)

    def stop(self):
        self.process.terminate()
        self.process.wait()


def count_connections(path):
    """The connections nginx served requests on since `path` (its `$connection` log) was
    emptied: one line per request, naming its connection's serial number."""
    with open(path) as file:
        return len({line.strip() for line in file if line.strip()})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    def __init__(self, root, uploads, tls):
        """Serves `root`; PUTs under /upload/ land in `uploads` (its request bodies are
        spooled there too, so that nginx's rename into place stays on one file system).
        Beside the plain port, three servers log each request's connection serial number
        to `conn_log`, for the connections a tool opens: https with HTTP/2 (`h2_port`),
        https with HTTP/1.1 only (`https_port`), both with `tls` (certificate, key), and
        plain HTTP (`http_port`). The plain port logs nothing, as before."""
        self.dir = os.path.join(WORK, "nginx")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.port = free_port()
        self.h2_port, self.https_port, self.http_port = free_port(), free_port(), free_port()
        self.conn_log = os.path.join(self.dir, "connections.log")
        with open(os.path.join(ROOT, "scripts", "nginx.conf.in")) as file:
            text = file.read()
        user = "user root;" if os.geteuid() == 0 else ""
        # Benchmarks' own variant: rclone's http backend learns what to copy from a directory
        # listing, so the corpus folders get one (no other tool asks for a folder).
        listing = "" if "autoindex" in text else "autoindex on;"
        # Uploads go to a tmpfs: on the machine's own disk, nginx's writes set every tool's
        # time, which measured the server's disk rather than the clients (HISTORY.md).
        os.makedirs(os.path.join(uploads, ".body"), exist_ok=True)
        text = (text.replace("access_log @DIR@/access.log;", "access_log off;")
                .replace("client_body_temp_path @DIR@/body;",
                         f"client_body_temp_path {uploads}/.body;")
                .replace("location /upload/ {", f"location /upload/ {{\n      root {uploads};")
                .replace("@DIR@", self.dir).replace("@ROOT@", root)
                .replace("@PORT@", str(self.port)).replace("@USER@", user)
                .replace("@LIMIT@", listing))
        cert, key = tls
        logged = (f"  log_format connection '$connection';\n"
                  f"  server {{\n    listen 127.0.0.1:{self.h2_port} ssl http2;\n"
                  f"    ssl_certificate {cert};\n    ssl_certificate_key {key};\n"
                  f"    root {root};\n    access_log {self.conn_log} connection;\n  }}\n"
                  f"  server {{\n    listen 127.0.0.1:{self.https_port} ssl;\n"
                  f"    ssl_certificate {cert};\n    ssl_certificate_key {key};\n"
                  f"    root {root};\n    access_log {self.conn_log} connection;\n  }}\n"
                  f"  server {{\n    listen 127.0.0.1:{self.http_port};\n"
                  f"    root {root};\n    access_log {self.conn_log} connection;\n  }}\n")
        end = text.rstrip().rfind("}")
        text = text[:end] + logged + text[end:]
        config = os.path.join(self.dir, "nginx.conf")
        with open(config, "w") as file:
            file.write(text)
        self.process = subprocess.Popen(["nginx", "-c", config, "-p", self.dir])
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("bench: nginx did not start")

    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.process.terminate()
        self.process.wait()
