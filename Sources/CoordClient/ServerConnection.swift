import CoordProtocol
import CoordSession
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `coordsh connect`'s end of the socket: blocking frames out and in, on the main thread (a
/// client serves one person), with what the server pushes unasked kept for the prompt.
/// Public for the benchmark, whose socket clients must pay what `connect` pays per command.
public final class ServerConnection {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    package let descriptor: Int32
    let path: String
    private var decoder = FrameDecoder()
    private var nextID = 0
    /// How long a blocking read waits before the server counts as hung; nil waits for ever.
    package var answerTimeout: Double?
    /// Set when a read gave up after `answerTimeout`.
    package private(set) var timedOut = false
    /// What the server pushed while we waited for something else.
    private(set) var pushed: [ServerReply.Notice] = []
    /// What a worker offered to upgrade (see `ServerReply.upgrade`), until its front takes it.
    package var upgradeOffers: [String] = []
    /// Set once the server said goodbye or the connection broke.
    package private(set) var closedReason: String?

    /// Connects to the server at `path` and says hello.
    public init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "cannot create a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw Failure(description: "socket path \(path) is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "cannot connect to a coordsh server at \(path): \(reason) (start one with 'coordsh serve')")
        }
    }

    /// Adopts a socket already connected to a server: a supervised shell's end of the
    /// socketpair its worker was started with. `path` names the peer in error lines.
    package init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Ends the conversation: the server sees the connection close.
    package func shutdown() {
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    public func newID() -> Int {
        nextID += 1
        return nextID
    }

    public func write(_ request: ClientRequest) throws {
        let bytes: [UInt8]
        do {
            bytes = try FrameDecoder.encode(request.object)
        } catch {
            throw Failure(description: error.message)
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw lost(String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    /// The next frame, waiting for it.
    public func receive() throws -> ServerReply {
        while true {
            do {
                if let object = try decoder.next() { return try ServerReply.parse(object) }
            } catch {
                throw lost("the server sent a broken frame: \(error.message)")
            }
            try fill(blocking: true)
        }
    }

    /// Waits for the answer to request `id`, keeping pushed events for later.
    public func answer(to id: Int) throws -> ServerReply {
        while true {
            let reply = try receive()
            switch reply {
            case .event(let notice):
                pushed.append(notice)
            case .upgrade(let text):
                upgradeOffers.append(text)
            case .goodbye(let reason):
                throw lost(reason.isEmpty ? "the server closed the connection" : reason)
            case .error(nil, _, let message):
                throw lost(message)
            default:
                return reply
            }
        }
    }

    /// What was kept while something else was awaited (events pushed meanwhile, a hello's
    /// notices), without reading: a front that reads with `receiveAvailable` takes these too.
    package func takeKept() -> [ServerReply.Notice] {
        defer { pushed.removeAll() }
        return pushed
    }

    /// Keeps notices for the next `takePushed`, as if they had been pushed.
    func keep(_ notices: [ServerReply.Notice]) {
        pushed += notices
    }

    /// Reads whatever has arrived without waiting, and returns the events pushed so far.
    public func takePushed() -> [ServerReply.Notice] {
        if closedReason == nil {
            _ = try? fill(blocking: false)
            while let object = try? decoder.next(), let reply = try? ServerReply.parse(object) {
                switch reply {
                case .event(let notice): pushed.append(notice)
                case .upgrade(let text): upgradeOffers.append(text)
                case .goodbye(let reason): pushed.append(.init(text: "server: \(reason)", isWarning: true, kind: .server)); closedReason = reason
                case .error(_, _, let message): pushed.append(.init(text: "server: \(message)", isWarning: true, kind: .server))
                default: break
                }
            }
        }
        defer { pushed.removeAll() }
        return pushed
    }

    /// Every frame that has arrived, without waiting, each with its bytes as they came: what
    /// a front that relays many scenes reads when one of them is readable, and passes on as
    /// it is. Results are read without their documents (see `ServerReply.parse`). A
    /// connection that ended or sent a broken frame sets `closedReason` and gives the frames
    /// before it.
    package func receiveAvailable() -> [(reply: ServerReply, bytes: [UInt8])] {
        guard closedReason == nil else { return [] }
        var frames: [(reply: ServerReply, bytes: [UInt8])] = []
        do {
            while try fill(blocking: false) {}
        } catch {
            // closedReason is set; what arrived before the end is still read below.
        }
        do {
            while let frame = try decoder.nextFrame() {
                frames.append((try ServerReply.parse(frame.object, documents: false), frame.bytes))
            }
        } catch {
            _ = lost("the server sent a broken frame: \(error.message)")
        }
        return frames
    }

    /// Where `fill` reads into, made once (a fresh 64 KiB per read showed in the profile).
    private var readBuffer = [UInt8](repeating: 0, count: 65536)

    /// Reads what is there (waiting for something when `blocking`); false when a
    /// non-blocking read found nothing.
    @discardableResult
    private func fill(blocking: Bool) throws -> Bool {
        if blocking, let answerTimeout {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            var ready: Int32
            repeat {
                ready = poll(&entry, 1, Int32(answerTimeout * 1000))
            } while ready < 0 && errno == EINTR
            if ready == 0 {
                timedOut = true
                throw lost("no answer for \(Int(answerTimeout)) s")
            }
        }
        while true {
            let descriptor = self.descriptor
            let count = readBuffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, blocking ? 0 : Int32(MSG_DONTWAIT)) }
            if count > 0 {
                readBuffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
                return true
            }
            if count == 0 { throw lost("the server closed the connection") }
            if errno == EINTR { continue }
            if !blocking, errno == EAGAIN || errno == EWOULDBLOCK { return false }
            throw lost(String(cString: strerror(errno)))
        }
    }

    private func lost(_ reason: String) -> Failure {
        closedReason = closedReason ?? reason
        return Failure(description: "connection to the server at \(path) lost: \(reason)")
    }
}
