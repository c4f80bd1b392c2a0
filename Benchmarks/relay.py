#!/usr/bin/env python3
"""Benchmarks/relay.py: a TCP relay on loopback that makes a server look far away.

    Benchmarks/relay.py --to 127.0.0.1:8443 --rtt-ms 40 [--port 0]

Listens on 127.0.0.1 only, prints its port on the first line of standard output once it
listens, and forwards every connection to `--to`. Each direction's bytes are forwarded
half the round trip after they arrive, in order, at whatever rate they come (no rate limit:
only a link's length is modelled, not its width). A connection's first bytes from the
client are held one round trip more, as the TCP handshake costs one before a client can
send: the kernel completes the relay's own handshake at once, so the round trip is charged
to the first bytes instead. The machine has no netem; this is the round-trip mode of
Benchmarks/run (results/README.md).

At --rtt-ms 0 it forwards at once; Benchmarks/run measures it against the direct server
there, to show that the relay is not what bounds a workload. `--count FILE`: on SIGTERM or
SIGINT, writes the number of connections accepted to FILE before exiting.
"""

import argparse
import asyncio
import collections
import signal
import socket
import sys

CHUNK = 256 * 1024


class Pipe:
    """One direction of one connection: reads from `reader`, writes each piece to `writer`
    `delay` seconds after it was read (plus `hold` before the first piece), keeping order."""

    def __init__(self, reader, writer, delay, hold, abort):
        self.reader, self.writer = reader, writer
        self.abort = abort  # closes both sides when this direction cannot be written
        self.delay, self.hold = delay, hold
        self.pending = collections.deque()  # (due time, bytes or None for the end)
        self.ready = asyncio.Event()

    async def read(self):
        loop = asyncio.get_running_loop()
        first_due = loop.time() + self.hold
        try:
            while True:
                data = await self.reader.read(CHUNK)
                due = max(loop.time() + self.delay, first_due)
                self.pending.append((due, data or None))
                self.ready.set()
                if not data:
                    return
        except (ConnectionError, OSError):
            self.pending.append((loop.time(), None))
            self.ready.set()

    async def write(self):
        loop = asyncio.get_running_loop()
        try:
            while True:
                while not self.pending:
                    self.ready.clear()
                    await self.ready.wait()
                due, data = self.pending[0]
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                # Everything already due goes out in one write.
                pieces = []
                now = loop.time()
                end = False
                while self.pending and self.pending[0][0] <= now:
                    _, data = self.pending.popleft()
                    if data is None:
                        end = True
                        break
                    pieces.append(data)
                if pieces:
                    self.writer.write(b"".join(pieces))
                    await self.writer.drain()
                if end:
                    if self.writer.can_write_eof():
                        self.writer.write_eof()
                    return
        except (ConnectionError, OSError):
            self.abort()


class Relay:
    def __init__(self, target, rtt):
        self.target = target
        self.rtt = rtt
        self.accepted = 0

    async def handle(self, client_reader, client_writer):
        self.accepted += 1
        host, port = self.target
        try:
            server_reader, server_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        for writer in (client_writer, server_writer):
            writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        one_way = self.rtt / 2

        def abort():
            for writer in (client_writer, server_writer):
                writer.transport.abort()
        up = Pipe(client_reader, server_writer, one_way, self.rtt + one_way, abort)
        down = Pipe(server_reader, client_writer, one_way, 0.0, abort)
        try:
            await asyncio.gather(up.read(), up.write(), down.read(), down.write())
        finally:
            for writer in (client_writer, server_writer):
                writer.close()


async def serve(args):
    host, port = args.to.rsplit(":", 1)
    relay = Relay((host, int(port)), args.rtt_ms / 1000)
    server = await asyncio.start_server(relay.handle, "127.0.0.1", args.port, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()
    if args.count:
        with open(args.count, "w") as file:
            file.write(f"{relay.accepted}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--to", required=True, help="HOST:PORT to forward to")
    parser.add_argument("--rtt-ms", type=float, default=40.0, help="round trip to add (ms)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free)")
    parser.add_argument("--count", help="file to write the connections accepted to on exit")
    args = parser.parse_args()
    if args.rtt_ms < 0:
        sys.exit("relay: --rtt-ms must be 0 or more")
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
