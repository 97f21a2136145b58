import CoordRuntime
import Foundation

extension Shell {
    /// The loader as the configuration wants it: the allow-list, vetting new or changed
    /// plugins in children of this very binary, and the verdict cache.
    static func configure(_ loader: PluginLoader, config: Config, vettingExecutable: String? = nil) {
        loader.policy = PluginPolicy(allowList: config.pluginAllowList, configFile: config.source)
        loader.vetting = ContractRunner(executable: vettingExecutable ?? Shell.executablePath, timeout: config.vetTimeout)
        loader.cache = VerdictCache(path: config.expandedVerdictCachePath())
        loader.quarantine = Quarantine(path: config.expandedQuarantinePath())
        loader.deferLoading = true
    }

    /// This process's executable, which also runs the vetting and contract children.
    package static var executablePath: String { HostExecutables.current }
}
