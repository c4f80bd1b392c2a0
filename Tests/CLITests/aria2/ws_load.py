"""Many clients of haul's two event channels at once, while downloads run.

Run by Aria2WebSocketTests against `haul serve --listen ... --aria2-rpc ...`:
    ws_load.py LISTEN_PORT ARIA2_PORT TOKEN MANIFEST CLIENTS ARIA2_URL...
It opens CLIENTS WebSockets on the aria2 port (each an aria2 client waiting for
notifications) and CLIENTS Server-Sent Events readers of `GET /v1/events`, then queues the
MANIFEST as one job (native API) and each ARIA2_URL as an aria2 download, and waits until
every client has received every download's notifications (start, then complete) and every
events reader every job's `job-ended` and every entry's `entry-done`. It prints one JSON
summary and exits 0 only when no client missed anything.
"""

import http.client
import json
import sys
import threading
import time
import urllib.request

import websocket

listen_port, aria2_port, token, manifest_path, clients = sys.argv[1:6]
aria2_urls = sys.argv[6:]
clients = int(clients)
deadline = time.time() + 300


class WebSocketClient(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{aria2_port}/jsonrpc", timeout=30)
        # Reads block: a timed-out read could leave a frame half read.
        self.ws.settimeout(None)
        self.notifications = {}
        self.error = None
        self.lock = threading.Lock()

    def run(self):
        while True:
            try:
                message = json.loads(self.ws.recv())
                gid = message["params"][0]["gid"]
            except Exception as error:  # the connection ended (a client cut off), or junk
                self.error = repr(error)
                return
            with self.lock:
                self.notifications.setdefault(gid, []).append(message["method"])

    def seen(self, gid):
        with self.lock:
            return list(self.notifications.get(gid, []))


class EventsClient(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.connection = http.client.HTTPConnection("127.0.0.1", int(listen_port), timeout=30)
        self.connection.request("GET", "/v1/events", headers={"Authorization": f"Bearer {token}"})
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status
        # Reads block: a timed-out read leaves the socket unreadable. The stream's first
        # line (a comment) says it is subscribed.
        self.connection.sock.settimeout(None)
        self.response.readline()
        self.ended = set()
        self.entries = 0
        self.error = None
        self.lock = threading.Lock()

    def run(self):
        event = None
        while True:
            try:
                # Lines of the body, its chunked framing taken off by http.client.
                line = self.response.readline()
                if not line:
                    raise EOFError("the stream ended")
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event in ("job-ended", "entry-done"):
                    data = json.loads(line[6:])
                    with self.lock:
                        if event == "job-ended":
                            self.ended.add(data["id"])
                        else:
                            self.entries += 1
            except Exception as error:
                self.error = repr(error)
                return

    def seen(self):
        with self.lock:
            return set(self.ended), self.entries


def post(port, path, body, headers):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), headers=headers
    )
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.load(answer)


sockets = [WebSocketClient() for _ in range(clients)]
streams = [EventsClient() for _ in range(clients)]
for client in sockets + streams:
    client.start()
print(f"connected {len(sockets)} WebSockets and {len(streams)} event streams", file=sys.stderr)

with open(manifest_path) as manifest:
    job = post(
        listen_port,
        "/v1/jobs",
        {"manifest": manifest.read(), "output": "load"},
        {"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
gids = [job["id"]]
entries = job["total"]
for index, url in enumerate(aria2_urls):
    answer = post(
        aria2_port,
        "/jsonrpc",
        {"jsonrpc": "2.0", "id": index, "method": "aria2.addUri",
         "params": [f"token:{token}", [url], {"out": f"aria2/{index}.bin"}]},
        {"Content-Type": "application/json"},
    )
    gids.append(answer["result"])
entries += len(aria2_urls)
expected = ["aria2.onDownloadStart", "aria2.onDownloadComplete"]


def complete():
    return all(client.seen(gid) == expected for client in sockets for gid in gids) and all(
        client.seen() == (set(gids), entries) for client in streams
    )


while time.time() < deadline and not complete():
    if any(client.error for client in sockets + streams):
        break
    time.sleep(0.2)

missing_sockets = [
    {"gid": gid, "seen": client.seen(gid), "error": client.error}
    for client in sockets
    for gid in gids
    if client.seen(gid) != expected
]
missing_streams = [
    {"ended": sorted(client.seen()[0]), "entries": client.seen()[1], "error": client.error}
    for client in streams
    if client.seen() != (set(gids), entries)
]
print(json.dumps({
    "downloads": len(gids), "entries": entries, "websockets": len(sockets),
    "streams": len(streams), "missingSockets": missing_sockets[:5],
    "missingStreams": missing_streams[:5],
}))
sys.exit(0 if not missing_sockets and not missing_streams else 1)
