@_spi(Host) import CoordSDK

/// The services every host puts into `AppDependency` before any plugin registers: the shell,
/// `coordsh plugin check` and the in-process test host all go through here, so a plugin sees
/// the same host wherever it runs.
public enum HostServices {
    @MainActor
    public static func provide(
        to app: AppCoordinator, environment: HostEnvironment, data: any DataManaging, secrets: any SecretPrompting
    ) {
        app.provide(HostEnvironment.key, environment)
        app.provide(Services.data, data)
        app.provide(Services.secrets, secrets)
        app.provide(Services.passwords, ScryptPasswordHasher() as any PasswordHashing)
    }
}
