/// A password hash as it is stored: the key-derivation function with its parameters, the
/// salt and the derived digest.
///
/// The parameters travel with every hash (for example `scrypt$15$8$1`), so the host can raise
/// them later and hashes made before still verify.
public struct PasswordHash: Sendable, Equatable {
    /// The function and its parameters, e.g. `scrypt$15$8$1` (log2 N, r, p).
    public var parameters: String
    /// Random bytes chosen per password, so equal passwords give different digests.
    public var salt: [UInt8]
    /// The derived key.
    public var digest: [UInt8]

    /// A hash read back from storage (see `encoded`), to verify a password against.
    public init(parameters: String, salt: [UInt8], digest: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.digest = digest
    }
}

/// Derives and checks password hashes. The host provides it under `Services.passwords`.
///
/// It is a host service rather than a plugin's own code for two reasons: a plugin that links
/// a crypto library carries a second copy of it into the process (BoringSSL is several MiB of
/// memory per copy), and a plugin author should not have to choose a key-derivation function
/// and its parameters to store a password safely.
public protocol PasswordHashing: AnyObject, Sendable {
    /// A new hash of `password` with a fresh random salt and the host's current parameters.
    func hash(_ password: String) throws -> PasswordHash
    /// True when `password` gives `hash`, with the parameters stored in it. The comparison
    /// takes the same time wherever the digests differ. A hash whose parameters the host does
    /// not know is a thrown error, not a mismatch.
    func verify(_ password: String, against hash: PasswordHash) throws -> Bool
    /// A one-way digest (SHA-256, as 64 hex digits) of a long random secret, such as a login
    /// session token: what a feature stores in place of the secret, so that its table holds
    /// nothing that would log anyone in. Fast and unsalted on purpose — the secret is random
    /// and long, so there is nothing to guess, and it must be found again by its digest. Never
    /// for a password, which a person chose: `hash` slows a guesser down; this does not.
    func digest(token: String) -> String
}
