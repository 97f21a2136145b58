/// `SWIFT_BACKTRACE` for the processes coordsh starts to run plugin code (a worker, a vetting
/// child): no crash backtracer, so that a trap ends the child at once with its one "Fatal
/// error" line for the parent to report instead of seconds of backtrace; and the backtracer's
/// path given (empty), because the runtime looks for its executable at every start whenever
/// the setting names none, even with it off (≈ 0.5 M instructions, on the way to a supervised
/// shell's first answer). The launcher (Sources/coordsh/launcher.c) writes the same value
/// for the worker it starts.
public enum ChildBacktrace {
    public static let setting = "enable=no,swift-backtrace="
}
