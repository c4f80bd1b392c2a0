#!/usr/bin/env python3
"""A tus 1.0 server for haul's resumable upload tests: aiohttp-tus (PyPI) on 127.0.0.1.

usage: tus_server.py PORT DIRECTORY [--checksum] [--corrupt N]

Listens on 127.0.0.1:PORT (0: a port the kernel picks) and says so on standard error
("listening on http://127.0.0.1:PORT", the port it bound) before it serves.
Serves the tus creation endpoint at /files/ (uploads at /files/<id>), keeping finished files
and the uploads' state in DIRECTORY, so a server started again on the same DIRECTORY knows
the uploads its predecessor had. aiohttp-tus stores a PATCH only once its whole body has
arrived: a request cut short leaves the offset where it was.

--checksum adds tus's checksum extension, which aiohttp-tus lacks: OPTIONS offers it with
sha1, and a PATCH whose Upload-Checksum does not match its body is answered 460 and not
stored. --corrupt N makes the first N PATCH requests that carry Upload-Checksum fail that
check, as a body damaged on the way would.
"""

import base64
import hashlib
import pathlib
import socket
import sys

from aiohttp import web
from aiohttp_tus import setup_tus


def main():
    port = int(sys.argv[1])
    directory = pathlib.Path(sys.argv[2])
    directory.mkdir(parents=True, exist_ok=True)
    checksum = "--checksum" in sys.argv
    corrupt = int(sys.argv[sys.argv.index("--corrupt") + 1]) if "--corrupt" in sys.argv else 0
    state = {"corrupt": corrupt}

    @web.middleware
    async def checksums(request, handler):
        if checksum and request.method == "PATCH":
            header = request.headers.get("Upload-Checksum")
            if header is not None:
                algorithm, _, value = header.partition(" ")
                body = await request.read()
                digest = base64.b64encode(hashlib.sha1(body).digest()).decode()
                damaged = state["corrupt"] > 0
                if damaged:
                    state["corrupt"] -= 1
                if algorithm != "sha1" or value != digest or damaged:
                    return web.Response(status=460, headers={"Tus-Resumable": "1.0.0"})
        response = await handler(request)
        if checksum and request.method == "OPTIONS":
            response.headers["Tus-Extension"] += ",checksum"
            response.headers["Tus-Checksum-Algorithm"] = "sha1"
        return response

    app = web.Application(client_max_size=64 << 20, middlewares=[checksums])
    setup_tus(app, upload_path=directory, upload_url="/files/", allow_overwrite_files=True)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    bound = listener.getsockname()[1]
    print(f"listening on http://127.0.0.1:{bound}", file=sys.stderr, flush=True)
    web.run_app(app, sock=listener, print=None, handle_signals=True)


if __name__ == "__main__":
    main()
