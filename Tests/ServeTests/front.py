#!/usr/bin/env python3
"""A front written from PROTOCOL.md and `Worker`'s doc, driving `coordsh-server worker` itself:
a control socketpair as the worker's --fd, one new socketpair per scene handed over it, the
serve protocol on each scene. Checks what the worker's own loop must do with a front that
misbehaves, and that the worker lives through it.

Usage: front.py COORDSH_SERVER FOLDER   (an empty folder: the config, a catalog of products
with long descriptions, the database and the worker's log are written there). Exits 0 when
every check passed; prints the failing check otherwise.
"""
import fcntl, json, os, socket, struct, subprocess, sys, time

# No __pycache__ beside the tests: SwiftPM would take it for a file the target forgot.
sys.dont_write_bytecode = True
from frames import FramedSocket  # noqa: E402

SERVER, FOLDER = sys.argv[1], sys.argv[2]
CONFIG, DATABASE = os.path.join(FOLDER, "coordsh.toml"), os.path.join(FOLDER, "shop.sqlite")
# Product 1's page is ≈ 600 kB on the wire (its description in the lines and the document):
# more than a socket takes at once, under the 1 MiB frame limit.
with open(os.path.join(FOLDER, "catalog.json"), "w") as catalog:
    json.dump({"currency": "EUR", "products": [
        {"id": 1, "name": "Long Product", "category": "long", "price": 1000, "description": "d" * 300_000},
    ]}, catalog)
with open(CONFIG, "w") as config:
    config.write(f'[serve]\nhandshake_timeout = 1\noutbound_limit = 2097152\n[content]\ncatalog = "{FOLDER}/catalog.json"\n')


def fail(message):
    print("FAILED:", message)
    sys.exit(1)


class Scene(FramedSocket):
    def __init__(self, control, hello=True, name=None):
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        super().__init__(mine)
        socket.send_fds(control, [b"s"], [theirs.fileno()])
        theirs.close()
        if hello:
            self.send({"type": "hello", "version": 1, "client": "front.py", "scene": name})
            self.hello = self.receive(timeout=20)

    def run(self, line, id=1):
        self.send({"type": "run", "id": id, "line": line})
        while True:
            reply = self.receive()
            if reply is None or reply.get("type") != "event":
                return reply


def start_worker(name, environment=None, passing=()):
    """A worker on a new control channel, its stderr in FOLDER/NAME.log; `passing`: more
    descriptors it inherits under the same numbers."""
    control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    log = open(os.path.join(FOLDER, name + ".log"), "w+")
    worker = subprocess.Popen(
        [SERVER, "worker", "--fd", str(theirs.fileno()), "--log-level", "info", "--config", CONFIG, "--db", DATABASE],
        pass_fds=[theirs.fileno(), *passing], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
        env=dict(os.environ, **(environment or {})))
    theirs.close()
    return control, worker, log


def stop_worker(control, worker, log):
    """Ends the control channel, which must end the worker, with status 0."""
    control.close()
    try:
        status = worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()
        fail("the worker outlived its control channel")
    if status != 0:
        log.seek(0)
        fail(f"the worker exited {status}; log:\n{log.read()}")


control, worker, log = start_worker("worker")


def logged():
    log.seek(0)
    return log.read()


# A scene that says hello is greeted with its own name, and runs commands.
a = Scene(control, name="a")
if a.hello is None or a.hello.get("type") != "hello" or a.hello.get("scene") != "a":
    fail(f"the hello's answer: {a.hello}")
reply = a.run("echo ok")
if reply is None or reply.get("lines") != ["ok"]:
    fail(f"echo ok: {reply}")

# A reply larger than the socket takes at once arrives whole.
reply = a.run("content show 1", id=2)
if reply is None or reply.get("type") != "result" or not any("d" * 300_000 in line for line in reply.get("lines", [])):
    fail(f"a 600 kB reply: {None if reply is None else {k: v for k, v in reply.items() if k not in ('lines', 'document')}}")

# A scene that never says hello is refused after the handshake timeout, in one frame.
started = time.monotonic()
silent = Scene(control, hello=False)
refusal = silent.receive()
waited = time.monotonic() - started
if refusal is None or refusal.get("code") != "handshake_timeout":
    fail(f"a silent scene's refusal: {refusal}")
if not 0.8 <= waited <= 10:
    fail(f"the silent scene was refused after {waited:.2f} s, not the 1 s timeout")
if silent.receive() is not None:
    fail("the silent scene's connection stayed open after its refusal")

# A scene that sends and never reads is dropped past the outbound limit (2 MiB), not kept
# with the replies in the worker's memory.
greedy = Scene(control, name="greedy")
try:
    for i in range(40):
        greedy.send({"type": "run", "id": 100 + i, "line": "content show 1"})
except (BrokenPipeError, ConnectionResetError):
    pass
deadline = time.monotonic() + 20
while "dropped: it stopped reading" not in logged():
    if time.monotonic() > deadline:
        fail("a scene that never reads was not dropped; worker log:\n" + logged())
    time.sleep(0.05)
# What it is still owed ends with the connection's end.
frames = 0
while greedy.receive() is not None:
    frames += 1
if frames >= 40:
    fail(f"the greedy scene got all {frames} replies: nothing was dropped")

# A frame that breaks the protocol closes that scene alone, with its one error frame.
rude = Scene(control, name="rude")
rude.sock.sendall(struct.pack(">I", 0))
error = rude.receive()
if error is None or error.get("type") != "error" or error.get("code") != "frame":
    fail(f"an empty frame's answer: {error}")
if rude.receive() is not None:
    fail("the rude scene stayed open after its error")

# The worker lives through all of it: the first scene still runs commands, a new one is greeted.
reply = a.run("echo still", id=3)
if reply is None or reply.get("lines") != ["still"]:
    fail(f"the first scene after the others' faults: {reply}")
b = Scene(control, name="b")
if b.hello is None or b.hello.get("scene") != "b":
    fail(f"a new scene after the faults: {b.hello}")

# A scene the front closes is closed in the worker: its end is seen, not spun on.
b.sock.close()
deadline = time.monotonic() + 20
while "scene b closed" not in logged():
    if time.monotonic() > deadline:
        fail("scene b's end was not seen by the worker; log:\n" + logged())
    time.sleep(0.05)

# The control channel's end is the worker's.
stop_worker(control, worker, log)

# The running marker (COORDSH_WORKER_RUNNING) is a descriptor: the front's sealed memory
# file, in no folder. The worker maps it and closes the descriptor before any plugin loads
# (plugin code finds none to it). A descriptor that is anything else — a plain file, a memory
# file whose size could change under the mapping — is neither written into nor closed (it is
# not the worker's), and the worker says so.
MARKER_BYTES = 1 << 16


def memory_file(sealed):
    descriptor = os.memfd_create("coordsh-running", os.MFD_ALLOW_SEALING)
    os.ftruncate(descriptor, MARKER_BYTES)
    if sealed:
        fcntl.fcntl(descriptor, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    return descriptor


plain = os.open(os.path.join(FOLDER, "plain-running"), os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(plain, MARKER_BYTES)
for name, descriptor, taken in (("sealed", memory_file(True), True), ("unsealed", memory_file(False), False), ("plain", plain, False)):
    control, worker, log = start_worker("marker-" + name, {"COORDSH_WORKER_RUNNING": str(descriptor)}, passing=[descriptor])
    scene = Scene(control, name="m")
    reply = scene.run("echo noted")
    if reply is None or reply.get("lines") != ["noted"]:
        fail(f"a command beside the {name} marker: {reply}")
    held = [os.readlink(f"/proc/{worker.pid}/fd/{entry}") for entry in os.listdir(f"/proc/{worker.pid}/fd")]
    still_open = any(target.startswith("/memfd:coordsh-running") or target.endswith("/plain-running") for target in held)
    stop_worker(control, worker, log)
    log.seek(0)
    refused = "is not a sealed memory file its front made" in log.read()
    written = os.pread(descriptor, MARKER_BYTES, 0) != bytes(MARKER_BYTES)
    os.close(descriptor)
    if taken and (refused or still_open):
        fail(f"the front's sealed marker was refused ({refused}) or its descriptor kept open for plugin code ({still_open})")
    if not taken and (written or not refused or not still_open):
        fail(f"a {name} marker was written into ({written}), not refused in the log ({not refused}) or closed ({not still_open})")
print("all worker loop checks passed")
