import Foundation

extension String {
    /// This text in a column `width` UTF-16 units wide, as Foundation's
    /// `padding(toLength:withPad:startingAt:)` lays it out — spaces added, or cut when longer —
    /// without its trip through `NSString` for the common case (the text fits), which was 4 %
    /// of a batch script of cart commands: each shows the cart.
    func column(_ width: Int) -> String {
        let length = utf16.count
        guard length <= width else { return padding(toLength: width, withPad: " ", startingAt: 0) }
        return length == width ? self : self + String(repeating: " ", count: width - length)
    }
}
