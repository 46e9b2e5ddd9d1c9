"""The README's quick start: run with HEARTH_URL and HEARTH_KEY_FILE set."""

import secrets

import hearth
from hearth import Hearth

h = Hearth()  # HEARTH_URL, HEARTH_KEY_FILE (or HEARTH_TOKEN) from the environment
ws = h.workspaces.create("demo-" + secrets.token_hex(3))
print(ws)

c = ws.computers.create("box", image="hearth/busybox", env={"GREETING": "hi"})
print(c, c.url)

r = c.exec(["sh", "-c", "echo $GREETING from $(hostname); exit 3"])
print(r.exit_code, repr(r.stdout), repr(r.stderr))

for ev in c.exec_stream(["sh", "-c", "for i in 1 2 3; do echo line $i; sleep 0.2; done; echo done >&2"]):
    print(ev.kind, repr(ev.text) if ev.exit_code is None else ev.exit_code)

c.files.write("/data/blob.bin", bytes(range(256)))
print(c.files.read("/data/blob.bin") == bytes(range(256)), c.files.list("/data"))

ck = c.checkpoints.create("v1")
print(ck, ck.size_bytes > 0)
c.files.write("/data/blob.bin", b"overwritten")
c.restore(ck)
print("restored:", c.files.read("/data/blob.bin")[:4], "generation", c.generation)

fork = ws.computers.create("fork", from_checkpoint=ck)
print(fork, "parent is box:", fork.parent == c.id)

c.sleep()
print(c.state)
c.wake()
print(c.state)

db = ws.databases.create("app")
conn = db.connection()
print(db, conn)
print(conn.uri.replace(conn.password, "<password>"))

try:
    ws.computers.get("nope")
except hearth.NotFound as e:
    print(type(e).__name__, e.code, e.status, e.request_id)

ws.delete(cascade=True)  # deletes its computers, databases and variables, then the workspace
print("deleted at", ws.deleted_at)
