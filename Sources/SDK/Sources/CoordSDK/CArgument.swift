/// One argument as a C handler receives it, for the host's libffi calls (CoordLoading).
///
/// Host-only and frozen on purpose: `Value` is a resilient enum (it may gain cases within a
/// major), so code outside this module copies and switches it through its metadata, which made
/// every C handler's call 20 % slower (BENCHMARKS.md, issue 39). This type's layout is fixed
/// and its payloads are the standard library's, so the host reads it directly; the lookup and
/// the conversion happen here, inside the module that owns `Value`.
@_spi(Host) @frozen public enum CArgument {
    case int(Int)
    case bool(Bool)
    case double(Double)
    /// A string, or a route as its text.
    case text(String)
    /// Not given (an optional parameter left out).
    case absent
}

extension Arguments {
    /// The argument `name`, expected at `index` (the feature's door put the arguments in the
    /// declared order; one after an omitted optional is found by name), as a C value.
    @_spi(Host) public func cArgument(at index: Int, named name: String) -> CArgument {
        let value = index < values.count && values[index].name == name ? values[index].value : self[name]
        switch value {
        case .int(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .double(let number): return .double(number)
        case .string(let text): return .text(text)
        case .route(let route): return .text(route.description)
        case nil: return .absent
        }
    }
}
