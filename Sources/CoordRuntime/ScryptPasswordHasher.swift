@_spi(Host) import CoordSDK
import Crypto
import CryptoExtras
import Foundation

/// The host's `PasswordHashing`: scrypt (swift-crypto's CryptoExtras) with a random 16-byte
/// salt per password. It lives in the host so that the one BoringSSL the host links for
/// plugin hashes also serves the accounts; a plugin that linked CryptoExtras itself would
/// load a second copy.
///
/// The parameters are stored with each hash (`scrypt$15$8$1`), so they can be raised later
/// without breaking existing accounts.
public final class ScryptPasswordHasher: PasswordHashing {
    /// log2 of N, r and p: 32 MiB and about a tenth of a second per hash.
    public static let current = (logN: 15, r: 8, p: 1)

    public init() {}

    public func hash(_ password: String) throws -> PasswordHash {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let parameters = "scrypt$\(Self.current.logN)$\(Self.current.r)$\(Self.current.p)"
        // The host's time, not the calling plugin's (`plugins stats` counts it apart).
        let digest = try FeatureClock.hostWork("passwords.hash") { try Self.derive(password, salt: salt, parameters: parameters) }
        return PasswordHash(parameters: parameters, salt: salt, digest: digest)
    }

    public func digest(token: String) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(token.utf8)) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public func verify(_ password: String, against hash: PasswordHash) throws -> Bool {
        let candidate = try FeatureClock.hostWork("passwords.verify") { try Self.derive(password, salt: hash.salt, parameters: hash.parameters) }
        guard candidate.count == hash.digest.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, hash.digest) { difference |= a ^ b }
        return difference == 0
    }

    static func derive(_ password: String, salt: [UInt8], parameters: String) throws -> [UInt8] {
        let parts = parameters.split(separator: "$")
        guard parts.count == 4, parts[0] == "scrypt", let logN = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
            (1...24).contains(logN), (1...64).contains(r), (1...16).contains(p)
        else { throw CoordError.failed("stored password hash has unknown parameters '\(parameters)'") }
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: 1 << logN, blockSize: r,
            parallelism: p)
        return key.withUnsafeBytes { Array($0) }
    }
}
