// The memory baseline issue 19 names: a Swift program with Foundation that dlopens one plugin
// (argument 1, with the SDK it links), then answers `echo X` on stdin like the trivial one, so
// that its peak memory is read while it waits, as the shell's is. What coordsh adds on top of
// this is its own: the shell, the data store, the config, the other registrations.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Foundation in use, not only linked: a date formatted and a JSON document parsed.
let stamp = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 0))
_ = try? JSONSerialization.jsonObject(with: Data("{\"at\": \"\(stamp)\"}".utf8))
if CommandLine.arguments.count > 1, dlopen(CommandLine.arguments[1], RTLD_NOW | RTLD_LOCAL) == nil {
    FileHandle.standardError.write(Data("cannot load \(CommandLine.arguments[1]): \(String(cString: dlerror()))\n".utf8))
    exit(1)
}
while let line = readLine() {
    print(line.hasPrefix("echo ") ? String(line.dropFirst(5)) : line)
    fflush(nil)
}
