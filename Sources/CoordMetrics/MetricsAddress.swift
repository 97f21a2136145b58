/// Where `serve --metrics` listens: `HOST:PORT` (`127.0.0.1:9464`, `[::1]:9464`,
/// `localhost:0` for a port the kernel picks).
package struct MetricsAddress: Sendable, Equatable, CustomStringConvertible {
    package let host: String
    package let port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    package init(parsing text: String) throws(MetricsFailure) {
        let fail = MetricsFailure("--metrics wants HOST:PORT (e.g. 127.0.0.1:9464), not '\(text)'")
        guard let colon = text.lastIndex(of: ":") else { throw fail }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { throw fail }
        self.host = host
        self.port = port
    }

    /// Reachable from this machine only: 127.0.0.0/8, ::1 or localhost.
    package var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
