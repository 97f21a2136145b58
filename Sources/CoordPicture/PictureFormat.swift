/// How `tree`, `trace` and `map` draw (`--format`): DOT and Mermaid are text the shell writes
/// itself; SVG is DOT drawn by Graphviz's `dot`, which the terminal's process runs.
public enum PictureFormat: String, CaseIterable, Sendable {
    case dot, mermaid, svg

    /// The text of `diagram` in this format; SVG's is the DOT that `dot -Tsvg` draws, under
    /// `svgMarker`.
    public func text(of diagram: Diagram) -> String {
        switch self {
        case .dot: DotWriter.write(diagram)
        case .svg: Self.svgMarker + "\n" + DotWriter.write(diagram)
        case .mermaid: MermaidWriter.write(diagram)
        }
    }

    /// The first line of a picture to be drawn as SVG: a DOT comment, so the text stays valid
    /// DOT wherever it goes, by which the terminal — local, supervised or connected, with or
    /// without `--json` — knows to have `dot` draw it.
    public static let svgMarker = "// coordsh --format svg: the terminal has Graphviz's dot draw this"
}
