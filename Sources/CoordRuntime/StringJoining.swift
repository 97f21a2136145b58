extension Array where Element == String {
    /// The strings with `separator` between them, as `joined(separator:)` gives them, compiled
    /// for `[String]`. The standard library's `joined(separator:)` runs unspecialised, and its
    /// first call in a process looks `[String]: Collection` up in every loaded image's
    /// conformance records (≈ 350,000 instructions, 1.5 % of `coordsh -c 'echo ok'`): what
    /// every start runs (the built-in configuration's rendering, a builtin's text) uses this.
    public func joinedText(separator: String) -> String {
        var text = ""
        for index in indices {
            if index > 0 { text += separator }
            text += self[index]
        }
        return text
    }
}
