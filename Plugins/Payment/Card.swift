/// A card number as typed, checked the way a payment form would before charging it.
struct Card {
    /// The documented test cards: one always succeeds, one is always declined.
    static let approvedTestCard = "4242424242424242"
    static let declinedTestCard = "4000000000000002"

    let digits: String

    /// Accepts digits with spaces or dashes between groups; anything else, a wrong length or a
    /// failed Luhn check is a one-line error.
    init(_ text: String) throws(PaymentError) {
        let digits = text.filter { $0 != " " && $0 != "-" }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else {
            throw .invalid("'\(Card.masked(text))' is not a card number (digits only)")
        }
        guard (12...19).contains(digits.count) else {
            throw .invalid("a card number has 12 to 19 digits, this one has \(digits.count)")
        }
        guard Card.passesLuhn(digits) else {
            throw .invalid("card number \(Card.masked(digits)) is not valid (Luhn check failed)")
        }
        self.digits = digits
    }

    static func passesLuhn(_ digits: String) -> Bool {
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            guard var digit = character.wholeNumberValue else { return false }
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }

    /// Never prints more than the last four digits.
    static func masked(_ text: String) -> String {
        let digits = text.filter(\.isNumber)
        return "…" + String(digits.suffix(4))
    }

    var last4: String { String(digits.suffix(4)) }

    var brand: String {
        if digits.hasPrefix("4") { return "Visa" }
        if let two = Int(digits.prefix(2)), (51...55).contains(two) { return "Mastercard" }
        if let four = Int(digits.prefix(4)), (2221...2720).contains(four) { return "Mastercard" }
        if digits.hasPrefix("34") || digits.hasPrefix("37") { return "American Express" }
        return "Card"
    }

    /// The simulated card network: the declined test card is declined, every other valid
    /// number is approved.
    var isDeclined: Bool { digits == Card.declinedTestCard }
}

enum PaymentError: Error {
    case invalid(String)
}
