import CoordPicture
import CoordProtocol
@_spi(Host) import CoordSDK

/// `tree`, `trace` and `map` as pictures (`--format dot|mermaid|svg`), and `map` itself: every
/// feature with its pages, and the messages that cross from one feature to another — those
/// seen since the app started (`plugins stats` counts them) and the uses each declared.
extension Builtin {
    static func map(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        let features = session.app.features.features
        var lines: [String] = []
        var featureJSON: [JSONObject] = []
        for feature in features {
            let d = feature.definition
            let plugin = feature.origin.map { "\($0.name) \($0.version)" } ?? "built in"
            lines.append("\(d.name) (\(plugin)): prefix \(d.prefix), \(d.messages.count) message\(d.messages.count == 1 ? "" : "s"), pages " + feature.pageCases.map(\.name).joined(separator: ", "))
            featureJSON.append([
                "name": .string(d.name), "prefix": .string(d.prefix), "plugin": JSONValue(feature.origin?.name),
                "pages": JSONValue(feature.pageCases.map(\.name)), "messages": JSONValue(d.messages.map { d.messageName($0.verb).string }),
            ])
        }
        let links = mapLinks(session)
        lines.append(links.isEmpty ? "no message has crossed from one feature to another yet, and none declares a use" : "between features:")
        for link in links {
            let count = link.count.map { " ×\($0)" } ?? ""
            lines.append("  \(link.from) → \(link.to): \(link.what)\(count)" + (link.seen ? "" : " (declared)"))
        }
        return CommandResult(lines: lines, json: [
            "features": JSONValue(featureJSON),
            "links": JSONValue(links.map { link in
                var entry: JSONObject = ["from": .string(link.from), "to": .string(link.to), "what": .string(link.what), "seen": .bool(link.seen)]
                entry["count"] = link.count.map { .int(Int($0)) }
                return entry
            }),
        ]).drawn(call.format) { mapDiagram(session, links) }
    }

    /// One arrow of the map: a message seen crossing (with how often), or a declared use
    /// (`read products`, `service accounts`) towards the feature that owns it, where known.
    struct MapLink {
        let from: String
        let to: String
        let what: String
        let count: UInt64?
        var seen: Bool { count != nil }
    }

    static func mapLinks(_ session: Session) -> [MapLink] {
        var links: [MapLink] = []
        if let stats = session.host.stats {
            for (crossing, count) in stats.crossings.sorted(by: { $0.key < $1.key }) {
                links.append(MapLink(from: crossing.from, to: crossing.to, what: crossing.message, count: count))
            }
        }
        let providers = Dictionary(
            (session.app.dependencies?.entries ?? []).map { ($0.key, $0.provider) }, uniquingKeysWith: { first, _ in first })
        for feature in session.app.features.features {
            for use in feature.uses {
                let owner: String
                switch use {
                case .read(let table), .write(let table): owner = session.host.access.owner(ofTable: table) ?? "table \(table)"
                case .service(let name): owner = providers[name] ?? "service \(name)"
                default: owner = "outside: \(use)"
                }
                links.append(MapLink(from: feature.name, to: owner, what: use.description, count: nil))
            }
        }
        return links
    }

    static func mapDiagram(_ session: Session, _ links: [MapLink]) -> Diagram {
        var diagram = Diagram(title: "coordsh: features, pages and what crosses between them", direction: .leftRight)
        var known = Set<String>()
        for feature in session.app.features.features {
            let d = feature.definition
            let id = Diagram.identifier("feature " + d.name)
            known.insert(d.name)
            let plugin = feature.origin.map { "\n\($0.name) \($0.version)" } ?? ""
            diagram.add(.init(id, "\(d.name)\(plugin)\n\(d.messages.count) message\(d.messages.count == 1 ? "" : "s")", emphasis: true))
            var members = [id]
            for page in feature.pageCases {
                let pageID = Diagram.identifier("page \(d.name)/\(page.name)")
                diagram.add(.init(pageID, "\(d.name)/\(page.name)", shape: .rounded))
                diagram.connect(.init(id, pageID, line: .dotted))
                members.append(pageID)
            }
            diagram.groups.append(.init(Diagram.identifier("group " + d.name), "feature \(d.name), prefix \(d.prefix)", members: members))
        }
        for link in links {
            let to: String
            if known.contains(link.to) {
                to = Diagram.identifier("feature " + link.to)
            } else {
                to = Diagram.identifier("outside " + link.to)
                diagram.add(.init(to, link.to, shape: .store))
            }
            let label = link.count.map { "\(link.what) ×\($0)" } ?? link.what
            diagram.connect(.init(Diagram.identifier("feature " + link.from), to, label: label, line: link.seen ? .solid : .dashed))
        }
        return diagram
    }

    static func treeDiagram(_ session: Session, otherScenes: Int) -> Diagram {
        var diagram = Diagram(title: "coordsh: the coordinator tree of scene \(session.scene.identifier)")
        let appID = Diagram.identifier("app")
        diagram.add(.init(appID, session.app.chainDescription, shape: .ellipse))
        var ids: [ObjectIdentifier: String] = [:]
        var counter = 0
        session.scene.walk(1) { coordinator, _ in
            counter += 1
            let id = Diagram.identifier("level \(counter)")
            ids[ObjectIdentifier(coordinator)] = id
            let active = coordinator === session.scene.activeCoordinator
            diagram.add(.init(
                id, coordinator.chainDescription + (active ? "\n(active)" : ""),
                shape: coordinator === session.scene ? .ellipse : .box, emphasis: active))
            let parent = coordinator.parent.flatMap { ids[ObjectIdentifier($0)] } ?? appID
            diagram.connect(.init(parent, id))
            for (index, view) in coordinator.viewStack.enumerated() {
                let pageID = Diagram.identifier("level \(counter) page \(index)")
                diagram.add(.init(pageID, view.page.route.description, shape: .rounded))
                diagram.connect(.init(id, pageID, label: index == coordinator.viewStack.count - 1 ? "shows" : "under", line: .dotted))
            }
        }
        if otherScenes > 0 {
            let id = Diagram.identifier("other scenes")
            diagram.add(.init(id, "\(otherScenes) other scene\(otherScenes == 1 ? "" : "s")", shape: .ellipse))
            diagram.connect(.init(appID, id, line: .dashed))
        }
        return diagram
    }

    /// The trip: each level the message visited in order, what it did there, and the route down
    /// from the app to the feature's coordinator.
    static func traceDiagram(_ trace: DispatchTrace) -> Diagram {
        var diagram = Diagram(title: "coordsh: trace \(trace.message)", direction: .bottomUp)
        var previous: String?
        for (index, hop) in trace.hops.enumerated() {
            let id = Diagram.identifier("hop \(index)")
            let ended: Bool = switch hop.action {
            case .handled, .handledAndPassedOn, .queued: true
            default: false
            }
            diagram.add(.init(id, "\(hop.level)\n\(hop.action)", shape: index == 0 ? .rounded : .box, emphasis: ended))
            if let previous {
                let routed: Bool = if index > 0, case .routed = trace.hops[index - 1].action { true } else { false }
                diagram.connect(.init(previous, id, label: "\(index). " + (routed ? "routed down" : "up")))
                // The coordinator the app routed to is beside it, not above: it hangs under the scene.
                if routed { diagram.sideBySide.append([previous, id]) }
            }
            previous = id
        }
        return diagram
    }
}

extension CommandResult {
    /// This result drawn in `format` (nil: as it is): the picture's text as the lines, and in
    /// the document as `picture`. For SVG the text is DOT, which the terminal has Graphviz draw.
    func drawn(_ format: PictureFormat?, _ diagram: () -> Diagram) -> CommandResult {
        guard let format else { return self }
        let text = format.text(of: diagram())
        var result = self
        result.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        result.json["picture"] = ["format": .string(format.rawValue), "text": .string(text)]
        return result
    }
}
