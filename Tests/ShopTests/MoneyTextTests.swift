import CoordShop
import Testing

@Suite("Amounts as the pages write them")
struct MoneyTextTests {
    @Test("units, two digits of cents and the currency; a minus sign for a negative amount, the most negative one too")
    func written() {
        let cases: [(Int, String)] = [
            (1250, "12.50 EUR"), (5, "0.05 EUR"), (0, "0.00 EUR"), (-5, "-0.05 EUR"), (-129_00, "-129.00 EUR"),
            (Int.max, "92233720368547758.07 EUR"), (Int.min, "-92233720368547758.08 EUR"),
        ]
        for (minor, text) in cases {
            #expect(Money(minor: minor, currency: "EUR").description == text)
        }
    }
}
