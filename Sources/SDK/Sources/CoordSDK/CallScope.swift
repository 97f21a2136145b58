/// What one call into a C plugin's function may read — its arguments and, for a completion,
/// the services — held for the host's libffi calls (CoordLoading).
///
/// Host-only. It is a class of this module because `Arguments` and `AppDependency` are
/// resilient outside it: the host storing and clearing them around every C call went through
/// their value witnesses, a fifth of a C handler's cost (BENCHMARKS.md, issue 39). Here the
/// same stores are plain code, and the host holds one reference.
@_spi(Host) public final class CallScope {
    /// The call's arguments (empty between calls).
    public private(set) var arguments = Arguments()
    /// The services a completion was given (kept between calls until another is given).
    public private(set) var services: AppDependency?

    public init() {}

    /// Holds `arguments` (and `services`, when given or when some are held) for a call.
    public func begin(arguments: Arguments, services: AppDependency?) {
        self.arguments = arguments
        if services != nil || self.services != nil { self.services = services }
    }

    /// Lets go of the call's arguments.
    public func end() { arguments = Arguments() }

    /// The argument `name` expected at `index`, as a C value (see `Arguments.cArgument`).
    public func cArgument(at index: Int, named name: String) -> CArgument {
        arguments.cArgument(at: index, named: name)
    }

    /// The argument `name`, as a C value (the host table's `arg_*` functions).
    public func cArgument(named name: String) -> CArgument {
        arguments.cArgument(at: Int.max, named: name)
    }
}
