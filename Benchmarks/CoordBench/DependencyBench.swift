@_spi(Host) import CoordSDK
import Foundation

/// Setting AppDependency at the root of coordinator trees of 100, 1,000 and 10,000 nodes, and
/// the same push down a tree of plain Swift objects (the floor: one store per node).
@MainActor
enum DependencyBench {
    static let rounds = 21
    static let key = ServiceKey<Int>("bench.value")

    /// A tree below the scene with `nodes` coordinators in all, ten children each.
    static func tree(nodes: Int) -> AppCoordinator {
        let app = AppCoordinator()
        let scene = app.makeScene(identifier: "bench")
        var frontier: [Coordinator] = [scene]
        var made = 1
        while made < nodes {
            var next: [Coordinator] = []
            for parent in frontier {
                for index in 0..<10 where made < nodes {
                    let child = Coordinator(identifier: "n\(made)-\(index)")
                    parent.startChild(child)
                    next.append(child)
                    made += 1
                }
            }
            frontier = next
        }
        return app
    }

    final class Node {
        var dependencies: AppDependency?
        var children: [Node] = []
        func set(_ value: AppDependency) {
            dependencies = value
            for child in children { child.set(value) }
        }
    }

    static func plainTree(nodes: Int) -> Node {
        let root = Node()
        var frontier = [root], made = 1
        while made < nodes {
            var next: [Node] = []
            for parent in frontier {
                for _ in 0..<10 where made < nodes {
                    let child = Node()
                    parent.children.append(child)
                    next.append(child)
                    made += 1
                }
            }
            frontier = next
        }
        return root
    }

    static func run() -> [ResultRow] {
        var rows: [ResultRow] = []
        for nodes in [100, 1_000, 10_000] {
            let app = tree(nodes: nodes)
            var samples: [Double] = []
            for round in 0..<rounds {
                let start = now()
                app.provide(key, round)
                samples.append(Double(now() - start) / 1e9)
            }
            precondition(app.scenes.first?.children.first?.dependencies?[key] == rounds - 1)
            let plain = plainTree(nodes: nodes)
            var value = AppDependency()
            var plainSamples: [Double] = []
            for round in 0..<rounds {
                value.set(key.key, round, provider: "bench")
                let start = now()
                plain.set(value)
                plainSamples.append(Double(now() - start) / 1e9)
            }
            let figure = median(samples), floor = median(plainSamples)
            rows.append(ResultRow(
                measurement: "AppDependency update, \(nodes) nodes", figure: String(format: "%.3f ms", figure * 1000),
                baseline: String(format: "plain tree store %.3f ms", floor * 1000), ratio: times(figure / floor) + " the plain store",
                goal: nodes == 10_000 ? "≤ 1 ms" : "", verdict: nodes == 10_000 ? met(figure <= 0.001) : nil))
        }
        return rows
    }
}
