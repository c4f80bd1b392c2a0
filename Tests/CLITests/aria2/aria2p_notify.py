"""Listens to a JSON-RPC server's notifications with aria2p, as a user of aria2 would.

Run by Aria2pTests against `haul serve --aria2-rpc`:
    aria2p_notify.py PORT SECRET COMPLETE_URL MISSING_URL SLOW_URL
aria2p's listener (its WebSocket, through websocket-client) runs in a thread while the
downloads are driven over HTTP: one completes, one fails (MISSING_URL answers 404), and a
slow one is paused, resumed and removed. It exits 0 only when each download's notifications
are exactly the ones aria2 sends, in aria2's order. Each step prints one line.
"""

import sys
import threading
import time

import aria2p
import websocket

port, secret, complete_url, missing_url, slow_url = sys.argv[1:6]
api = aria2p.API(aria2p.Client(host="http://127.0.0.1", port=int(port), secret=secret))

# aria2p opens its WebSocket in its own thread and says nothing when it has; a download
# added before that would start unseen, so the connection is awaited.
connected = threading.Event()
open_connection = websocket.create_connection


def create_connection(*args, **kwargs):
    connection = open_connection(*args, **kwargs)
    connected.set()
    return connection


websocket.create_connection = create_connection

received = []
lock = threading.Lock()


def recorder(kind):
    def record(api, gid):
        with lock:
            received.append((kind, gid))

    return record


api.listen_to_notifications(
    threaded=True,
    on_download_start=recorder("start"),
    on_download_pause=recorder("pause"),
    on_download_stop=recorder("stop"),
    on_download_complete=recorder("complete"),
    on_download_error=recorder("error"),
    timeout=1,
    handle_signals=False,
)
if not connected.wait(60):
    raise SystemExit("aria2p's listener did not connect")
print("ok: listening", flush=True)


def notifications(gid):
    with lock:
        return [kind for kind, seen in received if seen == gid]


def wait(gid, expected, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if notifications(gid) == expected:
            print("ok:", gid, " ".join(expected), flush=True)
            return
        time.sleep(0.05)
    raise SystemExit(f"{gid}: expected {expected}, received {notifications(gid)}")


done = api.add_uris([complete_url], options={"out": "notify/complete.bin"})
wait(done.gid, ["start", "complete"])

missing = api.add_uris([missing_url], options={"out": "notify/missing.bin"})
wait(missing.gid, ["start", "error"])

slow = api.add_uris([slow_url], options={"max-download-limit": "16K", "out": "notify/slow.bin"})
wait(slow.gid, ["start"])
assert api.pause([slow]) == [True]
wait(slow.gid, ["start", "pause"])
assert api.resume([slow]) == [True]
wait(slow.gid, ["start", "pause", "start"])
assert api.remove([slow]) == [True]
wait(slow.gid, ["start", "pause", "start", "stop"])

api.stop_listening()
print("ok: stopped listening", flush=True)
