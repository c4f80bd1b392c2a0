"""What every interop case needs: loopback ports, daemons that are always stopped, a
throwaway certificate, haul runs with their reports, and the one-line results."""

import hashlib
import json
import os
import signal
import socket
import subprocess
import time

# Variables that would send haul's requests elsewhere: removed from every run, so only what
# a case sets applies.
PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                   "ALL_PROXY", "no_proxy", "NO_PROXY")


def free_port():
    """A TCP port free on both 127.0.0.1 and [::1] at the moment of asking."""
    while True:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as six:
            six.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            six.bind(("::1", 0))
            port = six.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as four:
                try:
                    four.bind(("127.0.0.1", port))
                except OSError:
                    continue
        return port


def wait_listening(port, hosts=("127.0.0.1",), seconds=15, process=None):
    """Waits until every host accepts a connection on port; False after seconds or when
    process (a Popen) has exited."""
    deadline = time.monotonic() + seconds
    pending = list(hosts)
    while pending and time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return False
        host = pending[0]
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.settimeout(0.5)
            if probe.connect_ex((host, port)) == 0:
                pending.pop(0)
                continue
        time.sleep(0.05)
    return not pending


class Daemons:
    """Every daemon the suite started, stopped in reverse order by stop_all() (the driver
    calls it on every exit path): SIGTERM to the process group, SIGKILL after 3 s."""

    def __init__(self):
        self.processes = []

    def start(self, name, argv, log, env=None, cwd=None):
        with open(log, "ab") as output:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=output,
                                       stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                       start_new_session=True)
        self.processes.append((name, process))
        return process

    def stop_all(self):
        for _, process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 3
        for _, process in reversed(self.processes):
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                process.wait()
        self.processes = []


def make_certificate(directory):
    """A self-signed certificate for localhost, 127.0.0.1 and ::1 (cert.pem, key.pem), which
    haul trusts with --cacert. Returns (cert, key)."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
         cert, "-days", "1", "-subj", "/CN=localhost", "-addext",
         "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.chmod(key, 0o644)  # daemons that drop root read it as another user
    return cert, key


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_file(path, size, seed):
    """size deterministic bytes (seeded), written in blocks; returns their SHA-256."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    digest = hashlib.sha256()
    block = hashlib.sha256(b"interop-%d" % seed).digest() * 2048  # 64 KiB
    with open(path, "wb") as f:
        left, counter = size, 0
        while left > 0:
            chunk = bytes([counter & 0xFF]) + block[1:min(left, len(block))]
            f.write(chunk)
            digest.update(chunk)
            left -= len(chunk)
            counter += 1
    return digest.hexdigest()


class Run:
    """One finished haul process: exit status, standard error, the report (or None)."""

    def __init__(self, status, stderr, report):
        self.status, self.stderr, self.report = status, stderr, report

    @property
    def transfers(self):
        return (self.report or {}).get("transfers", [])

    def codes(self):
        """The error code of each failed transfer, or the status of the others."""
        return [t.get("error", {}).get("code", t.get("status")) for t in self.transfers]

    def all_ok(self):
        return self.status == 0 and self.transfers and all(
            t["status"] == "ok" for t in self.transfers)

    def brief(self):
        """A short account for a FAIL line."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        codes = sorted(set(str(c) for c in self.codes()))
        return "exit %s, %s%s" % (self.status, ",".join(codes) or "no report",
                                  (": " + lines[-1][:160]) if lines else "")


class Haul:
    """Runs the haul binary in a work folder: each run gets a manifest, -o out, a report,
    -q, the transport, and an environment without proxy variables but those given."""

    def __init__(self, binary):
        self.binary = binary
        options = subprocess.run([binary, "run", "--help"], capture_output=True, text=True)
        self.help = options.stdout + options.stderr

    def offers(self, option):
        return (" " + option + " ") in self.help or (" " + option + "\n") in self.help

    def command(self, folder, lines, transport, arguments=(), env=None):
        manifest = os.path.join(folder, "manifest.jsonl")
        with open(manifest, "w") as f:
            for line in lines:
                f.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
        report = os.path.join(folder, "report.json")
        if os.path.exists(report):
            os.remove(report)
        environment = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
        environment.update(env or {})
        argv = [self.binary, "run", manifest, "-o", os.path.join(folder, "out"), "-q",
                "--report", report, "--transport", transport, "--retries", "1"]
        return argv + list(arguments), environment, report

    def run(self, folder, lines, transport, arguments=(), env=None, timeout=120):
        argv, environment, report = self.command(folder, lines, transport, arguments, env)
        done = subprocess.run(argv, env=environment, capture_output=True, text=True,
                              timeout=timeout)
        return Run(done.returncode, done.stderr, load_report(report))

    def start(self, folder, lines, transport, arguments=(), env=None):
        """Starts haul without waiting; returns the Popen."""
        argv, environment, _ = self.command(folder, lines, transport, arguments, env)
        return subprocess.Popen(argv, env=environment, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def load_report(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class Results:
    """The suite's lines, `SERVER  CASE  TRANSPORT  ok|FAIL|n/a (reason)`, printed as they
    come; failed() says whether any was FAIL."""

    def __init__(self):
        self.rows = []

    def add(self, server, case, transport, outcome, reason=""):
        text = "%-10s %-18s %-10s %s" % (server, case, transport, outcome)
        if reason:
            text += " (%s)" % reason
        self.rows.append((outcome, text))
        print(text, flush=True)

    def failed(self):
        """The FAIL lines, as printed."""
        return [text for outcome, text in self.rows if outcome == "FAIL"]

    def count(self, outcome):
        return sum(1 for row in self.rows if row[0] == outcome)


class CaseFailure(Exception):
    """A case's check did not hold; the message is the reason on its FAIL line."""


class NotApplicable(Exception):
    """A case this transport or server cannot do by design; the message says why."""


def check(condition, reason):
    if not condition:
        raise CaseFailure(reason)
