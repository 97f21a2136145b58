/// The outcome of one contract check, as printed by `coordsh plugin check` and returned to a
/// plugin author's own tests.
public struct ContractResult: Sendable, Codable, Equatable, CustomStringConvertible {
    /// A stable name (`sdk-version`, `pages-bare`, …), for `--json` and for skipping ahead.
    public let id: String
    /// What the check holds the plugin to, in words.
    public let title: String
    /// Whether the plugin held to it; one failure fails `plugin check`.
    public let passed: Bool
    /// What was seen: the values compared on success, the reason on failure.
    public let detail: String
    /// When the failure is one the loader would refuse the plugin for, the refusal's kind
    /// (`sdk_version_mismatch`, …).
    public let refusal: String?

    /// One check's outcome, as the suite records it and `plugin check --json` prints it.
    public init(id: String, title: String, passed: Bool, detail: String, refusal: String? = nil) {
        self.id = id
        self.title = title
        self.passed = passed
        self.detail = detail
        self.refusal = refusal
    }

    /// `ok   descriptor SDK version matches the host — CoordSDK 0.11.0`.
    public var description: String {
        "\(passed ? "ok  " : "FAIL") \(title)\(detail.isEmpty ? "" : " — \(detail)")"
    }
}
