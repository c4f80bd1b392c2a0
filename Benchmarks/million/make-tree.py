#!/usr/bin/env python3
"""Writes the million-file tree benchmark's data: BLOBS distinct 1 KiB files under WWW/blob/
and the listings of a tree of FOLDERS folders of PER files each below WWW/t/, as nginx
`autoindex_format json` gives them (name, type, mtime, size): WWW/t/index.json names the
folders d000000/..., and WWW/t/dN/index.json names that folder's files fN, which nginx
rewrites to /blob/(N mod BLOBS).bin. Only the listings and the blobs are on disk.

usage: make-tree.py WWW FOLDERS PER [BLOBS]
"""
import email.utils
import hashlib
import json
import os
import sys

www, folders, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
blobs = int(sys.argv[4]) if len(sys.argv) > 4 else 10
MTIME = 981173106  # 2001-02-03 04:05:06 UTC: every blob's mtime, so its Last-Modified
stamp = email.utils.formatdate(MTIME, usegmt=True)
os.makedirs(os.path.join(www, "blob"), exist_ok=True)
for b in range(blobs):
    path = os.path.join(www, "blob", "%d.bin" % b)
    with open(path, "wb") as f:
        f.write(hashlib.sha256(b"haul tree %d" % b).digest() * 32)  # 1 KiB, distinct per blob
    os.utime(path, (MTIME, MTIME))


def write_listing(folder, entries):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "index.json"), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in entries) + "\n]\n")


width = len(str(folders * per))
write_listing(os.path.join(www, "t"), [
    {"name": "d%06d" % d, "type": "directory", "mtime": stamp} for d in range(folders)])
for d in range(folders):
    write_listing(os.path.join(www, "t", "d%06d" % d), [
        {"name": "f%0*d" % (width, d * per + i), "type": "file", "mtime": stamp, "size": 1024}
        for i in range(per)])
