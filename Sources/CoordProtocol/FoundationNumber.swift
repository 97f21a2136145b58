import Foundation

extension NSNumber {
    /// Foundation's JSON parser gives every number and both booleans as NSNumber, and `true as?
    /// Int` succeeds; the number's own type code tells them apart (`c` is a boolean). The one
    /// letter is read in place: a String of it per number showed in the profile.
    package var isJSONBoolean: Bool { UInt8(bitPattern: objCType.pointee) == UInt8(ascii: "c") }

    /// An integer's type code (`i`, `q`, `l`, `s` and unsigned), not a double's nor a boolean's.
    package var isJSONInteger: Bool { NSNumber.integerCodes.contains(UInt8(bitPattern: objCType.pointee)) }

    private static let integerCodes: Set<UInt8> = Set("iqlsQILS".utf8)
}
