import CoordRuntime
import Foundation

/// The plugin loader as the configuration wants it, wherever an app is made (the shell, the
/// worker, `serve`, `plugin check`, `plugin new`).
@MainActor
package enum LoaderSetup {
    /// The allow-list, vetting new or changed plugins in children of this very binary, and
    /// the verdict cache.
    package static func configure(_ loader: PluginLoader, config: Config, vettingExecutable: String? = nil) {
        loader.policy = PluginPolicy(allowList: config.pluginAllowList, configFile: config.source)
        loader.vetting = ContractRunner(executable: vettingExecutable ?? executablePath, timeout: config.vetTimeout)
        loader.cache = VerdictCache(path: config.expandedVerdictCachePath())
        loader.quarantine = Quarantine(path: config.expandedQuarantinePath())
        loader.deferLoading = true
    }

    /// This process's executable, which also runs the vetting and contract children.
    package static var executablePath: String { HostExecutables.current }
}
