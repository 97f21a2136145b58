import CoordSDK

/// What the guide's weather coordinator calls and the guide leaves out: the forecast is made
/// up, the point is the plugin's shape.
extension WeatherCoordinator {
    func forget(_ id: Int, confirmed: Bool) throws {
        guard confirmed else { throw CoordError.failed("weather forget: add confirm=true to forget place \(id)") }
        report(.note("forgot place \(id)"))
        try show(WeatherPage.home)
    }
}

final class WeatherView: PageView {
    override func render() -> Rendering {
        switch page as? WeatherPage {
        case .item(let id, let days): Rendering(title: "Place \(id)", lines: (1...max(1, days ?? 3)).map { "day \($0): sunny" })
        case .home, nil: Rendering(title: "Weather", lines: ["weather show ID — one place's forecast"])
        }
    }
}
