"""One session over a JSON-RPC server's WebSocket, as aria2's web front-ends hold one.

Run by Aria2WebSocketTests against the real aria2c and `haul serve --aria2-rpc`, side by side:
    ws_session.py PORT SECRET URL
Over one WebSocket it lists the notifications, makes a call without the token and one with
the wrong token, adds URL (which completes) and reads until its completion is notified. It
prints one JSON object: each answer and every notification received, in the order they came,
for the test to compare field by field.
"""

import json
import sys
import time

import websocket

port, secret, url = sys.argv[1:4]
ws = websocket.create_connection(f"ws://127.0.0.1:{port}/jsonrpc", timeout=60)
pending = []


def call(method, params, call_id):
    ws.send(json.dumps({"jsonrpc": "2.0", "id": call_id, "method": method, "params": params}))
    while True:
        message = json.loads(ws.recv())
        if isinstance(message, dict) and message.get("id") == call_id:
            return message
        pending.append(message)


def batch(method, call_id):
    ws.send(json.dumps([{"jsonrpc": "2.0", "id": call_id, "method": method}]))
    return json.loads(ws.recv())


session = {
    "listNotifications": call("system.listNotifications", [], "n"),
    "noToken": call("aria2.tellActive", [], "a"),
    "wrongToken": call("aria2.tellActive", ["token:wrong"], "w"),
    "batch": batch("system.listNotifications", "b"),
    "add": call("aria2.addUri", [f"token:{secret}", [url], {"out": "ws/complete.bin"}], "add"),
}
gid = session["add"].get("result")
deadline = time.time() + 60
while time.time() < deadline and not any(
    n.get("method") == "aria2.onDownloadComplete" for n in pending
):
    pending.append(json.loads(ws.recv()))
session["notifications"] = [n for n in pending if n.get("params", [{}])[0].get("gid") == gid]
ws.close()
print(json.dumps(session))
