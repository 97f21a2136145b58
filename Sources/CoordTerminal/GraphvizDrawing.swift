import CoordPicture
import CoordProtocol
import CoordSession
import Foundation

/// `--format svg`: the session writes the picture as DOT (it runs where plugin code runs, which
/// may not start programs), and the terminal's process has Graphviz's `dot` draw it — or says
/// in one line why it cannot.
enum GraphvizDrawing {
    /// `reply` with its DOT picture drawn as SVG, if it has one to draw.
    static func draw(_ reply: Reply) throws(ShellError) -> Reply {
        // Compared as bytes: the marker is the app's own line, written as it is. `==` on a page's
        // first line (its title, `── … ──`, not ASCII) looked for a canonically equal string
        // through the slow path at every command (≈ 300 instructions).
        let marker = PictureFormat.svgMarker.utf8
        guard let first = reply.result.lines.first?.utf8, first.count == marker.count, first.elementsEqual(marker) else { return reply }
        let svg = try svg(from: reply.result.lines.joined(separator: "\n"))
        var drawn = reply
        drawn.result.lines = svg.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if drawn.result.lines.last == "" { drawn.result.lines.removeLast() }
        drawn.result.json["picture"] = ["format": "svg", "text": .string(svg)]
        return drawn
    }

    /// Runs `dot -Tsvg` on `dot`. posix_spawn rather than Foundation's Process: in a process
    /// confined to no programs (a script's shell runs the plugins in its own) the refusal is
    /// the one line below, with nothing of Foundation's own complaints beside it.
    static func svg(from dot: String) throws(ShellError) -> String {
        guard let program = program() else {
            throw ShellError(
                "--format svg needs Graphviz's dot, which is not installed (Debian: apt-get install graphviz); --format dot prints what it would draw",
                code: "no_graphviz", status: .failure)
        }
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else {
            throw ShellError("--format svg: no pipe for dot: \(String(cString: strerror(errno)))", code: "graphviz_failed", status: .failure)
        }
        for end in input + output { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, output[1], 2)
        let argv = [strdup(program), strdup("-Tsvg"), nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, program, &actions, nil, argv, environ)
        close(input[0])
        close(output[1])
        guard spawned == 0 else {
            close(input[1])
            close(output[0])
            // A shell that runs plugin code in its own process (a script's default) is confined
            // to no programs but its own before the first plugin loads.
            throw ShellError(
                "--format svg: \(program) could not be started (\(String(cString: strerror(spawned)))): a shell that runs the plugins in its own process may start no program; run it --supervised, or pipe --format dot to 'dot -Tsvg'",
                code: "no_graphviz", status: .failure)
        }
        // Written from another thread while this one reads: a large picture fills both pipes.
        let writer = Thread { [dot, end = input[1]] in
            let bytes = Array(dot.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(end, $0.baseAddress, $0.count) }
                if written <= 0 { break }
                offset += written
            }
            close(end)
        }
        writer.start()
        let drawn = FileHandle(fileDescriptor: output[0], closeOnDealloc: true).readDataToEndOfFile()
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        let text = String(decoding: drawn, as: UTF8.self)
        guard status == 0 else {
            let first = text.split(separator: "\n").first.map(String.init) ?? "it ended with status \(status)"
            throw ShellError("--format svg: dot failed: \(first)", code: "graphviz_failed", status: .failure)
        }
        return text
    }

    /// `dot` on PATH.
    static func program() -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/dot" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
