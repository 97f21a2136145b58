import Foundation

/// coordsh is three executables built and installed side by side: `coordsh`, a launcher in C
/// that starts the shell (and, for a supervised shell, its app process at the same moment:
/// Sources/coordsh/launcher.c); `coordsh-front`, the shell itself; and `coordsh-server`, the
/// same command line plus `coordsh serve` and the app process of a supervised shell or server
/// (`coordsh worker`), which bring SwiftNIO and its companions. The shell leaves them out
/// because every start of it maps and faults in its own text: with them it was about 2 MiB
/// more resident for commands that never serve (BENCHMARKS.md).
public enum HostExecutables {
    /// The file name of the launcher, the command people type.
    public static let shellName = "coordsh"
    /// The file name of the shell the launcher starts.
    public static let frontName = "coordsh-front"
    /// The file name of the executable that serves and runs workers.
    public static let serverName = "coordsh-server"

    /// This process's executable (symbolic links resolved), which also runs the vetting and
    /// contract children: both executables have `plugin check`.
    public static let current: String =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

    /// `coordsh-server` beside this executable (itself, when this is it).
    public static var server: String {
        ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(serverName)
    }

    /// What identifies this build of coordsh for the verdict cache. Both executables vet and
    /// load plugins (a supervised shell's worker is the server), so when this is one of them the
    /// identity is the pair's — size and modification time of each — and the shell and its
    /// worker trust each other's verdicts instead of re-vetting every plugin whenever one
    /// follows the other. Any other program (a test runner) is identified by its own file.
    public static let buildIdentity: String = {
        let exe = current
        let name = (exe as NSString).lastPathComponent
        guard name == frontName || name == serverName else { return fileIdentity(exe) }
        let folder = (exe as NSString).deletingLastPathComponent as NSString
        return fileIdentity(folder.appendingPathComponent(frontName)) + "+" + fileIdentity(folder.appendingPathComponent(serverName))
    }()

    private static func fileIdentity(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "?" }
        return "\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
}
