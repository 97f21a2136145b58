#!/usr/bin/env python3
"""A coordsh serve client written from PROTOCOL.md alone, and the protocol checks run with it.

Usage: client.py SOCKET DATABASE   (the server runs with max_clients=20, handshake_timeout=1,
outbound_limit=2097152). Exits 0 when every check passed; prints the failing check otherwise.
"""
import datetime, hashlib, json, os, socket, sqlite3, struct, sys, threading, time

# No __pycache__ beside the tests: SwiftPM would take it for a file the target forgot.
sys.dont_write_bytecode = True
from frames import FramedSocket  # noqa: E402

SOCKET, DATABASE = sys.argv[1], sys.argv[2]
VERSION = 1


class Client(FramedSocket):
    def __init__(self, hello=True, version=VERSION):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(SOCKET)
        super().__init__(sock)
        self.next_id = 0
        self.events = []
        if hello:
            self.send({"type": "hello", "version": version, "client": "client.py"})
            self.hello = self.receive()

    def request(self, obj):
        self.next_id += 1
        obj["id"] = self.next_id
        self.send(obj)
        while True:
            reply = self.receive()
            if reply is None or reply.get("type") != "event":
                return reply
            self.events.append(reply)

    def run(self, line, secrets=None):
        req = {"type": "run", "line": line}
        if secrets:
            req["secrets"] = secrets
        return self.request(req)

    def close(self):
        self.sock.close()


def check(condition, what, detail=None):
    if not condition:
        print(f"FAILED: {what}" + (f": {detail!r}" if detail is not None else ""))
        sys.exit(1)
    print(f"ok: {what}")


def login(client, email):
    """Creates, confirms and logs in `email`, answering the password prompts."""
    reply = client.run(f"account create {email}")
    check(reply["type"] == "secret" and reply["confirm"] is True, "a new password is asked for, to be confirmed", reply)
    reply = client.run(f"account create {email}", ["pass-" + email])
    check(reply["type"] == "result" and reply["ok"], f"account {email} created", reply)
    outbox = client.run("account outbox")["document"]["page"]["lines"]
    code = [l for l in outbox if email in l or "code is" in l][-1].split("code is ")[1].split(".")[0]
    check(client.run(f"account confirm {code}")["ok"], f"account {email} confirmed")
    reply = client.run(f"account login {email}")
    check(reply["type"] == "secret" and reply["confirm"] is False, "login asks for the password")
    reply = client.run(f"account login {email}", ["pass-" + email])
    check(reply["ok"] and "logged in as " + email in reply["notices"][0]["text"], f"{email} logged in", reply)


# 1. The handshake and a command: the same JSON document --json prints.
a = Client()
check(a.hello["type"] == "hello" and a.hello["version"] == VERSION and a.hello["scene"].startswith("c"), "hello names the new scene", a.hello)
r = a.run("cart add 3 2")
check(r["type"] == "result" and r["ok"] and r["status"] == 0, "cart add runs", r)
check(r["document"]["page"]["route"] == "cart/cart" and r["document"]["ok"] is True, "the result carries the --json document", r["document"])
check(r["route"] == "cart/cart", "the result carries the scene's route for the prompt")
r = a.run("cart frobnicate")
check(not r["ok"] and r["status"] == 2 and r["error"]["code"] == "unknown_verb", "a usage error has status 2 and a code", r)
check("lines" not in r, "a failure has no lines", r)
for line, code, status in [("crat add 7", "unknown_command", 2), ("open content/nowhere", "unknown_page", 2),
                           ("content show x", "ill_typed_parameter", 2), ("open content/product?", "malformed_route", 2),
                           ("where now", "extra_argument", 2), ("content show 9999", "failed", 1),
                           ("echo 'open", "syntax", 2), ("cart", "missing_verb", 2)]:
    r = a.run(line)
    check(r["type"] == "result" and not r["ok"] and r["error"]["code"] == code and r["status"] == status and "lines" not in r,
          f"'{line}' fails with the documented code {code} and status {status}", r)
r = a.run("quit")
check(r["ok"] and r["quit"] is True, "quit answers quit: true", r)
check(a.run("echo after quit")["lines"] == ["after quit"], "quit leaves the connection open")
r = a.request({"type": "complete", "line": "cart a", "word": "a"})
check(r["type"] == "completions" and "add" in r["candidates"], "completion is answered from what is registered", r)
r = a.request({"type": "complete", "line": "cart ", "word": ""})
check(r["type"] == "completions" and "add" in r["candidates"] and "show" in r["candidates"], "an empty word completes every next word", r)

# 2. Two scenes, two users, each cart its own; the guest carts apart.
b = Client()
check("(empty)" in b.run("cart show")["lines"], "a new scene's guest cart is empty, not the other client's")
login(a, "ann@example.com")
login(b, "bob@example.com")
a.run("cart add 5")
b.run("cart add 7 4")
cart_a = a.run("cart show")["document"]["page"]["lines"]
cart_b = b.run("cart show")["document"]["page"]["lines"]
check(any("#3" in l for l in cart_a) and any("#5" in l for l in cart_a) and not any("#7" in l for l in cart_a), "ann's cart has her guest lines merged and her own", cart_a)
check(any("#7" in l and "4 ×" in l for l in cart_b) and not any("#3" in l for l in cart_b), "bob's cart is his alone", cart_b)
scenes = a.run("scenes")["document"]["scenes"]
users = sorted(s.get("user") or "" for s in scenes)
check("ann@example.com" in users and "bob@example.com" in users, "scenes lists both users", scenes)
check(all(s["pid"] == os.getpid() for s in scenes), "scenes shows each client's own pid (the peer's), not the server's", scenes)

# A login session token: a bogus one and a revoked one get the same words.
r = b.run("account whoami")
token = r.get("resume")
check(token, "a logged-in scene's result carries its resume token", r)
# The login session's token is not in the database: only its digest, which resumes nobody.
stored = [row[0] for row in sqlite3.connect(DATABASE).execute("SELECT token_digest FROM sessions")]
check(stored and token not in stored and all(len(d) == 64 for d in stored), "the database keeps a digest of each login token, never the token", stored)
for digest in stored:
    thief = Client(hello=False)
    thief.send({"type": "hello", "version": VERSION, "resume": digest})
    thief.receive()
    stolen = thief.receive()
    check(stolen["type"] == "event" and stolen["warning"] and not stolen["text"].startswith("still logged in"),
          "a digest read from the database resumes no login", stolen)
    thief.close()
bogus = Client(hello=False)
bogus.send({"type": "hello", "version": VERSION, "resume": "0" * 64})
bogus.receive()
bogus_event = bogus.receive()
check(bogus_event["type"] == "event" and bogus_event["warning"], "a bogus resume token is answered with a warning event", bogus_event)
bogus.close()
check(a.run("where")["document"]["route"] == "cart/cart", "where answers for the caller's own scene")
t = Client()
login(t, "carl@example.com")
revoked = t.run("where")["resume"]
check(t.run("account logout")["ok"], "carl logs out")
t.close()
again = Client(hello=False)
again.send({"type": "hello", "version": VERSION, "resume": revoked})
again.receive()
revoked_event = again.receive()
check(revoked_event == bogus_event, "a revoked token gets the same words as a bogus one", (revoked_event, bogus_event))
again.close()

# Login sessions expire after 30 days (README), and one past its expiry by a second is not resumed.
def resume(token):
    r = Client(hello=False)
    r.send({"type": "hello", "version": VERSION, "resume": token})
    r.receive()
    said = r.receive()
    r.close()
    return said["text"]

def set_expiry(token, seconds_from_now):
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds_from_now)
    db = sqlite3.connect(DATABASE)
    digest = hashlib.sha256(token.encode()).hexdigest()
    changed = db.execute("UPDATE sessions SET expires_at = ? WHERE token_digest = ?", (moment.strftime("%Y-%m-%d %H:%M:%S"), digest)).rowcount
    db.commit()
    db.close()
    check(changed == 1, "the session row is found by the token's SHA-256")

e = Client()
login(e, "erin@example.com")
erin = e.run("where")["resume"]
e.close()
row = sqlite3.connect(DATABASE).execute(
    "SELECT julianday(expires_at) - julianday(created_at) FROM sessions WHERE token_digest = ?", (hashlib.sha256(erin.encode()).hexdigest(),)).fetchone()
check(row and abs(row[0] - 30) < 1e-6, "a login session lasts 30 days", row)
set_expiry(erin, 30)
check(resume(erin) == "still logged in as erin@example.com", "a session 30 s before its expiry is resumed")
set_expiry(erin, -2)
check(resume(erin) == bogus_event["text"], "a session 2 s past its expiry is not, with the same words as a bogus token")

# Passwords: answers sent before the prompt answer it; a confirmed prompt takes one answer.
early = Client()
r = early.run("account create dora@example.com", ["pass-dora-1"])
check(r["type"] == "result" and r["ok"], "an answer sent before the prompt answers it; a confirmed prompt takes one", r)
early.close()

# bye has no id and no answer: the connection closes.
leaving = Client()
leaving.send({"type": "bye"})
check(leaving.receive() is None, "bye is answered by closing the connection, with no frame")
leaving.close()

# 3. A checkout waiting for login in a scene whose client is killed: only that scene is dropped.
c = Client()
c.run("cart add 1")
r = c.run("cart checkout")
check(r["ok"] and any("waiting" in n["text"] for n in r["notices"]), "a guest checkout waits for a login", r)
c.sock.shutdown(socket.SHUT_RDWR)
c.close()
time.sleep(0.3)
check(a.run("cart show")["ok"], "the other scenes are not disturbed by a client killed mid-checkout")

# A client gone in the middle of its command (the request sent, the connection closed before
# the answer): the command runs to its end, the answer has nowhere to go, nothing else notices.
for line in ["content list", "cart add 4 2", "account outbox"]:
    k = Client()
    k.send({"type": "run", "id": 1, "line": line})
    k.sock.close()
time.sleep(0.3)
check(a.run("echo after the leavers")["lines"] == ["after the leavers"], "clients killed mid-command leave the server serving")

# 4. Faults: each answered with an error frame, then closed; the server keeps serving.
def fault(name, raw=None, obj=None, hello=False, expect_code=None, wait=10):
    s = Client(hello=hello)
    if raw is not None:
        s.sock.sendall(raw)
    if obj is not None:
        s.send(obj)
    reply = s.receive(timeout=wait)
    check(reply is not None and reply["type"] == "error" and (expect_code is None or reply["code"] == expect_code), name, reply)
    check(s.receive(timeout=wait) is None, name + ": then the connection is closed")
    s.close()

fault("garbage bytes (an HTTP request)", raw=b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", expect_code="frame_too_large")
fault("a frame over 1 MiB is refused from its header", raw=struct.pack(">I", 2 << 20), expect_code="frame_too_large")
fault("a frame that is not JSON", raw=struct.pack(">I", 5) + b"hello", expect_code="json")
fault("a frame of length 0", raw=struct.pack(">I", 0), expect_code="frame")
fault("a JSON body that is not an object", raw=struct.pack(">I", 2) + b"[]", expect_code="json")
fault("a second hello", obj={"type": "hello", "version": VERSION}, hello=True, expect_code="handshake")
fault("a complete without word", obj={"type": "complete", "id": 1, "line": "cart a"}, hello=True, expect_code="request")
fault("a run without id", obj={"type": "run", "line": "help"}, hello=True, expect_code="request")
fault("an unknown type", obj={"type": "frobnicate", "id": 1}, hello=True, expect_code="request")
fault("a line over 65536 characters", obj={"type": "run", "id": 1, "line": "echo " + "x" * 65536}, hello=True, expect_code="request")
fault("a first frame that is not hello", obj={"type": "run", "id": 1, "line": "help"}, expect_code="handshake")
fault("a wrong protocol version names both", obj={"type": "hello", "version": 99}, expect_code="version")
fault("a field of the wrong type", obj={"type": "hello", "version": "1"}, expect_code="request")
# Numbers that are not integers JSON-wise, or not ones an Int holds, are refused like a string.
fault("an id with a fraction", obj={"type": "run", "id": 1.5, "line": "help"}, hello=True, expect_code="request")
fault("an id that is true", obj={"type": "run", "id": True, "line": "help"}, hello=True, expect_code="request")
fault("an id past the largest integer", obj={"type": "run", "id": 2**64 - 1, "line": "help"}, hello=True, expect_code="request")
fault("a document flag that is a number", obj={"type": "run", "id": 1, "line": "help", "document": 1}, hello=True, expect_code="request")
fault("no hello within the handshake timeout", expect_code="handshake_timeout", wait=5)
s = Client(hello=False)
s.sock.sendall(struct.pack(">I", 100) + b"{\"type\":")  # cut short, then gone
s.close()
d = Client()
v = Client(hello=False)
v.send({"type": "hello", "version": 99})
err = v.receive()
check(err["message"] == "protocol version mismatch: server speaks 1, client speaks 99", "the version error names both versions, as documented", err)
v = Client(hello=False)
v.send({"type": "hello", "version": 2, "client": "my-client 0.1"})
err = v.receive()
check(err["message"] == "protocol version mismatch: server speaks 1, client 'my-client 0.1' speaks 2", "with a client name, it is quoted", err)
check(d.run("echo still here")["lines"] == ["still here"], "after every fault the server still answers")

# 5. A client that never reads is dropped and blocks nobody.
slow = Client()
for i in range(4000):
    try:
        slow.send({"type": "run", "id": i + 1, "line": "help"})
    except OSError:
        break
time.sleep(1)
check(d.run("echo not blocked")["ok"], "a client that stopped reading does not block the others")
# ...and is disconnected: what was written to it before ends with the end of the stream.
slow.sock.settimeout(10)
received, disconnected = 0, False
try:
    while True:
        chunk = slow.sock.recv(1 << 20)
        if not chunk:
            disconnected = True
            break
        received += len(chunk)
except ConnectionResetError:
    disconnected = True
except socket.timeout:
    pass
check(disconnected, "a client that stopped reading is disconnected", f"{received} bytes, then the connection stayed open")

# 6. The client limit: max_clients=20 in this server's config.
extra = []
while True:
    e = Client(hello=False)
    e.send({"type": "hello", "version": VERSION})
    reply = e.receive()
    if reply["type"] != "hello":
        check(reply["type"] == "error" and reply["code"] == "server_full", "the client over the limit is refused", reply)
        break
    extra.append(e)
    check(len(extra) < 30, "the client limit holds")
for e in extra:
    e.close()
time.sleep(0.3)

# 7. 16 clients x 500 commands at once: every line there, totals exact.
errors = []
def worker(n):
    try:
        w = Client()
        for i in range(500):
            r = w.run(f"cart add {1 + i % 5}")
            if not r or not r.get("ok"):
                errors.append((n, i, r)); return
        lines = w.run("cart show")["document"]["page"]["lines"]
        for pid in range(1, 6):
            if not any(f"#{pid} " in l and "100 ×" in l for l in lines):
                errors.append((n, "lines", lines)); return
        w.close()
    except Exception as e:  # noqa
        errors.append((n, repr(e)))
threads = [threading.Thread(target=worker, args=(n,)) for n in range(16)]
started = time.time()
for t in threads: t.start()
for t in threads: t.join()
check(not errors, f"16 clients x 500 cart commands ({time.time() - started:.1f} s): every line present, every total exact", errors[:3])
time.sleep(1)
db = sqlite3.connect(DATABASE)
check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "PRAGMA integrity_check is ok")
left = db.execute("SELECT count(*) FROM cart_lines WHERE owner LIKE 'guest:%'").fetchone()[0]
check(left == 0, "no guest cart is left: the leavers' went with their scenes, ann's was merged at login", left)
print("all protocol checks passed")
