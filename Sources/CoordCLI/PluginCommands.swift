import ArgumentParser
import CoordPluginTools
import Foundation

/// `coordsh plugin …`: tools for plugin authors.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordsh plugin", abstract: "Check a plugin against the contract, or start a new one.",
        subcommands: [CheckCommand.self, NewCommand.self])
}

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run the plugin contract suite against PATH.so in a child process.",
        discussion: "Prints one line per check and 'N passed, N failed'; exits 0 only when every check passed. A crash or hang fails the check it happened in.")

    @Argument(help: "The plugin's .so file.") var path: String
    @Flag(name: .customLong("json"), help: "Print the results as one JSON document.") var json = false
    @Flag(name: .customLong("alone"), help: "Load no other plugin: its dependencies are only the host's services.") var alone = false
    @Option(name: .customLong("config"), help: ArgumentHelp("Read the configuration (plugin folders, feature settings) from FILE.", valueName: "FILE"))
    var configPath: String?
    @Option(name: .customLong("plugin-dir"), help: ArgumentHelp("Also load plugins from DIR as its companions (repeatable).", valueName: "DIR"))
    var pluginDirectories: [String] = []
    @Option(name: .customLong("timeout"), help: ArgumentHelp("Seconds one check may take before it counts as hung.", valueName: "SECONDS"))
    var timeout: Double = 10

    // The child side (the parent starts it; also the loader's vetting).
    @Flag(name: .customLong("child"), help: .hidden) var child = false
    @Option(name: .customLong("from"), help: .hidden) var from = 0
    @Option(name: .customLong("only"), help: .hidden) var only: String?
    @Option(name: .customLong("fd"), help: .hidden) var descriptor: Int32?
    @Option(name: .customLong("scratch"), help: .hidden) var scratch: String?

    func run() throws {
        let status = MainActor.assumeIsolated { () -> Int32 in
            if child {
                var options = PluginCheckChild.Options()
                options.path = path
                options.from = from
                options.only = only?.split(separator: ",").map(String.init)
                options.descriptor = descriptor
                options.alone = alone
                options.configPath = configPath
                options.pluginDirectories = pluginDirectories
                options.scratch = scratch
                return PluginCheckChild.run(options)
            }
            var options = PluginCheck.Options()
            options.path = path
            options.json = json
            options.alone = alone
            options.configPath = configPath
            options.pluginDirectories = pluginDirectories
            options.timeout = timeout
            return PluginCheck.run(options)
        }
        if status != 0 { throw ExitCode(status) }
    }
}

struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a plugin package NAME: in Swift, a coordinator, two pages, one message and a contract test; in C or Rust, two pages and one message through the plain C interface.")

    @Argument(help: "The feature's name and message prefix (lower-case letters and digits).") var name: String
    @Option(name: .customLong("path"), help: ArgumentHelp("Create it in DIR (default: ./NAME).", valueName: "DIR"))
    var path: String?
    @Option(name: .customLong("sdk"), help: ArgumentHelp("The coordsh SDK package to build against (default: the one this binary was built from).", valueName: "DIR"))
    var sdk: String?
    @Flag(name: .customLong("shop"), help: "A plugin of the shop: it depends on CoordShop (Product, Money, Services.user …), the package beside the SDK, in the plugin and its test.")
    var shop = false
    @Option(name: .customLong("lang"), help: ArgumentHelp("The plugin's language: swift (the SDK, the default), c or rust (the plain C interface, ABI 2).", valueName: "LANG"))
    var language = "swift"
    @Flag(name: .customLong("no-prebuilt"), help: "Build the SDK's macro plugin from swift-syntax (minutes, once) instead of using the one this coordsh's build made.")
    var noPrebuilt = false

    @Option(name: .customLong("config"), help: ArgumentHelp("The configuration whose plugin folders hold the plugins a new name must not clash with.", valueName: "FILE"))
    var configPath: String?

    func run() throws {
        let directory = path ?? name
        let sdkPath = sdk ?? PluginTemplate.defaultSDKPath
        do {
            let taken = MainActor.assumeIsolated { PluginTemplate.takenNames(configPath: configPath) }
            guard ["swift", "c", "rust"].contains(language) else {
                throw PluginTemplate.Failure(description: "--lang \(language): coordsh makes plugins in swift, c or rust")
            }
            if language != "swift" {
                guard !shop else { throw PluginTemplate.Failure(description: "--shop is for Swift plugins (CoordShop is Swift types); a \(language) plugin reaches the shop through messages and its tables") }
                let files = try PluginTemplate.createForeign(language: language, name: name, in: directory, sdkPath: sdkPath, taken: taken)
                print("created \(language == "c" ? "C" : "Rust") plugin '\(name)' in \(directory), built against the SDK in \(sdkPath):")
                for file in files { print("  \(file)") }
                print("build it with: cd \(directory) && \(language == "c" ? "make" : "cargo build --offline")")
                return
            }
            let shopPath = shop ? PluginTemplate.shopPath(besideSDK: sdkPath) : nil
            let macroPlugin = noPrebuilt ? nil : PluginTemplate.prebuiltMacroPlugin
            let files = try PluginTemplate.create(name: name, in: directory, sdkPath: sdkPath, shopPath: shopPath, macroPlugin: macroPlugin, taken: taken)
            print("created plugin '\(name)' in \(directory), built against the SDK in \(sdkPath)\(shopPath.map { " and CoordShop in \($0)" } ?? ""):")
            for file in files { print("  \(file)") }
            print(macroPlugin.map { "the macros' plugin: \($0) (prebuilt)" } ?? "the macros' plugin is built from swift-syntax (a few minutes, the first time)")
            print("build it with: cd \(directory) && swift build")
        } catch {
            FileHandle.standardError.write(Data("coordsh: error: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
