/// The few fields of an ELF header the loader checks before `dlopen`, so that an empty,
/// truncated, 32-bit or foreign-CPU file is refused with a reason a person can act on
/// ("built for aarch64, this machine is x86_64") instead of the dynamic linker's.
enum ELFHeader {
    /// `e_machine` of this process's CPU.
    static var hostMachine: UInt16 {
        #if arch(x86_64)
        return 62
        #elseif arch(arm64)
        return 183
        #elseif arch(riscv64)
        return 243
        #else
        return 0
        #endif
    }

    static func machineName(_ machine: UInt16) -> String {
        switch machine {
        case 3: "i386"
        case 8: "MIPS"
        case 20: "PowerPC"
        case 21: "PowerPC64"
        case 22: "s390"
        case 40: "ARM (32-bit)"
        case 62: "x86_64"
        case 183: "aarch64"
        case 243: "RISC-V"
        default: "machine \(machine)"
        }
    }

    static func check(_ file: PluginFile) throws(PluginRefusal) {
        func refuse(_ kind: PluginRefusal.Kind, _ reason: String) -> PluginRefusal {
            PluginRefusal(path: file.path, kind: kind, reason: reason)
        }
        guard file.size > 0 else { throw refuse(.emptyFile, "empty file (0 bytes), not a shared library") }
        let header = file.read(at: 0, count: 64)
        guard header.count >= 4, header[0] == 0x7F, header[1] == 0x45, header[2] == 0x4C, header[3] == 0x46 else {
            throw refuse(.notELF, "not an ELF file (a plugin is a shared library built with `swift build`)")
        }
        guard header.count >= 64 else {
            throw refuse(.truncated, "truncated ELF file: \(file.size) bytes, shorter than its 64-byte header")
        }
        func u16(_ at: Int) -> UInt64 { UInt64(header[at]) | UInt64(header[at + 1]) << 8 }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(header[at + $1]) << (8 * $1) } }
        guard header[4] == 2 else { throw refuse(.wrongMachine, "a 32-bit ELF file; this machine loads 64-bit libraries") }
        guard header[5] == 1 else { throw refuse(.wrongMachine, "a big-endian ELF file; this machine is little-endian") }
        let machine = UInt16(u16(18))
        guard machine == hostMachine else {
            throw refuse(.wrongMachine, "built for \(machineName(machine)), this machine is \(machineName(hostMachine))")
        }
        guard u16(16) == 3 else {
            let type = [1: "a relocatable object (.o)", 2: "an executable", 4: "a core dump"][Int(u16(16))] ?? "ELF type \(u16(16))"
            throw refuse(.notSharedObject, "\(type), not a shared library")
        }
        // Offsets and counts come from the file: a sum past 2^64 is a broken header, not a trap.
        func end(_ offset: UInt64, _ count: UInt64, _ size: UInt64) -> UInt64? {
            let (bytes, overflowed) = count.multipliedReportingOverflow(by: size)
            let (sum, overflowedAgain) = offset.addingReportingOverflow(bytes)
            return overflowed || overflowedAgain ? nil : sum
        }
        guard let programEnd = end(u64(32), u16(56), u16(54)), let sectionEnd = end(u64(40), u16(60), u16(58)) else {
            throw refuse(.truncated, "broken ELF file: its header tables lie past any possible end")
        }
        let end = max(programEnd, sectionEnd)
        guard end <= UInt64(file.size) else {
            throw refuse(.truncated, "truncated ELF file: \(file.size) bytes, but its headers say it is at least \(end)")
        }
    }
}
