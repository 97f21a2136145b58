/// `value` as `Placeholder` when that is exactly its dynamic type, else nil: how the SDK finds
/// its own placeholders in a slot (`SealedService`, `DeferredService`, both final classes).
///
/// A plain `as?` or `is` asks the runtime about every value that is not one — a struct
/// service, a string, a closure — and a value cast to a class sends the runtime looking for a
/// bridge through every image's conformance records the first time it meets that value's type
/// (seven such casts were ≈ 1.2 M instructions of every start; BENCHMARKS.md, issue 41).
/// Comparing the dynamic type first costs two loads, and the cast that follows cannot fail.
func exactly<Placeholder: AnyObject>(_ value: Any?, _: Placeholder.Type) -> Placeholder? {
    guard let value, ObjectIdentifier(type(of: value)) == ObjectIdentifier(Placeholder.self) else { return nil }
    return value as? Placeholder
}
