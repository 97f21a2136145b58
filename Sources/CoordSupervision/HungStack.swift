import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a hung worker's main thread was, from what its stack report wrote on stderr
/// (`coordsh_stack_report_install`): the innermost frame in code of the app's own — a
/// plugin, the host, a library it calls — rather than the C library's or Swift's runtime, named
/// from the image's own symbol table (which holds the plugin's closures, which dladdr does not
/// see) and demangled: `closure #1 … in Crasher.CrasherCoordinator.init() (libcrasher.so)`.
struct HungStack {
    struct Frame: Equatable {
        let image: String
        let offset: UInt64
    }

    let frames: [Frame]

    /// The frames between the report's first and last line in `text`, or nil when it has none
    /// (the worker did not answer the signal either). `pid` is the worker's, still running: the
    /// loader maps a plugin through its descriptor, so dladdr names it `/proc/self/fd/N`, which
    /// only the worker's own descriptor table turns into the file's path.
    init?(report text: String, pid: pid_t) {
        let lines = text.split(separator: "\n")
        guard let start = lines.lastIndex(of: "coordsh worker: stack"),
            let end = lines[start...].firstIndex(of: "coordsh worker: end of stack")
        else { return nil }
        var frames: [Frame] = []
        for line in lines[(start + 1)..<end] {
            guard line.hasPrefix("coordsh worker: frame ") else { continue }
            let rest = line.dropFirst("coordsh worker: frame ".count)
            guard let space = rest.lastIndex(of: " "), let offset = UInt64(rest[rest.index(after: space)...].dropFirst(2), radix: 16) else { continue }
            var image = String(rest[..<space])
            if image.hasPrefix("/proc/self/fd/") {
                let link = "/proc/\(pid)/fd/" + image.dropFirst("/proc/self/fd/".count)
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) { image = target }
            }
            frames.append(Frame(image: image, offset: offset))
        }
        guard !frames.isEmpty else { return nil }
        self.frames = frames
    }

    /// Images whose frames say nothing of who hung: the C library, the loader, Swift's runtime.
    static func isSystem(_ image: String) -> Bool {
        let name = (image as NSString).lastPathComponent
        return image == "?" || ["libc.so", "libc-", "ld-linux", "linux-vdso", "libswiftCore", "libswift_", "libswiftGlibc", "libdispatch",
            "libBlocksRuntime", "libFoundation", "libstdc++", "libgcc_s", "libpthread", "libm.so"].contains { name.hasPrefix($0) }
    }

    /// The host's own images: the executable and the SDK.
    static func isHost(_ image: String) -> Bool {
        ["/coordsh-server", "/coordsh", "/libCoordSDK.so"].contains { image.hasSuffix($0) }
    }

    /// `function (image)` for the innermost frame outside the system's images and the host's
    /// (a plugin's, or a library's it called), else the host's own; nil when there is none.
    var culprit: String? {
        let candidates = frames.filter { !Self.isSystem($0.image) }
        guard let frame = candidates.first(where: { !Self.isHost($0.image) }) ?? candidates.first else { return nil }
        let image = (frame.image as NSString).lastPathComponent
        // A return address points after its call: look up the byte before it.
        guard let symbol = ELFSymbols(path: frame.image)?.symbol(containing: frame.offset &- 1) else { return "an unnamed function (\(image))" }
        return "\(Self.demangle(symbol)) (\(image))"
    }

    /// A Swift symbol's demangled name, a C one as it is.
    static func demangle(_ symbol: String) -> String {
        guard symbol.hasPrefix("$s") || symbol.hasPrefix("_T") else { return symbol }
        return symbol.withCString { mangled in
            guard let demangled = swift_demangle(mangled, strlen(mangled), nil, nil, 0) else { return symbol }
            defer { free(demangled) }
            return String(cString: demangled)
        }
    }
}

/// Swift's runtime demangler (libswiftCore exports it).
@_silgen_name("swift_demangle")
private func swift_demangle(
    _ mangledName: UnsafePointer<CChar>, _ mangledNameLength: Int, _ outputBuffer: UnsafeMutablePointer<CChar>?,
    _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?

/// The function symbols of an ELF64 shared object or executable (its `.symtab`, which keeps
/// the local ones, and its `.dynsym`), for naming an address in it.
struct ELFSymbols {
    private let bytes: [UInt8]

    init?(path: String) {
        guard let data = FileManager.default.contents(atPath: path), data.count > 64,
            data.starts(with: [0x7f, 0x45, 0x4c, 0x46]), data[4] == 2, data[5] == 1
        else { return nil }
        bytes = [UInt8](data)
    }

    private func read<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T? {
        guard offset >= 0, offset + MemoryLayout<T>.size <= bytes.count else { return nil }
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + index]) << (8 * index) }
        return value
    }

    private func string(at offset: Int) -> String? {
        guard offset >= 0, offset < bytes.count else { return nil }
        guard let end = bytes[offset...].firstIndex(of: 0) else { return nil }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    /// The name of the function whose bytes hold `address` (an offset from the load base).
    func symbol(containing address: UInt64) -> String? {
        guard let sectionTable = read(0x28, as: UInt64.self), let entrySize = read(0x3a, as: UInt16.self),
            let count = read(0x3c, as: UInt16.self), entrySize >= 64
        else { return nil }
        var best: (name: String, start: UInt64)?
        for index in 0..<Int(count) {
            let header = Int(sectionTable) + index * Int(entrySize)
            guard let type = read(header + 4, as: UInt32.self), type == 2 || type == 11,  // SHT_SYMTAB, SHT_DYNSYM
                let offset = read(header + 0x18, as: UInt64.self), let size = read(header + 0x20, as: UInt64.self),
                let link = read(header + 0x28, as: UInt32.self), let symbolSize = read(header + 0x38, as: UInt64.self), symbolSize >= 24
            else { continue }
            let strings = Int(sectionTable) + Int(link) * Int(entrySize)
            guard let stringTable = read(strings + 0x18, as: UInt64.self) else { continue }
            for symbol in stride(from: Int(offset), to: Int(offset + size), by: Int(symbolSize)) {
                guard let name = read(symbol, as: UInt32.self), let info = read(symbol + 4, as: UInt8.self),
                    info & 0xf == 2,  // STT_FUNC
                    let value = read(symbol + 8, as: UInt64.self), let length = read(symbol + 16, as: UInt64.self),
                    value <= address, address < value &+ max(length, 1), value >= (best?.start ?? 0),
                    let text = string(at: Int(stringTable) + Int(name)), !text.isEmpty
                else { continue }
                best = (text, value)
            }
        }
        return best?.name
    }
}
