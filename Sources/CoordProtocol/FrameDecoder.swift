import Foundation

/// Cuts a byte stream into frames: a 4-byte big-endian length, then that many bytes of one
/// UTF-8 JSON object. Bytes may arrive in any pieces; the decoder keeps what it has not used.
///
/// Everything it is given comes from outside, so every rule is checked and a broken one is a
/// `ProtocolError`, never a trap: a length of zero or above the cap (checked from the four
/// header bytes, before any allocation), a body that is not JSON, JSON that is not an object.
/// After an error the stream cannot be trusted any more; the caller closes it.
public struct FrameDecoder {
    private var buffer: [UInt8] = []
    private var start = 0
    public let maxFrameBytes: Int

    public init(maxFrameBytes: Int = WireProtocol.maxFrameBytes) {
        self.maxFrameBytes = maxFrameBytes
    }

    /// Bytes received and not yet cut into frames.
    public var pendingBytes: Int { buffer.count - start }

    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Bytes as a read left them in a buffer: what a connection appends. Not the generic
    /// `Sequence` path, which this module cannot specialise for a caller's type; its first use
    /// in a process looks its types up by name (≈ 0.4 M instructions on the way to a
    /// supervised shell's first answer).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Drops the bytes already cut into frames once they are half the buffer.
    private mutating func compact() {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// The next whole frame's object, or nil until one has arrived.
    public mutating func next() throws(ProtocolError) -> [String: Any]? {
        guard let body = try nextBody() else { return nil }
        return try Self.object(from: body)
    }

    /// The next whole frame's object and its bytes as they came (length prefix included):
    /// what a front that passes a frame on sends without writing it again.
    public mutating func nextFrame() throws(ProtocolError) -> (object: [String: Any], bytes: [UInt8])? {
        let at = start
        guard let body = try nextBody() else { return nil }
        return (try Self.object(from: body), Array(buffer[at..<start]))
    }

    /// The next whole frame's body bytes, or nil until one has arrived.
    public mutating func nextBody() throws(ProtocolError) -> [UInt8]? {
        guard pendingBytes >= WireProtocol.headerBytes else { return nil }
        var length = 0
        for i in 0..<WireProtocol.headerBytes { length = length << 8 | Int(buffer[start + i]) }
        guard length > 0 else { throw ProtocolError("frame", "empty frame (length 0)") }
        guard length <= maxFrameBytes else {
            throw ProtocolError("frame_too_large", "frame of \(length) bytes is over the limit of \(maxFrameBytes)")
        }
        guard pendingBytes >= WireProtocol.headerBytes + length else { return nil }
        let from = start + WireProtocol.headerBytes
        let body = Array(buffer[from..<from + length])
        start = from + length
        return body
    }

    /// A frame body as a JSON object.
    public static func object(from body: [UInt8]) throws(ProtocolError) -> [String: Any] {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(body), options: [])
        } catch {
            throw ProtocolError("json", "frame is not JSON (\(body.count) bytes)")
        }
        guard let object = parsed as? [String: Any] else {
            throw ProtocolError("json", "frame is JSON but not an object")
        }
        return object
    }

    /// Parses a small object of every kind of value a reply holds, and drops it: Foundation's
    /// JSON parser does its first-use work in this process (type look-ups by name, ≈ 0.7 M
    /// instructions) now. A client calls it after saying hello, while it would only wait for
    /// the answer (a supervised front's worker is still starting), so that the answer is not
    /// the first object parsed, on the way to the first command.
    public static func warmUp() {
        _ = try? object(from: Array(#"{"type":"hello","version":1,"lines":["x"],"share":0.5,"quit":false,"route":null,"plugins":[{"name":"x"}]}"#.utf8))
    }

    /// One frame: the length prefix and the object as compact JSON (see `JSONWriter`; keys in
    /// no particular order, which a reader must not depend on). A body over the frame limit is
    /// `too_large`, with a line for the person whose command produced it: the command ran, only
    /// its answer cannot travel.
    public static func encode(_ object: [String: Any]) throws(ProtocolError) -> [UInt8] {
        let body = try JSONWriter.write(object)
        guard body.count <= WireProtocol.maxFrameBytes else {
            throw ProtocolError(
                "too_large",
                "the command ran, but its output is too large to send: \(body.count) bytes as a reply, over the protocol's limit of \(WireProtocol.maxFrameBytes) (1 MiB); ask for less (a narrower list, a search) or run the command in one process (coordsh -c, or --single-process)")
        }
        let n = UInt32(body.count)
        return [UInt8(n >> 24 & 0xff), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff)] + body
    }
}
