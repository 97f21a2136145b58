/// The lines of a script file (`-f`), as piped stdin gives them (`readLine`): split at each
/// `\n`, a `\r` before it dropped, the text after the last `\n` a line of its own (empty when
/// the file ends with one).
///
/// Read as UTF-8 bytes: split as `Character`s, a 100,000-line script took 5,600 instructions a
/// line to cut up (grapheme breaking), a tenth of what running its commands took; and `\r\n`,
/// one `Character`, was no line end at all, so a script saved with Windows line ends ran as one
/// command.
enum ScriptLines {
    static func split(_ text: String) -> [String] {
        var text = text
        return text.withUTF8 { bytes in
            var lines: [String] = []
            var start = 0
            for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
                let end = index > start && bytes[index - 1] == UInt8(ascii: "\r") ? index - 1 : index
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                start = index + 1
            }
            lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return lines
        }
    }
}
