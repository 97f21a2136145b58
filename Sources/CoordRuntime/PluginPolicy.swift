import CoordLoading
import Crypto
import Foundation

/// Who may supply code to this process. A plugin runs with the user's rights, so, as sudo
/// does for its own plugins, a plugin file and its folder must be owned by the user or by
/// root and writable by nobody else; and if the configuration lists SHA-256 hashes, only a
/// file with one of them is loaded.
public struct PluginPolicy: Sendable {
    /// Lower-case hex SHA-256 hashes of the plugins that may load, or nil to allow any
    /// (`[plugins] allow` in the config).
    public var allowList: Set<String>?
    /// The config file to name in the allow-list refusal.
    public var configFile: String?

    public init(allowList: Set<String>? = nil, configFile: String? = nil) {
        self.allowList = allowList
        self.configFile = configFile
    }

    /// What one scan has learnt about plugin folders, so that a hundred plugins in one folder
    /// cost one `stat` of it and one standardizing of its path (Foundation's
    /// `standardizingPath` resolves links component by component: it was a fifth of what a
    /// plugin registered from the cache cost at start-up).
    struct FolderMemo {
        var status: [String: (owner: UInt32, mode: UInt32)?] = [:]
        var standardized: [String: String] = [:]
        /// Foundation's folder of a path, by the path's text before its last `/`: the plugins
        /// of one folder share it, and the bridge to `NSString` for each plugin's two paths was
        /// an eighth of registering 100 plugins from the cache.
        var folders: [Substring: String] = [:]
        /// The folder parts (real and as given) of the last file whose folders passed: the
        /// next file of the same folders checks only itself. A scan's files come folder by
        /// folder, and looking each one's folders up again (four hashes of their paths and an
        /// array) was a tenth of registering a plugin from the cache.
        var passed: (real: Substring, given: Substring)?

        mutating func folder(of path: String) -> String {
            let bytes = path.utf8
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), bytes.last != UInt8(ascii: "/") else {
                return (path as NSString).deletingLastPathComponent
            }
            if let known = folders[path[..<slash]] { return known }
            let folder = (path as NSString).deletingLastPathComponent
            folders[path[..<slash]] = folder
            return folder
        }
    }

    /// Refuses a file or folder that someone other than the user or root could change.
    func checkOwnership(_ file: some PluginFileStatus, folders memo: inout FolderMemo) throws(PluginRefusal) {
        try check(owner: file.owner, mode: file.mode, what: "it", path: file.path, file: file)
        let parts = (real: Self.folderPart(file.realPath), given: Self.folderPart(file.path))
        if let passed = memo.passed, passed.real == parts.real, passed.given == parts.given { return }
        var folders = [memo.folder(of: file.realPath)]
        let parent = memo.folder(of: file.path)
        let given: String
        if let known = memo.standardized[parent] {
            given = known
        } else {
            given = (parent as NSString).standardizingPath
            memo.standardized[parent] = given
        }
        if !given.isEmpty, !folders.contains(given) { folders.append(given) }
        for folder in folders {
            let status: (owner: UInt32, mode: UInt32)?
            if let known = memo.status[folder] {
                status = known
            } else {
                var info = stat()
                status = stat(folder.isEmpty ? "." : folder, &info) == 0 ? (info.st_uid, info.st_mode) : nil
                memo.status[folder] = .some(status)
            }
            guard let status else { continue }
            try check(owner: status.owner, mode: status.mode, what: "its folder \(folder)", path: folder, file: file)
        }
        memo.passed = parts
    }

    /// A path's text before its last `/` (all of it without one): the same text is the same
    /// folder, as `FolderMemo.folder(of:)` reads it.
    private static func folderPart(_ path: String) -> Substring {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path[...] }
        return path[..<slash]
    }

    func checkOwnership(_ file: PluginFile) throws(PluginRefusal) {
        var memo = FolderMemo()
        try checkOwnership(file, folders: &memo)
    }

    /// Who runs this process, asked once: coordsh never changes its user, and each plugin's
    /// file and folder were asking again (two system calls a plugin at every start).
    private static let user = getuid()

    private func check(owner: UInt32, mode: UInt32, what: String, path: String, file: some PluginFileStatus) throws(PluginRefusal) {
        let user = Self.user
        guard owner == user || owner == 0 else {
            throw PluginRefusal(
                path: file.path, kind: .wrongOwner,
                reason: "\(what) is owned by \(Self.userName(owner)), not by you (\(Self.userName(user))) or root; a plugin runs with your rights, so nobody else may own it")
        }
        let writable = mode & (S_IWGRP | S_IWOTH)
        guard writable == 0 else {
            let who = writable == S_IWOTH ? "others" : writable == S_IWGRP ? "its group" : "group and others"
            throw PluginRefusal(
                path: file.path, kind: .insecurePermissions,
                reason: "\(what) is writable by \(who) (mode \(String(mode & 0o777, radix: 8))), so someone else could replace the code you run; fix with: chmod go-w \(path)")
        }
    }

    /// Refuses a file whose hash is not on the allow-list, naming the hash so that the user
    /// can add it.
    func checkAllowed(_ file: PluginFile, sha256: String) throws(PluginRefusal) {
        guard let allowList, !allowList.contains(sha256) else { return }
        let config = configFile.map { " in \($0)" } ?? ""
        throw PluginRefusal(
            path: file.path, kind: .notAllowed,
            reason: "not on the allow-list: sha256 \(sha256); if you trust it, add \"\(sha256)\" to [plugins] allow\(config)")
    }

    /// The SHA-256 of the open file, in lower-case hex.
    /// The SHA-256 of the plugin file at `path` (what the person was asked about); nil when
    /// it cannot be opened.
    public static func sha256(ofFile path: String) -> String? {
        guard let file = try? PluginFile(path: path) else { return nil }
        return sha256(of: file)
    }

    static func sha256(of file: PluginFile) -> String {
        var hasher = SHA256()
        file.forEachChunk { hasher.update(bufferPointer: $0) }
        return VerdictCache.hex(hasher.finalize())
    }

    private static func userName(_ uid: UInt32) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "\(String(cString: name)) (uid \(uid))"
    }
}
