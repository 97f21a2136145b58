import Foundation

extension String {
    /// This text in a column `width` UTF-16 units wide, as Foundation's
    /// `padding(toLength:withPad:startingAt:)` lays it out — spaces added, or cut when longer —
    /// without its trip through `NSString` for the common case (the text fits), which was 4 %
    /// of a batch script of cart commands: each shows the cart.
    func column(_ width: Int) -> String {
        let length = utf16.count
        guard length <= width else { return padding(toLength: width, withPad: " ", startingAt: 0) }
        guard length < width else { return self }
        // The spaces cut from a ready run of them: `String(repeating: " ", count:)` appends its
        // string once per space (2,500 instructions for a product's name column).
        var padded = self
        var missing = width - length
        while missing > 0 {
            let run = min(missing, Self.spaces.utf8.count)
            padded += Self.spaces.utf8.count == run ? Self.spaces : String(Self.spaces.prefix(run))
            missing -= run
        }
        return padded
    }

    private static let spaces = String(repeating: " ", count: 64)
}
