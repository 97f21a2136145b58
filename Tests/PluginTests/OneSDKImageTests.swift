import Foundation
import TestSupport
import Testing

/// DESIGN.md's trap, checked where it bites: a CoordSDK type linked into an executable as well
/// as into libCoordSDK.so exists twice, and whether a plugin's cast holds depends on which copy
/// the dynamic loader binds it to. The loader says which (`LD_DEBUG=bindings`): every CoordSDK
/// symbol a plugin or CoordShop uses must come from libCoordSDK.so (or, for CoordShop's own
/// extensions of SDK types, libCoordShop.so) — never from the executable — in the shell's
/// process and in the supervised app process alike.
@Suite("One SDK image: the plugins' CoordSDK symbols bind to libCoordSDK.so in every process")
struct OneSDKImageTests {
    /// Each `binding file A [n] to B [n]: normal symbol `S'` line of the loader's log whose
    /// symbol is CoordSDK's and whose user is not libCoordSDK.so itself: (user, provider, symbol).
    static func sdkBindings(in folder: String) throws -> [(user: String, provider: String, symbol: String)] {
        var found: [(user: String, provider: String, symbol: String)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("bindings.") {
            let log = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            for line in log.split(separator: "\n") {
                guard let file = line.range(of: "binding file "), let to = line.range(of: " to ", range: file.upperBound..<line.endIndex),
                      let symbol = line.range(of: "symbol `$s8CoordSDK") else { continue }
                let user = String(line[file.upperBound..<to.lowerBound]).components(separatedBy: " [")[0]
                let provider = String(line[to.upperBound...]).components(separatedBy: " [")[0]
                if user.hasSuffix("/libCoordSDK.so") { continue }
                found.append((user, provider, String(line[symbol.lowerBound...].dropFirst(8).prefix { $0 != "'" })))
            }
        }
        return found
    }

    @Test("in one process and supervised: the shop's plugins bind CoordSDK's types, protocols and functions to libCoordSDK.so, never to a copy in the executable")
    func pluginsBindToTheLibrary() throws {
        for mode in ["--single-process", "--supervised"] {
            let home = try PluginHome("one-sdk")
            defer { home.remove() }
            let logs = try home.folder("ld")
            var environment = home.environment
            environment["LD_DEBUG"] = "bindings"
            environment["LD_DEBUG_OUTPUT"] = logs + "/bindings"
            let result = try run(BuildProducts.coordsh, [mode, "-c", "cart add 3", "-c", "cart show"], environment: environment)
            #expect(result.status == 0, "\(mode): \(result.stderr)")
            #expect(result.stdout.contains("#3   Leather Boots"), "\(mode): \(result.stdout)")
            let bindings = try Self.sdkBindings(in: logs)
            // The cart's coordinator and the shop's model use CoordSDK: a run that bound none
            // of their symbols would not have checked anything.
            #expect(bindings.contains { $0.user.hasSuffix("/libCoordShop.so") }, "\(mode)")
            #expect(bindings.filter { !$0.user.hasSuffix("/libCoordShop.so") }.count > 20, "\(mode): \(bindings.count)")
            // libCoordShop.so provides its own extensions of CoordSDK's types (`Services.carts`),
            // whose symbols are named in CoordSDK's namespace.
            let elsewhere = bindings.filter { !$0.provider.hasSuffix("/libCoordSDK.so") && !$0.provider.hasSuffix("/libCoordShop.so") }
            let boundElsewhere = elsewhere.count
            #expect(boundElsewhere == 0, "\(mode): \(elsewhere.count) bound elsewhere, e.g. \(elsewhere.prefix(3).map { "\($0.symbol) from \($0.provider)" })")
        }
    }
}
