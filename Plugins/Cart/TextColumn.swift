import Foundation

extension String {
    /// Appends `text` in a column `width` UTF-16 units wide, as Foundation's
    /// `padding(toLength:withPad:startingAt:)` lays it out — spaces added, or cut when longer —
    /// without its trip through `NSString` for the common case (the text fits), which was 4 %
    /// of a batch script of cart commands: each shows the cart. Appended in place, so that a
    /// cart line is one string built once rather than one per column joined.
    mutating func appendColumn(_ text: String, _ width: Int) {
        let length = text.utf16.count
        guard length <= width else { return self += text.padding(toLength: width, withPad: " ", startingAt: 0) }
        self += text
        // The spaces cut from a ready run of them: `String(repeating: " ", count:)` appends its
        // string once per space (2,500 instructions for a product's name column).
        var missing = width - length
        while missing > 0 {
            let run = min(missing, Self.spaces.utf8.count)
            self += Self.spaces.utf8.count == run ? Self.spaces : String(Self.spaces.prefix(run))
            missing -= run
        }
    }

    private static let spaces = String(repeating: " ", count: 64)
}
