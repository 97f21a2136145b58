import CoordMacros
import CoordSDK

@Page(feature: "weather")
enum WeatherPage: Page {
    /// the list of places
    case home
    /// one place's forecast
    /// - Parameter id: place number
    /// - Parameter days: how many days (default 3)
    case item(id: Int, days: Int?)
}
