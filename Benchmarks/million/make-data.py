#!/usr/bin/env python3
"""Writes the million-entry benchmark's data: BLOBS distinct 1 KiB files under WWW/blob/
and a manifest of LINES downloads of them, each behind its own URL.

usage: make-data.py WWW MANIFEST BASE_URL LINES [BLOBS]

Line i (0-based) downloads BASE_URL/f/i, which nginx rewrites to /blob/(i mod BLOBS).bin
(BLOBS is 10: the last digit of i), into d<i // 1000>/<i>.bin with its size and sha256, so a
thousand folders of a thousand files each.
"""
import hashlib
import os
import sys

www, manifest, base, lines = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
blobs = 10
os.makedirs(os.path.join(www, "blob"), exist_ok=True)
digests = []
for b in range(blobs):
    data = hashlib.sha256(b"haul million %d" % b).digest() * 32  # 1 KiB, distinct per blob
    with open(os.path.join(www, "blob", "%d.bin" % b), "wb") as f:
        f.write(data)
    digests.append(hashlib.sha256(data).hexdigest())

with open(manifest, "w") as out:
    template = '{"url": "%s/f/%%d", "path": "d%%d/%%d.bin", "size": 1024, "sha256": "%%s"}\n' % base
    chunk = []
    for i in range(lines):
        chunk.append(template % (i, i // 1000, i, digests[i % blobs]))
        if len(chunk) == 10000:
            out.write("".join(chunk))
            chunk = []
    out.write("".join(chunk))
