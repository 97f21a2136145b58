/// A `Diagram` as a Mermaid flowchart: what `--format mermaid` prints, for a Markdown page
/// (GitHub and most wikis draw it).
public enum MermaidWriter {
    public static func write(_ diagram: Diagram) -> String {
        let direction = switch diagram.direction {
        case .topDown: "TD"
        case .bottomUp: "BT"
        case .leftRight: "LR"
        }
        var lines = ["---", "title: \(text(diagram.title.replacingNewlines()))", "---", "flowchart \(direction)"]
        let grouped = Set(diagram.groups.flatMap(\.members))
        for (index, group) in diagram.groups.enumerated() {
            lines.append("  subgraph cluster_\(index) [\(text(group.label))]")
            for node in diagram.nodes where group.members.contains(node.id) { lines.append("    " + statement(node)) }
            lines.append("  end")
        }
        for node in diagram.nodes where !grouped.contains(node.id) { lines.append("  " + statement(node)) }
        for edge in diagram.edges {
            let arrow = switch edge.line {
            case .solid: "-->"
            case .dashed, .dotted: "-.->"
            }
            lines.append("  \(edge.from) \(arrow)" + (edge.label.isEmpty ? "" : "|\(text(edge.label))|") + " \(edge.to)")
        }
        for node in diagram.nodes where node.emphasis { lines.append("  style \(node.id) stroke-width:3px") }
        return lines.joined(separator: "\n")
    }

    private static func statement(_ node: Diagram.Node) -> String {
        let label = text(node.label)
        return switch node.shape {
        case .box: "\(node.id)[\(label)]"
        case .rounded: "\(node.id)(\(label))"
        case .ellipse: "\(node.id)([\(label)])"
        case .store: "\(node.id)[(\(label))]"
        }
    }

    /// A Mermaid label: in quotes, a quote as `#quot;`, a line break as `<br/>`.
    static func text(_ label: String) -> String {
        var out = "\""
        for character in label {
            switch character {
            case "\"": out += "#quot;"
            case "\n": out += "<br/>"
            case "<": out += "#lt;"
            case ">": out += "#gt;"
            case "|": out += "#124;"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}

extension String {
    func replacingNewlines() -> String { split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ") }
}
