"""Drives a JSON-RPC server with aria2p, aria2's Python client, as a user of aria2 would.

Run by Aria2pTests against `haul serve --aria2-rpc`:
    aria2p_drive.py PORT SECRET COMPLETE_URL SIZE SLOW_URL
It adds a download that completes and one capped slow enough to pause, resume and remove,
and exits 0 only when every step looks to aria2p as it would with aria2 itself. Each step
prints one line, so a failure says which step broke.
"""

import sys
import time

import aria2p

port, secret, complete_url, size, slow_url = sys.argv[1:6]
size = int(size)
api = aria2p.API(aria2p.Client(host="http://127.0.0.1", port=int(port), secret=secret))


def wait(download, condition, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        download.update()
        if condition(download):
            print("ok:", what, download.status, flush=True)
            return download
        time.sleep(0.1)
    raise SystemExit(f"timed out waiting for {what}: status {download.status}")


version = api.client.get_version()
assert "version" in version and isinstance(version["enabledFeatures"], list), version
print("ok: version", version["version"], flush=True)

done = api.add_uris([complete_url], options={"out": "done/complete.bin"})
assert len(done.gid) == 16, done.gid
wait(done, lambda d: d.is_complete, "complete")
assert done.total_length == size and done.completed_length == size, (done.total_length, done.completed_length)
assert done.progress == 100.0, done.progress
assert len(done.files) == 1, done.files
assert str(done.files[0].path).endswith("/done/complete.bin"), done.files[0].path
assert done.files[0].length == size, done.files[0].length
assert done.files[0].uris[0]["uri"] == complete_url, done.files[0].uris
assert done.error_code == "0", done.error_code
print("ok: files", done.files[0].path, flush=True)

slow = api.add_uris([slow_url], options={"max-download-limit": "16K", "out": "slow.bin"})
wait(slow, lambda d: d.is_active, "active")
gids = {d.gid: d.status for d in api.get_downloads()}
assert gids.get(done.gid) == "complete" and gids.get(slow.gid) == "active", gids
print("ok: get_downloads", sorted(gids.values()), flush=True)

assert api.pause([slow]) == [True]
wait(slow, lambda d: d.is_paused, "paused")
assert api.resume([slow]) == [True]
wait(slow, lambda d: d.is_active or d.is_waiting, "resumed")
assert api.remove([slow]) == [True]
gids = {d.gid for d in api.get_downloads()}
assert slow.gid not in gids and done.gid in gids, gids
print("ok: removed", flush=True)

stats = api.get_stats()
assert stats.num_active == 0 and stats.num_stopped_total == 1, (stats.num_active, stats.num_stopped_total)
print("ok: stats", flush=True)
