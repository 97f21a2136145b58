import Foundation
import TestSupport
import Testing

/// libedit is opened by the interactive prompt, never by a shell that reads its commands from a
/// pipe or a script, nor by a supervised shell's app process: linked, it and the three libraries
/// it needs (libtinfo, libbsd, libmd) were mapped and relocated by every process for 0.36 MiB of
/// its memory (BENCHMARKS.md, "Issue 41, eighth pass"). The prompt itself, which does map it, is
/// PTYTests'. Looked at from outside, in /proc/PID/maps.
@Suite("libedit only for the prompt")
struct LineEditorLoadingTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    @Test("a shell reading a pipe maps no line editor, in one process and supervised (front and app process)")
    func noPromptNoLibedit() throws {
        let home = try makeTemporaryDirectory("prompt-maps")
        defer { try? FileManager.default.removeItem(atPath: home) }
        for mode in ["--single-process", "--supervised"] {
            let shell = try LiveShell(
                [mode, "--config", Self.config, "--db", home + "/shop\(mode).sqlite"],
                environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
            defer { _ = shell.finish() }
            let added = shell.send("cart add 3")
            #expect(added.contains("── Cart (1 item) ──"), "\(mode): \(added)")
            var processes = [("the shell", try shell.mappedFiles())]
            if mode == "--supervised" { processes.append(("its app process", try shell.mappedFiles(appProcess: true))) }
            for (name, maps) in processes {
                #expect(maps.contains("libswiftCore.so"), "\(mode): the maps of \(name)")
                #expect(!maps.contains("/libedit.so"), "\(mode): \(name) mapped libedit")
                #expect(!maps.contains("/libtinfo.so"), "\(mode): \(name) mapped libedit's libtinfo")
            }
        }
    }
}
