import CryptoExtras
import Foundation

/// Password hashing with scrypt (swift-crypto's CryptoExtras) and a random per-user salt.
///
/// The parameters are stored with each hash (`scrypt$15$8$1`), so they can be raised later
/// without breaking existing accounts.
enum PasswordHasher {
    struct Hash {
        let parameters: String
        let salt: [UInt8]
        let digest: [UInt8]
    }

    /// log2 of N, r and p: 32 MiB and about a tenth of a second per hash.
    static let current = (logN: 15, r: 8, p: 1)

    static func hash(_ password: String) throws -> Hash {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let parameters = "scrypt$\(current.logN)$\(current.r)$\(current.p)"
        return Hash(parameters: parameters, salt: salt, digest: try derive(password, salt: salt, parameters: parameters))
    }

    /// True when `password` gives `hash`; the comparison takes the same time wherever the
    /// digests differ.
    static func verify(_ password: String, against hash: Hash) throws -> Bool {
        let candidate = try derive(password, salt: hash.salt, parameters: hash.parameters)
        guard candidate.count == hash.digest.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate, hash.digest) { difference |= a ^ b }
        return difference == 0
    }

    private static func derive(_ password: String, salt: [UInt8], parameters: String) throws -> [UInt8] {
        let parts = parameters.split(separator: "$")
        guard parts.count == 4, parts[0] == "scrypt", let logN = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
            (1...24).contains(logN)
        else { throw HashError.unknownParameters(parameters) }
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: 1 << logN, blockSize: r,
            parallelism: p)
        return key.withUnsafeBytes { Array($0) }
    }

    enum HashError: Error, CustomStringConvertible {
        case unknownParameters(String)
        var description: String {
            switch self {
            case .unknownParameters(let p): "stored password hash has unknown parameters '\(p)'"
            }
        }
    }
}
