/// A `Diagram` as Graphviz DOT: what `--format dot` prints and what `dot -Tsvg` draws.
public enum DotWriter {
    public static func write(_ diagram: Diagram) -> String {
        var lines = ["digraph coordsh {"]
        let rank = switch diagram.direction {
        case .topDown: "TB"
        case .bottomUp: "BT"
        case .leftRight: "LR"
        }
        lines.append("  graph [rankdir=\(rank), label=\(quoted(diagram.title)), labelloc=t, fontname=\"Helvetica\"];")
        lines.append("  node [fontname=\"Helvetica\", fontsize=11];")
        lines.append("  edge [fontname=\"Helvetica\", fontsize=9];")
        let grouped = Set(diagram.groups.flatMap(\.members))
        for (index, group) in diagram.groups.enumerated() {
            lines.append("  subgraph cluster_\(index) {")
            lines.append("    label=\(quoted(group.label)); style=rounded; color=\"#888888\";")
            for node in diagram.nodes where group.members.contains(node.id) { lines.append("    " + statement(node)) }
            lines.append("  }")
        }
        for node in diagram.nodes where !grouped.contains(node.id) { lines.append("  " + statement(node)) }
        for row in diagram.sideBySide where row.count > 1 {
            lines.append("  { rank=same; " + row.map { "\($0);" }.joined(separator: " ") + " }")
        }
        for edge in diagram.edges {
            var attributes: [String] = []
            if !edge.label.isEmpty { attributes.append("label=\(quoted(edge.label))") }
            if edge.line != .solid { attributes.append("style=\(edge.line.rawValue)") }
            lines.append("  \(edge.from) -> \(edge.to)" + (attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]") + ";")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private static func statement(_ node: Diagram.Node) -> String {
        var attributes = ["label=\(quoted(node.label))"]
        switch node.shape {
        case .box: attributes.append("shape=box")
        case .rounded: attributes.append("shape=box, style=rounded")
        case .ellipse: attributes.append("shape=ellipse")
        case .store: attributes.append("shape=cylinder")
        }
        if node.emphasis { attributes.append("penwidth=2.5") }
        return "\(node.id) [\(attributes.joined(separator: ", "))];"
    }

    /// A DOT string: quotes and backslashes escaped, a line break as DOT's `\n`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r", "\t": out += " "
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
