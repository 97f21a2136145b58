import CoordProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a server listens and how it makes the place its own: the socket, the folder it is in,
/// and the lock file that says which server owns the name.
///
/// Default: `$XDG_RUNTIME_DIR/coordsh/NAME.sock`, or `/tmp/coordsh-UID/NAME.sock` without
/// `XDG_RUNTIME_DIR`. The default folder is created 0700, and refused when it is a symbolic
/// link, not a folder, someone else's, or open to group or others — anyone who can write there
/// could put their own socket in the server's place. `--socket PATH` names the socket itself;
/// its folder must exist and is the user's choice.
struct SocketPlace {
    let socketPath: String
    let lockPath: String
    let name: String

    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// The place for `--socket PATH` or `--name NAME` (default `default`).
    static func resolve(socket: String?, name: String?, environment: [String: String]) throws -> SocketPlace {
        if let socket {
            let folder = (socket as NSString).deletingLastPathComponent
            var info = stat()
            guard lstat(folder.isEmpty ? "." : folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw Refusal(description: "socket folder \(folder.isEmpty ? "." : folder) does not exist or is not a folder")
            }
            guard socket.utf8.count < 108 else {
                throw Refusal(description: "socket path \(socket) is too long for a Unix socket (at most 107 bytes)")
            }
            return SocketPlace(socketPath: socket, lockPath: socket + ".lock", name: (socket as NSString).lastPathComponent)
        }
        let name = name ?? "default"
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }), !name.hasPrefix(".") else {
            throw Refusal(description: "server name '\(name)' must be letters, digits, '-', '_' or '.'")
        }
        let folder = WireProtocol.defaultFolder(environment: environment, uid: getuid())
        try ownFolder(folder)
        let socket = "\(folder)/\(name).sock"
        guard socket.utf8.count < 108 else {
            throw Refusal(description: "socket path \(socket) is too long for a Unix socket (at most 107 bytes)")
        }
        return SocketPlace(socketPath: socket, lockPath: "\(folder)/\(name).lock", name: name)
    }

    /// Creates `folder` 0700, or checks that the one there is a real folder of ours that no one
    /// else can enter.
    static func ownFolder(_ folder: String) throws {
        if mkdir(folder, 0o700) != 0, errno != EEXIST {
            throw Refusal(description: "cannot create socket folder \(folder): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(folder, &info) == 0 else {
            throw Refusal(description: "cannot inspect socket folder \(folder): \(String(cString: strerror(errno)))")
        }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFLNK { throw Refusal(description: "socket folder \(folder) is a symbolic link; refusing to follow it") }
        guard kind == S_IFDIR else { throw Refusal(description: "socket folder \(folder) is not a folder") }
        guard info.st_uid == getuid() else {
            throw Refusal(description: "socket folder \(folder) belongs to uid \(info.st_uid), not to you (uid \(getuid()))")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw Refusal(description: "socket folder \(folder) is open to group or others (mode \(String(mode, radix: 8))); 'chmod 700 \(folder)' or remove it")
        }
    }

    /// The lock, held for the server's life: taking it proves that no live server owns the
    /// name, so a socket left by a killed one may be replaced.
    final class Lock: Sendable {
        let descriptor: Int32
        let path: String
        init(descriptor: Int32, path: String) {
            self.descriptor = descriptor
            self.path = path
        }
        /// Gives the name up: the lock file goes, then the lock.
        func release() {
            unlink(path)
            close(descriptor)
        }
    }

    /// Takes the name's lock and clears a stale socket; refuses, naming the pid, while another
    /// server holds it.
    func claim() throws -> Lock {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw Refusal(description: "cannot open lock file \(lockPath): \(String(cString: strerror(errno)))")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            // The holder writes its pid just after it takes the lock: a server started at the
            // same moment may look in between, so it waits a little for the pid to be there.
            var pid = ""
            for _ in 0..<40 where pid.isEmpty {
                var buffer = [UInt8](repeating: 0, count: 32)
                let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
                pid = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                if pid.isEmpty { usleep(5_000) }
            }
            close(fd)
            throw Refusal(description: "a coordsh server is already running on \(socketPath)\(pid.isEmpty ? "" : " (pid \(pid))")")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        var info = stat()
        if lstat(socketPath, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                close(fd)
                throw Refusal(description: "\(socketPath) exists and is not a socket; refusing to replace it")
            }
            // Ours to replace: no live server holds the lock, so this one was left by a killed one.
            unlink(socketPath)
        }
        return Lock(descriptor: fd, path: lockPath)
    }
}
