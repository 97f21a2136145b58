import Foundation
import Synchronization

/// A configuration file parsed before it is asked for, and handed to the first
/// `Config.load(from:)` of the same path while the file still holds the same text.
///
/// An early worker (the app process the launcher starts beside a supervised front,
/// Sources/coordsh/launcher.c) is loaded before its front has read its own command line, and
/// waits for the front's options doing nothing; then parsing the configuration (TOML, twice:
/// the built-in defaults and the file) was the next thing on the supervised start's critical
/// path (BENCHMARKS.md, issue 41). It now parses, while it waits, the file discovery picks for
/// the `--config` its launcher saw. Only time is saved, nothing is decided: a configuration
/// is made from its file's path and text alone, so the parse is used when the options name the
/// same path and the file, read again, has the same text; otherwise it is parsed as always.
/// (Reading the file again costs microseconds; its size and times could not tell an edit of
/// the same length within the file system's clock tick.)
package enum ConfigReadAhead {
    private struct Read: Sendable {
        let path: String
        let text: String
        let config: Config
    }

    private static let slot = Mutex<Read?>(nil)

    /// Parses the file that discovery would read now for `option` (the `--config` the
    /// launcher saw, or none), and keeps it for one `take`. A file that cannot be read or
    /// parsed is not kept: the load that counts reports it.
    package static func start(option: String?) {
        let candidates = ConfigDiscovery.candidates(option: option, environment: Config.pathVariables())
        // A named file that is missing is an error for discovery: nothing to read ahead.
        guard let found = candidates.firstIndex(where: \.exists), let path = candidates[found].path,
              !candidates[..<found].contains(where: { $0.path != nil && ($0.place == .option || $0.place == .environment) }),
              isRegularFile(path), let text = try? Config.readText(path), let config = try? Config.layered(over: text, path: path)
        else { return }
        slot.withLock { $0 = Read(path: path, text: text, config: config) }
    }

    /// Only a regular file is read ahead: a named pipe would block this process before its
    /// channel, and what it read would be missing when the front reads the same pipe.
    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The configuration read ahead for `path`, if that is the file read and it holds the
    /// same text; whatever was kept is given up either way.
    static func take(_ path: String) -> Config? {
        guard let read = slot.withLock({ slot in
            defer { slot = nil }
            return slot
        }), read.path == path, (try? Config.readText(path)) == read.text else { return nil }
        return read.config
    }
}
