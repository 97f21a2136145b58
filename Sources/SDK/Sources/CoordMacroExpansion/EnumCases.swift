import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// One associated value of a case: a page parameter or a message argument.
struct CaseParameter {
    /// The label, which is the parameter's name.
    let name: String
    /// The Swift type without its optional (`Int`, `RouteRequest`, `Secret`).
    let swiftType: String
    /// The shell's type (`int`, `string`, `bool`, `route`).
    let valueType: String
    let isOptional: Bool
    var isSecret: Bool { swiftType == "Secret" }
    let summary: String
}

/// One case of the enum: a page or a message.
struct EnumCase {
    /// As the shell names it: the route's page name or the message's verb.
    let name: String
    /// As Swift spells it (backticks kept), for the generated code.
    let swiftName: String
    let parameters: [CaseParameter]
    let summary: String

    /// `.item(id: id, note: note)` — or `.list` — the pattern/expression shape with the
    /// parameters bound to their own names.
    var bindingPattern: String {
        parameters.isEmpty ? ".\(swiftName)" : ".\(swiftName)(" + parameters.map { "let \($0.name)" }.joined(separator: ", ") + ")"
    }

    /// `Arguments(omittingNil: [("id", id.argumentValue)])`.
    var argumentsExpression: String {
        if parameters.isEmpty { return "Arguments()" }
        let pairs = parameters.map { "(\(literal($0.name)), \($0.name)\($0.isOptional ? "?" : "").argumentValue)" }
        return "Arguments(omittingNil: [" + pairs.joined(separator: ", ") + "])"
    }

    /// `[Parameter("id", .int, summary: "…")]`.
    var parametersExpression: String {
        "[" + parameters.map { parameter in
            var text = "Parameter(\(literal(parameter.name)), .\(parameter.valueType)"
            if parameter.isOptional { text += ", optional: true" }
            if parameter.isSecret { text += ", secret: true" }
            if !parameter.summary.isEmpty { text += ", summary: \(literal(parameter.summary))" }
            return text + ")"
        }.joined(separator: ", ") + "]"
    }

    /// `TypeName.item(id: try arguments.require("id", as: Int.self))`, reading from `source`.
    func construction(typeName: String, from source: String) -> String {
        if parameters.isEmpty { return "\(typeName).\(swiftName)" }
        let values = parameters.map { parameter in
            parameter.isOptional
                ? "\(parameter.name): \(source).value(\(literal(parameter.name)), as: \(parameter.swiftType).self)"
                : "\(parameter.name): try \(source).require(\(literal(parameter.name)), as: \(parameter.swiftType).self)"
        }
        return "\(typeName).\(swiftName)(" + values.joined(separator: ", ") + ")"
    }
}

/// What both macros read off the enum they are attached to: its name, access level and cases.
struct EnumShape {
    let typeName: String
    /// `public ` or `package ` or empty: the generated members are as visible as the enum.
    let access: String
    let cases: [EnumCase]

    /// `var arguments: Arguments`, the associated values as named arguments: the same for a
    /// page and a message.
    var argumentsProperty: DeclSyntax {
        """
        \(raw: access)var arguments: Arguments {
            switch self {
        \(raw: cases.map { "    case \($0.bindingPattern): \($0.argumentsExpression)" }.joined(separator: "\n"))
            }
        }
        """
    }

    /// Reads `declaration`; reports every problem at its node and returns
    /// nil if there was any, so that nothing half-generated follows a compile error.
    static func read(
        _ declaration: some DeclGroupSyntax, attribute: AttributeSyntax, macro: String, conformance: String,
        allowedTypes: [String], in context: some MacroExpansionContext
    ) -> EnumShape? {
        var failed = false
        func error(_ node: some SyntaxProtocol, _ message: String, _ id: String) {
            failed = true
            context.diagnose(Diagnostic(node: Syntax(node), message: MacroDiagnostic(message, id: id)))
        }
        guard let enumeration = declaration.as(EnumDeclSyntax.self) else {
            error(attribute, "@\(macro) applies to an enum: one case per \(macro == "Page" ? "page" : "message")", "notEnum")
            return nil
        }
        let inherited = enumeration.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
        if !inherited.contains(conformance), !inherited.contains("CoordSDK.\(conformance)") {
            error(enumeration.name, "@\(macro) writes the members of '\(conformance)'; declare the conformance on the enum: 'enum \(enumeration.name.text): \(conformance)'", "conformance")
        }
        let modifiers = enumeration.modifiers.map(\.name.text)
        let access = modifiers.contains("public") ? "public " : modifiers.contains("package") ? "package " : ""
        var cases: [EnumCase] = []
        var seen: Set<String> = []
        for member in enumeration.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            let doc = DocComment(caseDecl.leadingTrivia)
            for element in caseDecl.elements {
                let swiftName = element.name.text
                let name = swiftName.trimmingBackticks
                guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                    error(element.name, "case '\(name)': a \(macro == "Page" ? "route" : "message") name is ASCII letters, digits and '_'", "caseName")
                    continue
                }
                if macro == "Messages", let first = name.first, !(first.isLowercase && first.isLetter) {
                    error(element.name, "case '\(name)': a verb starts with a lower-case letter (it follows the prefix: cartAdd)", "verbCase")
                    continue
                }
                if !seen.insert(name.lowercased()).inserted {
                    error(element.name, "case '\(name)': another case differs from it only in case, and the shell could not tell them apart", "duplicateCase")
                    continue
                }
                if let raw = element.rawValue {
                    error(raw, "case '\(name)': raw values have no meaning here; remove '= \(raw.value.trimmedDescription)'", "rawValue")
                    continue
                }
                var parameters: [CaseParameter] = []
                for (index, value) in (element.parameterClause?.parameters ?? []).enumerated() {
                    guard let label = value.firstName, label.tokenKind != .wildcard else {
                        let noun = macro == "Page" ? "parameter" : "argument"
                        error(value, "case '\(name)': associated value \(index + 1) needs a label, which becomes the \(noun)'s name: '\(name)(\(noun): \(value.type.trimmedDescription))'", "unlabeled")
                        continue
                    }
                    let parameterName = label.text.trimmingBackticks
                    if macro == "Page", ParameterType(value.type, allowed: ["Secret"]) != nil {
                        error(value.type, "case '\(name)': '\(parameterName)' is a Secret, which a page cannot have: a page's parameters are shown in its route and kept in the history; take it as a message argument", "secretPage")
                        continue
                    }
                    guard let type = ParameterType(value.type, allowed: allowedTypes) else {
                        let allowed = allowedTypes.dropLast().joined(separator: ", ") + " or " + (allowedTypes.last ?? "")
                        error(value.type, "case '\(name)': '\(parameterName)' is of type \(value.type.trimmedDescription), which has no route form; use \(allowed), or an optional of one", "type")
                        continue
                    }
                    parameters.append(CaseParameter(
                        name: parameterName, swiftType: type.swiftType, valueType: type.valueType,
                        isOptional: type.isOptional, summary: doc.parameters[parameterName] ?? ""))
                }
                cases.append(EnumCase(name: name, swiftName: swiftName, parameters: parameters, summary: doc.summary))
            }
        }
        return failed ? nil : EnumShape(typeName: enumeration.name.text, access: access, cases: cases)
    }
}

/// The string literal argument `label:` of the attribute, or nil (with an error) when it is
/// missing or not a plain literal: the macro needs its value at compile time.
func stringArgument(
    _ label: String, of attribute: AttributeSyntax, in context: some MacroExpansionContext,
    valid: (String) -> String?
) -> String? {
    guard case .argumentList(let list) = attribute.arguments,
        let argument = list.first(where: { $0.label?.text == label }),
        let literal = argument.expression.as(StringLiteralExprSyntax.self),
        literal.segments.count == 1, case .stringSegment(let segment)? = literal.segments.first
    else {
        context.diagnose(Diagnostic(node: Syntax(attribute), message: MacroDiagnostic(
            "\(label): must be a plain string literal (the macro reads it at compile time)", id: "literal")))
        return nil
    }
    let value = segment.content.text
    if let problem = valid(value) {
        context.diagnose(Diagnostic(node: Syntax(literal), message: MacroDiagnostic("\(label) '\(value)': \(problem)", id: "argument")))
        return nil
    }
    return value
}

/// The type of an associated value: one the shell can carry, possibly optional.
struct ParameterType {
    let swiftType: String
    let valueType: String
    let isOptional: Bool

    private static let valueTypes = ["Int": "int", "String": "string", "Bool": "bool", "Double": "double", "RouteRequest": "route", "Secret": "string"]

    init?(_ type: TypeSyntax, allowed: [String]) {
        var text = type.trimmedDescription.filter { !$0.isWhitespace }
        var optional = false
        if text.hasSuffix("?") {
            text.removeLast()
            optional = true
        } else if text.hasPrefix("Optional<"), text.hasSuffix(">") {
            text = String(text.dropFirst("Optional<".count).dropLast())
            optional = true
        } else if text.hasPrefix("Swift.Optional<"), text.hasSuffix(">") {
            text = String(text.dropFirst("Swift.Optional<".count).dropLast())
            optional = true
        }
        for module in ["Swift.", "CoordSDK."] where text.hasPrefix(module) { text.removeFirst(module.count) }
        guard allowed.contains(text), let valueType = Self.valueTypes[text] else { return nil }
        swiftType = text
        self.valueType = valueType
        isOptional = optional
    }
}

/// A case's doc comment: the summary (its text up to the first `- ` field) and the summaries
/// of its parameters (`- Parameter id: …`, or `- id: …` under `- Parameters:`).
struct DocComment {
    var summary = ""
    var parameters: [String: String] = [:]

    init(_ trivia: Trivia) {
        var lines: [String] = []
        for piece in trivia {
            switch piece {
            case .docLineComment(let text):
                // `/// text`: one space after the slashes is the comment's, the rest is indent.
                let line = text.dropFirst(3)
                lines.append(String(line.first == " " ? line.dropFirst() : line))
            case .docBlockComment(let text):
                let body = text.dropFirst(3).dropLast(2)
                lines += body.split(separator: "\n", omittingEmptySubsequences: false).map {
                    var line = Substring($0)
                    while line.first == " " { line.removeFirst() }
                    if line.first == "*" { line.removeFirst() }
                    return String(line)
                }
            default:
                continue
            }
        }
        var summaryLines: [String] = []
        var inFields = false
        for raw in lines {
            let line = raw.trimmingCharacters(in: " \t")
            if line.hasPrefix("- ") {
                inFields = true
                let field = line.dropFirst(2)
                if field.hasPrefix("Parameter "), let colon = field.firstIndex(of: ":") {
                    let name = field[field.index(field.startIndex, offsetBy: "Parameter ".count)..<colon].trimmingCharacters(in: " ")
                    parameters[name] = field[field.index(after: colon)...].trimmingCharacters(in: " ")
                } else if raw.first == " " || raw.first == "\t", let colon = field.firstIndex(of: ":") {
                    // `  - id: …` under `- Parameters:`
                    parameters[field[..<colon].trimmingCharacters(in: " ")] = field[field.index(after: colon)...].trimmingCharacters(in: " ")
                }
            } else if !inFields, !line.isEmpty {
                summaryLines.append(line)
            }
        }
        summary = summaryLines.joined(separator: " ")
    }
}

/// `text` as a Swift string literal.
func literal(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": result += "\\\\"
        case "\"": result += "\\\""
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result + "\""
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }

    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
