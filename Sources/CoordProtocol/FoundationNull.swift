import Foundation

/// Whether a value Foundation's JSON parser gave is its `null`, an `NSNull`, by the value's
/// exact type. `value is NSNull` asks the runtime to bridge every value that is not one: a
/// `String` became an `NSString` at each check, and the first such check of a type looked for
/// its bridge through every image's conformance records (≈ 500,000 instructions; a supervised
/// shell's front paid it on the way to its first command, BENCHMARKS.md, issue 41). The parser
/// makes its nulls as `NSNull` itself, never a subclass.
package func isJSONNull(_ value: Any) -> Bool {
    ObjectIdentifier(type(of: value)) == ObjectIdentifier(NSNull.self)
}
