"""What a run needs before it starts: the Debian packages and matplotlib it installs when
missing (install_missing), and haul built as it ships with the reference programs beside it
(build)."""

import os
import shutil
import subprocess
import sys

from .common import HERE, ROOT, log, sh


DEBIAN_PACKAGES = {"nginx": "nginx", "curl": "curl", "aria2c": "aria2", "wget2": "wget2",
                   "rclone": "rclone", "strace": "strace", "gcc": "gcc",
                   "pkg-config": "pkg-config", "openssl": "openssl"}


def install_missing():
    wanted = sorted({package for tool, package in DEBIAN_PACKAGES.items() if not shutil.which(tool)})
    if not os.path.exists("/usr/bin/time"):
        wanted.append("time")
    if not os.path.exists("/usr/include/curl/curl.h") and not os.path.exists(
            "/usr/include/x86_64-linux-gnu/curl/curl.h"):
        wanted.append("libcurl4-openssl-dev")
    if wanted:
        log(f"installing {' '.join(wanted)}")
        sudo = [] if os.geteuid() == 0 else ["sudo"]
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        sh(sudo + ["apt-get", "update", "-qq"], env=env)
        sh(sudo + ["apt-get", "install", "-y", "-qq"] + wanted, env=env)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        log("installing matplotlib with pip")
        command = [sys.executable, "-m", "pip", "install", "-q", "matplotlib"]
        if subprocess.run(command).returncode != 0:
            sh(command + ["--break-system-packages"])


def build(work):
    """Builds haul as it ships (release, Swift runtime linked statically: a dynamically linked
    binary spends about 40 ms loading 20 Swift libraries before main) in a build folder of
    its own, so the package's .build is left alone, and the reference programs: libcurl's
    multi interface and URLSession's own (reference/)."""
    scratch = os.path.join(work, "build")
    log("building haul (swift build -c release --static-swift-stdlib)")
    command = ["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "haul",
               "--scratch-path", scratch]
    sh(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    binary = subprocess.run(command[:5] + ["--scratch-path", scratch, "--show-bin-path"],
                            cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    haul = os.path.join(binary, "haul")
    multi = os.path.join(work, "bin", "multi")
    os.makedirs(os.path.dirname(multi), exist_ok=True)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libcurl"], check=True,
                           capture_output=True, text=True).stdout.split()
    sh(["gcc", "-O2", "-Wall", "-o", multi, os.path.join(HERE, "reference", "multi.c")] + flags)
    log("building reference/urlsession.swift (swiftc -O -static-stdlib)")
    urlsession = os.path.join(work, "bin", "urlsession-ref")
    sh(["swiftc", "-O", "-parse-as-library", "-static-stdlib", "-o", urlsession,
        os.path.join(HERE, "reference", "urlsession.swift")], stderr=subprocess.DEVNULL)
    return haul, multi, urlsession
