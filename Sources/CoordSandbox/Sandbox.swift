import CSandbox
import Foundation

/// What a process that runs plugin code may still reach once it is confined: files and
/// folders to read, folders to write in, programs to start, TCP ports to connect to, and
/// whether it may open Unix sockets. Everything else of the person's — their home, other
/// folders, the network, other programs — is out of reach for the rest of the process's life
/// and for every process it starts (the kernel's rules are inherited and cannot be undone).
public struct SandboxPolicy: Sendable, Equatable {
    /// Read (files) and list (folders), beneath each path.
    public var readable: [String] = []
    /// Read, write, create and remove beneath each folder; read and write each file.
    public var writable: [String] = []
    /// Devices read and written, terminal control included (`/dev/null`, `/dev/tty`).
    public var devices: [String] = []
    /// Programs it may start (each also readable).
    public var executable: [String] = []
    /// TCP ports it may connect to (a PostgreSQL server's); it binds none.
    public var connectPorts: [UInt16] = []
    /// Unix sockets may be made (a PostgreSQL server reached through its socket folder).
    public var unixSockets = false

    public init() {}
}

/// Confines this process with Linux Landlock and a seccomp filter (see `SandboxPolicy`).
///
/// Landlock says which files, folders and TCP ports stay reachable, and keeps signals and
/// abstract Unix sockets inside the process's own domain; seccomp refuses what Landlock
/// cannot name — a UDP, raw or netlink socket, a Unix socket unless the policy allows one,
/// io_uring, the kernel keyring, ptrace. Deny by default: a right of the running kernel's
/// Landlock ABI that the policy does not grant is refused.
public enum Sandbox {
    /// Why the process is not confined.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// The kernel has no Landlock (not built in, or disabled at boot): nothing was changed.
        public let unavailable: Bool
        public let description: String
    }

    /// The running kernel's Landlock ABI version, or nil (and why) when it has none.
    public static func landlockABI() -> Result<Int, Failure> {
        let abi = coordsh_landlock_abi()
        if abi > 0 { return .success(Int(abi)) }
        let why = -abi == ENOSYS ? "this kernel has no Landlock" : -abi == EOPNOTSUPP ? "Landlock is disabled on this kernel (boot option lsm=)" : "Landlock: \(String(cString: strerror(-abi)))"
        return .failure(Failure(unavailable: true, description: why))
    }

    /// The process's threads: the entries of /proc/self/task (1 if it cannot be read), read
    /// with `readdir` — Foundation's `contentsOfDirectory` joins paths with the standard
    /// library's unspecialised `joined(separator:)`, whose first call at a start looks a
    /// conformance up in every loaded image's records (≈ 350,000 instructions).
    static func runningThreads() -> Int {
        guard let folder = opendir("/proc/self/task") else { return 1 }
        defer { closedir(folder) }
        var count = 0
        while let entry = readdir(folder) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return max(count, 1)
    }

    /// Confines this process; returns the Landlock ABI version used. Must run before the
    /// process starts a second thread: Landlock restricts the calling thread and what it starts
    /// later, never a thread already running (checked: more than one thread is a failure).
    public static func confine(_ policy: SandboxPolicy) -> Result<Int, Failure> {
        let abi: Int
        switch landlockABI() {
        case .success(let version): abi = version
        case .failure(let failure): return .failure(failure)
        }
        let threads = runningThreads()
        guard threads <= 1 else {
            return .failure(Failure(unavailable: false, description: "cannot confine a process that already runs \(threads) threads"))
        }
        var fs = COORDSH_LL_FS_EXECUTE | COORDSH_LL_FS_WRITE_FILE | COORDSH_LL_FS_READ_FILE | COORDSH_LL_FS_READ_DIR
            | COORDSH_LL_FS_REMOVE_DIR | COORDSH_LL_FS_REMOVE_FILE | COORDSH_LL_FS_MAKE_CHAR | COORDSH_LL_FS_MAKE_DIR
            | COORDSH_LL_FS_MAKE_REG | COORDSH_LL_FS_MAKE_SOCK | COORDSH_LL_FS_MAKE_FIFO | COORDSH_LL_FS_MAKE_BLOCK
            | COORDSH_LL_FS_MAKE_SYM
        if abi >= 2 { fs |= COORDSH_LL_FS_REFER }
        if abi >= 3 { fs |= COORDSH_LL_FS_TRUNCATE }
        if abi >= 5 { fs |= COORDSH_LL_FS_IOCTL_DEV }
        let net = abi >= 4 ? COORDSH_LL_NET_BIND_TCP | COORDSH_LL_NET_CONNECT_TCP : 0
        let scoped = abi >= 6 ? COORDSH_LL_SCOPE_ABSTRACT_UNIX_SOCKET | COORDSH_LL_SCOPE_SIGNAL : 0
        let ruleset = coordsh_landlock_ruleset(fs, net, scoped)
        guard ruleset >= 0 else { return .failure(failure("cannot make a Landlock ruleset", ruleset)) }

        let read = COORDSH_LL_FS_READ_FILE | COORDSH_LL_FS_READ_DIR
        let write = fs & ~(COORDSH_LL_FS_EXECUTE | COORDSH_LL_FS_MAKE_CHAR | COORDSH_LL_FS_MAKE_BLOCK | COORDSH_LL_FS_IOCTL_DEV)
        let device = read | COORDSH_LL_FS_WRITE_FILE | (fs & (COORDSH_LL_FS_TRUNCATE | COORDSH_LL_FS_IOCTL_DEV))
        let rules = policy.readable.map { ($0, read) } + policy.writable.map { ($0, write) } + policy.devices.map { ($0, device) }
            + policy.executable.map { ($0, read | COORDSH_LL_FS_EXECUTE) }
        for (path, access) in rules {
            let added = coordsh_landlock_allow_path(ruleset, path, access)
            // A path that does not exist (no /lib64 here, no state folder yet), or that this
            // user cannot reach anyway, grants nothing.
            if added != 0, -added != ENOENT, -added != ENOTDIR, -added != EACCES {
                close(ruleset)
                return .failure(failure("cannot allow \(path)", added))
            }
        }
        if net != 0 {
            for port in policy.connectPorts {
                let added = coordsh_landlock_allow_port(ruleset, UInt64(port), COORDSH_LL_NET_CONNECT_TCP)
                guard added == 0 else {
                    close(ruleset)
                    return .failure(failure("cannot allow TCP port \(port)", added))
                }
            }
        }
        let restricted = coordsh_landlock_restrict(ruleset)
        guard restricted == 0 else { return .failure(failure("cannot enforce the Landlock ruleset", restricted)) }
        let filtered = coordsh_seccomp_install(policy.unixSockets ? 1 : 0)
        guard filtered == 0 else { return .failure(failure("cannot install the seccomp filter", filtered)) }
        return .success(abi)
    }

    private static func failure(_ what: String, _ code: Int32) -> Failure {
        Failure(unavailable: false, description: "\(what): \(String(cString: strerror(-code)))")
    }

    /// The folders of every shared library loaded in this process now.
    public static func loadedLibraryFolders() -> [String] {
        final class Paths { var folders = Set<String>() }
        let paths = Paths()
        withExtendedLifetime(paths) {
            coordsh_loaded_objects({ path, context in
                guard let path, let context else { return }
                let paths = Unmanaged<Paths>.fromOpaque(context).takeUnretainedValue()
                if let folder = Sandbox.folder(of: path) { paths.folders.insert(folder) }
            }, Unmanaged.passUnretained(paths).toOpaque())
        }
        return paths.folders.sorted()
    }

    /// The folder of an absolute path as the loader gives it: the bytes before its last `/`,
    /// without the slashes that end them (`/` for a file at the root); nil for a path that is
    /// not absolute, which names no folder to open. `NSString`'s `deletingLastPathComponent`
    /// said the same for these paths and cost ≈ 30,000 instructions a library at every start
    /// (BENCHMARKS.md, issue 41).
    static func folder(of path: UnsafePointer<CChar>) -> String? {
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(path).assumingMemoryBound(to: UInt8.self), count: strlen(path))
        guard bytes.first == UInt8(ascii: "/"), var end = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// Removes from the environment every variable not in `keep` (by name) nor starting with
    /// one of `keepPrefixes`, and blanks its bytes where the process was started with them
    /// (/proc/self/environ). Returns the names removed.
    @discardableResult
    public static func scrubEnvironment(keep: Set<String>, keepPrefixes: [String] = []) -> [String] {
        let names = environmentNames()
        let kept = names.filter { name in keep.contains(name) || keepPrefixes.contains { name.hasPrefix($0) } }
        let pointers = kept.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        var constant = pointers.map { UnsafePointer($0) }
        _ = constant.withUnsafeMutableBufferPointer { buffer in
            coordsh_scrub_environment(buffer.baseAddress, Int32(buffer.count))
        }
        return names.filter { !kept.contains($0) }.sorted()
    }

    /// The names of this process's environment variables, each once, read from `environ`:
    /// `ProcessInfo`'s `environment` builds a dictionary of every name and value first
    /// (≈ 400,000 instructions at every start). A name is what comes before an entry's first
    /// `=`; an entry without one names no variable to keep (the scrub removes it).
    static func environmentNames() -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        var entry = environ
        while let pointer = entry.pointee {
            entry += 1
            guard let equals = strchr(pointer, Int32(UInt8(ascii: "="))) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(start: pointer, count: equals - pointer), as: UTF8.self)
            if seen.insert(name).inserted { names.append(name) }
        }
        return names
    }
}
