import CoordProtocol
import Foundation
import Testing

/// What a notice is about and which plugins a worker loaded cross the socket as values: a
/// front acts on a notice's kind and a plugin's name, never on their words. Round trips
/// through the encoder and the decoder a client uses.
@Suite("notices and plugins on the wire")
struct NoticeFrameTests {
    func roundTrip(_ reply: ServerReply) throws -> ServerReply {
        var decoder = FrameDecoder()
        decoder.append(try FrameDecoder.encode(reply.object))
        return try ServerReply.parse(try #require(try decoder.next()))
    }

    @Test("an event keeps its kind; a plain note carries none on the wire; a kind this side does not know reads as a note")
    func eventKinds() throws {
        for kind in Notice.Kind.allCases {
            let notice = Notice(text: "refused plugin /p/libx.so: not an ELF file", isWarning: kind != .note, kind: kind)
            guard case .event(let back) = try roundTrip(.event(notice)) else { Issue.record("not an event"); continue }
            #expect(back == notice)
        }
        #expect(ServerReply.event(Notice(text: "hi", isWarning: false)).object["kind"] == nil)
        let newer = try ServerReply.parse(["type": "event", "text": "from a newer server", "warning": true, "kind": "plugin_exploded"])
        guard case .event(let read) = newer else { Issue.record("not an event"); return }
        #expect(read.kind == .note && read.isWarning && read.text == "from a newer server")
        #expect(throws: ProtocolError.self) { try ServerReply.parse(["type": "event", "text": "x", "kind": 7]) }
    }

    @Test("a hello's notices keep their kinds, its plugins come back as names and versions; a plugin that is not NAME VERSION is a protocol error")
    func helloPlugins() throws {
        let hello = ServerReply.Hello(
            version: WireProtocol.version, server: "coordsh", scene: "s1", pid: 42, route: nil, page: [],
            plugins: [PluginIdentity(name: "cart", version: "1.2.0"), PluginIdentity(name: "wishlist", version: "0.1")],
            notices: [Notice(text: "refused plugin /p/liby.so: quarantined", isWarning: true, kind: .pluginRefused)])
        guard case .hello(let back) = try roundTrip(.hello(hello)) else { Issue.record("not a hello"); return }
        #expect(back == hello)
        #expect(back.plugins.map(\.name) == ["cart", "wishlist"])
        #expect(ServerReply.hello(hello).object["plugins"] as? [String] == ["cart 1.2.0", "wishlist 0.1"])
        for bad in ["cart", "cart 1.0 extra", " 1.0", "cart "] {
            var object = ServerReply.hello(hello).object
            object["plugins"] = [bad]
            #expect(throws: ProtocolError.self, "\(bad)") { try ServerReply.parse(object) }
        }
    }
}
