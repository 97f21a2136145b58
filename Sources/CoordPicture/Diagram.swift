/// A picture of the app as data: boxes, arrows between them and groups around some of them,
/// written out as Graphviz DOT or Mermaid (`DotWriter`, `MermaidWriter`).
///
/// `tree`, `trace` and `map` build one, so that what the shell draws and what it prints as
/// text come from the same walk of the app.
public struct Diagram: Sendable, Equatable {
    /// Which way the arrows mostly run.
    public enum Direction: String, Sendable {
        case topDown, bottomUp, leftRight
    }

    public enum Shape: String, Sendable {
        /// A level of the chain, a feature: a plain box.
        case box
        /// A page: a box with rounded corners.
        case rounded
        /// The app or a scene: an ellipse.
        case ellipse
        /// A table or a service a feature reaches: a cylinder.
        case store
    }

    public enum Line: String, Sendable {
        /// Something that happened (a hop, a message sent).
        case solid
        /// Something declared that may happen (a use a feature asked for).
        case dashed
        /// A weak tie (a page a coordinator shows).
        case dotted
    }

    public struct Node: Sendable, Equatable {
        public let id: String
        /// Its text; may hold several lines (`\n`).
        public let label: String
        public let shape: Shape
        /// Drawn heavier: the active coordinator, the level that handled a message.
        public let emphasis: Bool

        public init(_ id: String, _ label: String, shape: Shape = .box, emphasis: Bool = false) {
            self.id = id
            self.label = label
            self.shape = shape
            self.emphasis = emphasis
        }
    }

    public struct Edge: Sendable, Equatable {
        public let from: String
        public let to: String
        public let label: String
        public let line: Line

        public init(_ from: String, _ to: String, label: String = "", line: Line = .solid) {
            self.from = from
            self.to = to
            self.label = label
            self.line = line
        }
    }

    /// Nodes drawn inside one frame (a feature and its pages).
    public struct Group: Sendable, Equatable {
        public let id: String
        public let label: String
        public let members: [String]

        public init(_ id: String, _ label: String, members: [String]) {
            self.id = id
            self.label = label
            self.members = members
        }
    }

    public var title: String
    public var direction: Direction
    public var nodes: [Node] = []
    public var edges: [Edge] = []
    public var groups: [Group] = []
    /// Nodes drawn side by side (DOT's `rank=same`; Mermaid places them itself): the app and
    /// the feature coordinator a message is routed down to.
    public var sideBySide: [[String]] = []

    public init(title: String, direction: Direction = .topDown) {
        self.title = title
        self.direction = direction
    }

    /// Adds a node unless one with its id is there already.
    public mutating func add(_ node: Node) {
        if !nodes.contains(where: { $0.id == node.id }) { nodes.append(node) }
    }

    public mutating func connect(_ edge: Edge) { edges.append(edge) }

    /// A node id both languages take as it is: letters, digits and `_` only.
    public static func identifier(_ text: String) -> String {
        var id = "n_"
        for scalar in text.unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") {
                id.unicodeScalars.append(scalar)
            } else {
                id += "_\(scalar.value)_"
            }
        }
        return id
    }
}
