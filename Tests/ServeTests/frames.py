"""The coordsh protocol's frames (PROTOCOL.md), for the Python clients of the serve tests
(client.py, front.py): a 4-byte big-endian length, then one UTF-8 JSON object."""
import json, struct


class FramedSocket:
    """A connected stream socket that sends and receives whole frames."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def send(self, obj):
        body = json.dumps(obj).encode()
        self.sock.sendall(struct.pack(">I", len(body)) + body)

    def receive(self, timeout=10):
        """The next frame's object, or None when the peer closed (or reset) the connection."""
        self.sock.settimeout(timeout)
        while True:
            if len(self.buffer) >= 4:
                (n,) = struct.unpack(">I", self.buffer[:4])
                if len(self.buffer) >= 4 + n:
                    body, self.buffer = self.buffer[4:4 + n], self.buffer[4 + n:]
                    return json.loads(body)
            try:
                chunk = self.sock.recv(1 << 20)
            except ConnectionResetError:
                return None
            if not chunk:
                return None
            self.buffer += chunk
