"""A `haul serve` for the benchmarks (Benchmarks/run's serve-small, Benchmarks/serve/run):
started with its state and control socket in a folder of its own, driven through haul's
client commands, its CPU and RSS read from /proc."""
import os
import subprocess
import time


class Daemon:
    """A `haul serve` with its state and socket in `work`, `arguments` its run options."""

    def __init__(self, haul, work, arguments):
        self.haul = haul
        os.makedirs(work, exist_ok=True)
        self.socket = os.path.join(work, "serve", "haul.sock")
        self.state = os.path.join(work, "serve", "state")
        self.log = os.path.join(work, "serve.log")
        self.process = subprocess.Popen(
            [haul, "serve", "--root", "/", "--state-dir", self.state,
             "--socket", self.socket, *arguments],
            stdout=subprocess.DEVNULL, stderr=open(self.log, "w"))
        for _ in range(200):
            with open(self.log) as file:
                if "ready on" in file.read():
                    return
            time.sleep(0.05)
        raise SystemExit(f"haul serve did not start: see {self.log}")

    def port(self, marker):
        """The port the log names after `marker` (`listening on http://127.0.0.1:`)."""
        with open(self.log) as file:
            text = file.read()
        rest = text[text.index(marker) + len(marker):]
        return int(rest[:len(rest) - len(rest.lstrip("0123456789"))])

    def token(self):
        with open(os.path.join(self.state, "token")) as file:
            return file.read().strip()

    def client(self, *arguments, check=True):
        return subprocess.run([self.haul, arguments[0], "--socket", self.socket,
                               *arguments[1:]], check=check, capture_output=True, text=True)

    def cpu(self):
        """The daemon's user+system CPU seconds so far (/proc/PID/stat)."""
        with open(f"/proc/{self.process.pid}/stat") as file:
            fields = file.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks

    def rss_mib(self):
        with open(f"/proc/{self.process.pid}/status") as file:
            for line in file:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.client("stop", check=False)
        self.process.wait(timeout=30)
