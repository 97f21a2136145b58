@testable import CoordRuntime
import Foundation
import Testing

/// The configuration an early worker parses while it waits for its front's options: used only
/// for the very path the front names, and only while that file holds the text that was read —
/// never a configuration the person has changed since. (Serialized: the read-ahead is one
/// slot per process.)
@Suite(.serialized) struct ConfigReadAheadTests {
    let folder: String

    init() throws {
        folder = NSTemporaryDirectory() + "coordsh-readahead-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func write(_ name: String, history: String) throws -> String {
        let path = folder + "/" + name
        try "[shell]\nhistory = \"\(history)\"\n".write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test("read ahead and unchanged: the front's load gets that configuration, once")
    func unchanged() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try write("a.toml", history: "/tmp/first")
        ConfigReadAhead.start(option: path)
        let read = try #require(ConfigReadAhead.take(path))
        #expect(read == (try Config.load(from: path)))
        #expect(read.historyPath == "/tmp/first")
        #expect(ConfigReadAhead.take(path) == nil, "it is given once")
    }

    @Test("changed after it was read, even to the same size at once, or replaced by a copy with the same times: read again")
    func changed() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try write("a.toml", history: "/tmp/first")
        ConfigReadAhead.start(option: path)
        _ = try write("a.toml", history: "/tmp/other")
        #expect(ConfigReadAhead.take(path) == nil)
        #expect(try Config.load(from: path).historyPath == "/tmp/other")

        ConfigReadAhead.start(option: path)
        let copy = try write("b.toml", history: "/tmp/third")
        var times = [timespec](repeating: timespec(), count: 2)
        var info = stat()
        #expect(stat(path, &info) == 0)
        times[0] = info.st_atim
        times[1] = info.st_mtim
        #expect(utimensat(AT_FDCWD, copy, &times, 0) == 0)
        #expect(rename(copy, path) == 0)
        #expect(ConfigReadAhead.take(path) == nil)
        #expect(try Config.load(from: path).historyPath == "/tmp/third")
    }

    @Test("another path named by the front: not used, and given up")
    func otherPath() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let guessed = try write("a.toml", history: "/tmp/guessed")
        let named = try write("b.toml", history: "/tmp/named")
        ConfigReadAhead.start(option: guessed)
        #expect(try Config.load(from: named).historyPath == "/tmp/named")
        #expect(ConfigReadAhead.take(guessed) == nil)
    }

    @Test("a named pipe is not read ahead: nothing it carries is taken from the front, and the wait is not blocked")
    func namedPipe() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pipe = folder + "/config.fifo"
        #expect(mkfifo(pipe, 0o600) == 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            ConfigReadAhead.start(option: pipe)
            done.signal()
        }
        let returned = done.wait(timeout: .now() + 5) == .success
        if !returned {
            // It opened the pipe and waits for a writer: give it a configuration and an end.
            let writer = open(pipe, O_WRONLY)
            _ = "[shell]\nhistory = \"/tmp/stolen\"\n".withCString { Glibc.write(writer, $0, strlen($0)) }
            close(writer)
            done.wait()
        }
        #expect(returned, "the read-ahead blocked on a named pipe")
        #expect(ConfigReadAhead.take(pipe) == nil)
    }

    @Test("a missing or broken file is not read ahead: the front's load reports it as before")
    func broken() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        ConfigReadAhead.start(option: folder + "/missing.toml")
        #expect(ConfigReadAhead.take(folder + "/missing.toml") == nil)
        let path = folder + "/bad.toml"
        try "[shell\nhistory = 1\n".write(toFile: path, atomically: false, encoding: .utf8)
        ConfigReadAhead.start(option: path)
        #expect(ConfigReadAhead.take(path) == nil)
        #expect(throws: ConfigError.self) { try Config.load(from: path) }
    }
}
