#!/usr/bin/env python3
"""Generates the demo data set and its manifest, deterministically.

Usage: make-demo-data.py WWW_DIR MANIFEST BASE_URL

WWW_DIR gets 300 files of mixed sizes (1 KiB to 4 MiB) under files/ and one 512 MiB file
under big/; MANIFEST gets one JSON line per file with its size and SHA-256. The same
arguments always give the same bytes.
"""
import hashlib
import json
import os
import random
import sys


def write_file(path, size, rng):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    digest = hashlib.sha256()
    block = rng.randbytes(1 << 20)
    with open(path, "wb") as f:
        index = 0
        remaining = size
        while remaining > 0:
            chunk = index.to_bytes(8, "little") + block[8:]
            chunk = chunk[: min(remaining, len(chunk))]
            f.write(chunk)
            digest.update(chunk)
            remaining -= len(chunk)
            index += 1
    return digest.hexdigest()


def main():
    www, manifest, base = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/")
    rng = random.Random(20261130)
    entries = []
    for i in range(300):
        size = int(1024 * (4096 ** rng.random()))  # log-uniform, 1 KiB .. 4 MiB
        name = f"files/{i // 100:02d}/sample-{i:04d}.bin"
        entries.append((name, size))
    entries.append(("big/dataset-512M.bin", 512 << 20))
    lines = ["# haul demo manifest: 300 files of mixed sizes and one 512 MiB file"]
    for name, size in entries:
        path = os.path.join(www, name)
        digest = write_file(path, size, random.Random(name))
        lines.append(json.dumps({"url": f"{base}/{name}", "path": name, "size": size,
                                 "sha256": digest}, separators=(",", ":")))
    with open(manifest, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
