#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP endpoint a monitoring system scrapes: `GET /metrics` answers with the text
/// `scrape` gives, in Prometheus's text format; any other path is 404, any other method 405,
/// and bytes that are not HTTP get NIO's 400 and the connection closed — the server carries on.
package enum MetricsEndpoint {
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// A listening socket on `address`, made before anything else starts: a process that
    /// runs plugins is confined before they load (Landlock refuses it a TCP bind then; the
    /// accepts on a socket it already has are its own), and a port in use is refused before
    /// the server takes its socket.
    package static func bind(_ address: MetricsAddress) throws(MetricsFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let looked = getaddrinfo(address.host, "\(address.port)", &hints, &found)
        guard looked == 0, let first = found else {
            throw MetricsFailure("cannot serve the metrics on \(address): \(String(cString: gai_strerror(looked)))")
        }
        defer { freeaddrinfo(first) }
        var reason = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let socket = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            guard socket >= 0 else {
                reason = String(cString: strerror(errno))
                continue
            }
            var on: Int32 = 1
            _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            guard Glibc.bind(socket, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, Glibc.listen(socket, 16) == 0 else {
                reason = String(cString: strerror(errno))
                close(socket)
                continue
            }
            return socket
        }
        throw MetricsFailure("cannot serve the metrics on \(address): \(reason)")
    }

    /// Serves scrapes on `socket` (from `bind`) on `loop`; `scrape` is asked on the loop for
    /// each `GET /metrics`. The future is the listening channel (its local address has the
    /// port the kernel picked for port 0).
    package static func listen(
        socket: Int32, loop: any EventLoop, scrape: @escaping @Sendable (any EventLoop) -> EventLoopFuture<[UInt8]>
    ) -> EventLoopFuture<any Channel> {
        ServerBootstrap(group: loop)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ScrapeHandler(scrape: scrape))
                }
            }
            .withBoundSocket(socket)
    }
}

/// One scrape connection's requests, answered in turn and then closed.
final class ScrapeHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let scrape: @Sendable (any EventLoop) -> EventLoopFuture<[UInt8]>

    init(scrape: @escaping @Sendable (any EventLoop) -> EventLoopFuture<[UInt8]>) {
        self.scrape = scrape
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let channel = context.channel
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard head.method == .GET || head.method == .HEAD else {
            return Self.respond(channel, head: head, status: .methodNotAllowed, body: Array("only GET /metrics is served\n".utf8), extra: [("Allow", "GET, HEAD")])
        }
        guard path == "/metrics" else {
            return Self.respond(channel, head: head, status: .notFound, body: Array("not found: the figures are at /metrics\n".utf8))
        }
        scrape(channel.eventLoop).whenComplete { result in
            switch result {
            case .success(let text):
                Self.respond(channel, head: head, status: .ok, body: text, contentType: MetricsEndpoint.contentType)
            case .failure(let error):
                Self.respond(channel, head: head, status: .internalServerError, body: Array("cannot collect the metrics: \(error)\n".utf8))
            }
        }
    }

    /// The response, then the connection closed (a scraper opens one per scrape or keeps
    /// none; closing spares the server a keep-alive state).
    static func respond(
        _ channel: any Channel, head: HTTPRequestHead, status: HTTPResponseStatus, body: [UInt8],
        contentType: String = "text/plain; charset=utf-8", extra: [(String, String)] = []
    ) {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", "\(body.count)"), ("Connection", "close")])
        headers.add(contentsOf: extra)
        let response = HTTPResponseHead(version: head.version, status: status, headers: headers)
        channel.write(HTTPServerResponsePart.head(response), promise: nil)
        if head.method != .HEAD {
            channel.write(HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(bytes: body))), promise: nil)
        }
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
    }
}
