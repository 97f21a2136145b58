/// One line for an error from decoding a plugin's settings or data files, naming where it is
/// (`offers[0].expires`) and what is wrong, for the one-line errors coordsh promises. Foundation's
/// own descriptions spread over several sentences and print array positions as `Index 0`.
public enum DecodingProblem {
    /// `offers[0].expires: missing`, `price: expected Int, found a string`, or the error's own
    /// description when it is not a `DecodingError`.
    public static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case DecodingError.valueNotFound(_, let context):
            return "\(path(context.codingPath)): no value"
        case DecodingError.typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type), \(found(context.debugDescription))"
        case DecodingError.dataCorrupted(let context):
            let place = context.codingPath.isEmpty ? "" : "\(path(context.codingPath)): "
            return place + (context.underlyingError.map { "\($0)" } ?? context.debugDescription)
        default:
            return "\(error)"
        }
    }

    /// `offers[0].expires` from coding keys; `(top level)` for none.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return text.isEmpty ? "(top level)" : text
    }

    /// "found a string" from "Expected to decode Int but found a string instead."
    private static func found(_ description: String) -> String {
        guard let range = description.range(of: "but found ") else { return description }
        var rest = description[range.upperBound...]
        if rest.hasSuffix(" instead.") { rest = rest.dropLast(" instead.".count) }
        return "found " + rest
    }
}
