import Glibc

/// The name of one app-wide service slot in `AppDependency`, interned to a small integer so
/// that "does this coordinator have what the handler needs" is a bit test.
public struct DependencyKey: Hashable, Sendable, CustomStringConvertible {
    /// The interned number: equal for equal names in this process, never stored or sent.
    public let id: Int32

    static let table = InternTable()

    /// The slot named `name` (`"cart"`): the same name is the same key in every plugin.
    public init(_ name: String) { id = DependencyKey.table.intern(name) }

    /// The name the key was made from, for messages and declarations.
    public var name: String { DependencyKey.table.string(for: id) }
    public var description: String { name }
}

/// A typed handle on a service slot: `ServiceKey<any CartManaging>("cart")`. Declare your own
/// beside the others, and read it typed from any coordinator or view:
///
///     extension Services {
///         static let wishlist = ServiceKey<WishlistStore>("wishlist")
///     }
///     let store = try require(Services.wishlist, for: "wishlist show")
///
/// The type parameter keeps reads typed at the call site while the storage stays open to
/// services that plugins define and provide at run time.
public struct ServiceKey<Service>: Sendable {
    /// The untyped slot, for declarations (`needs`, `provides`) that list keys of any type.
    public let key: DependencyKey
    /// The slot named `name`; two keys of one name are one slot, so give it one type.
    public init(_ name: String) { key = DependencyKey(name) }
}

/// A set of dependency keys, stored as a bit set so that checking a handler's needs on the
/// dispatch path costs a few word compares.
@_spi(Host) public struct DependencySet: Hashable, Sendable, Sequence {
    private var words: [UInt64] = []

    public init() {}
    public init(_ keys: [DependencyKey]) { for key in keys { insert(key) } }

    public mutating func insert(_ key: DependencyKey) {
        let (w, b) = (Int(key.id) / 64, UInt64(1) << UInt64(key.id % 64))
        while words.count <= w { words.append(0) }
        words[w] |= b
    }

    public mutating func remove(_ key: DependencyKey) {
        let (w, b) = (Int(key.id) / 64, UInt64(1) << UInt64(key.id % 64))
        if w < words.count { words[w] &= ~b }
    }

    /// Whether the slot is filled: a handler that needs it runs now instead of waiting.
    public func contains(_ key: DependencyKey) -> Bool {
        let (w, b) = (Int(key.id) / 64, UInt64(1) << UInt64(key.id % 64))
        return w < words.count && words[w] & b != 0
    }

    /// True when every key of `other` is in this set.
    @inline(__always)
    public func isSuperset(of other: DependencySet) -> Bool {
        for (i, word) in other.words.enumerated() where word != 0 {
            if i >= words.count || words[i] & word != word { return false }
        }
        return true
    }

    /// The keys of `other` that are not in this set.
    public func missing(from other: DependencySet) -> [DependencyKey] {
        other.filter { !contains($0) }
    }

    public var isEmpty: Bool { words.allSatisfy { $0 == 0 } }

    public func makeIterator() -> IndexingIterator<[DependencyKey]> {
        var keys: [DependencyKey] = []
        for (i, word) in words.enumerated() where word != 0 {
            for bit in 0..<64 where word & (UInt64(1) << UInt64(bit)) != 0 {
                keys.append(DependencyKey(id: Int32(i * 64 + bit)))
            }
        }
        return keys.makeIterator()
    }
}

extension DependencyKey {
    init(id: Int32) { self.id = id }
}

/// The app-wide services, handed down the coordinator tree.
///
/// As in the iOS pattern, the app owns the services and builds one `AppDependency` value from
/// them; setting it on a coordinator passes it to every child. It is a value type so that each
/// coordinator holds a consistent snapshot and a change is an explicit, propagated event.
public struct AppDependency {
    private var services: [Int32: Any] = [:]
    private var providers: [Int32: String] = [:]
    /// Which slots are filled; handlers' needs are checked against this.
    @_spi(Host) public private(set) var keys = DependencySet()
    /// Incremented on every change, so observers can tell two snapshots apart cheaply.
    public private(set) var revision = 0
    /// Guarded slots this view was not granted (see `FeatureAccess`): empty here, and a need
    /// of them is refused at once instead of waiting for a service that will never come.
    @_spi(Host) public private(set) var denied = DependencySet()

    /// What typed reads found, by slot: the service boxed as the type it was read as. Copies of
    /// one value hold the same services and share it; `set` gives the value a new one.
    private var typedReads = TypedReads()

    /// No service at all: what a level has before the host passes the app's services down.
    public init() {}

    /// Reads or fills a typed slot. Setting nil empties it.
    public subscript<Service>(key: ServiceKey<Service>) -> Service? {
        get {
            do { return try required(key) } catch { return nil }
        }
        set { set(key.key, newValue, provider: nil) }
    }

    /// What the getter reads, with no service thrown instead of answered nil: for generic code
    /// in the SDK that needs the service itself (`Responder.require`). Code generic over a type
    /// it does not know that holds an optional of it (the getter's answer) asks the runtime for
    /// that optional's metadata at each call — ≈ 450 instructions, more than the read; this
    /// holds none.
    func required<Service>(_ key: ServiceKey<Service>) throws(NoService) -> Service {
        let id = key.key.id
        // A handler reads the same slots at every command; casting the stored `Any` to a
        // service protocol looks its conformance up each time (4 % of a batch script),
        // where the box of an earlier read costs a class check.
        let kept = typedReads.isOwnThread
        if kept, let read = typedReads.read(id), read.holds(Service.self) { return read.value(as: Service.self) }
        // An empty slot (nobody logged in: the user) answers from the filled slots' bits;
        // it was looked up, tested for a placeholder and cast at every read. After the kept
        // reads, so that a filled slot's read does not pay for the test.
        guard keys.contains(key.key) else { throw NoService() }
        return try readStored(id, as: Service.self, keeping: kept)
    }

    /// An empty slot, or one whose service is not a `Service` (`required`).
    struct NoService: Error {}

    /// The slot's service cast to `Service`, kept for the next typed read when `keeping`. Apart
    /// from the getter, whose fast path then needs no metadata but `Service`'s own.
    @inline(never)
    private func readStored<Service>(_ id: Int32, as _: Service.Type, keeping: Bool) throws(NoService) -> Service {
        let stored = services[id]
        // The placeholder of an unloaded feature is read through each time (it loads the
        // plugin), and known by its class before any cast to the service's protocol, which
        // for it could only fail, after a search of every conformance record.
        if let deferred = exactly(stored, DeferredService.self) {
            if let service = deferred.service() as? Service { return service }
            throw NoService()
        }
        if let service = stored as? Service {
            if keeping { typedReads.remember(TypedRead(service), for: id) }
            return service
        }
        throw NoService()
    }

    /// Fills a slot and records who provided it, for `deps`.
    public mutating func set(_ key: DependencyKey, _ service: Any?, provider: String?) {
        revision += 1
        typedReads = TypedReads()
        if let service {
            services[key.id] = service
            providers[key.id] = provider
            keys.insert(key)
        } else {
            services[key.id] = nil
            providers[key.id] = nil
            keys.remove(key)
        }
    }

    /// The untyped service in a slot (nil for a sealed one).
    public func service(_ key: DependencyKey) -> Any? {
        let stored = services[key.id]
        if let deferred = exactly(stored, DeferredService.self) { return deferred.service() }
        if exactly(stored, SealedService.self) != nil { return nil }
        return stored
    }

    /// True when this view was refused the guarded service in `key`'s slot.
    public func isDenied(_ key: DependencyKey) -> Bool { denied.contains(key) }

    mutating func markDenied(_ key: DependencyKey) { denied.insert(key) }

    /// The slot as stored: a placeholder of a feature not loaded is returned as is.
    func stored(_ key: DependencyKey) -> Any? { services[key.id] }

    /// False when the slot is filled by a feature whose plugin is not loaded yet (reading it
    /// would load the plugin).
    public func isLoaded(_ key: DependencyKey) -> Bool { exactly(services[key.id], DeferredService.self) == nil }

    /// Who provided a slot (`host`, or a plugin's name).
    public func provider(of key: DependencyKey) -> String? { providers[key.id] }

    /// Whether the slot is filled: a handler that needs it runs now instead of waiting.
    public func contains(_ key: DependencyKey) -> Bool { keys.contains(key) }

    /// One entry per filled slot, sorted by name: what `deps` shows.
    public var entries: [(key: String, provider: String, type: String)] {
        keys.map { key in
            let service = services[key.id]
            let type = exactly(service, DeferredService.self) != nil ? "not loaded yet" : exactly(service, SealedService.self) != nil ? "guarded" : service.map { String(describing: Swift.type(of: $0)) } ?? "?"
            return (key.name, providers[key.id] ?? "?", type)
        }.sorted { $0.key < $1.key }
    }
}

/// The services one `AppDependency` value's typed reads found, by slot number. Only ever
/// added to: the services it stands for never change (a change makes a new value).
final class TypedReads {
    /// The thread that made it, the only one that reads or fills it: `AppDependency` is not
    /// `Sendable`, but a plugin in an older language mode may read a copy from another thread,
    /// which reads the slots themselves, as before, and never changes what copies share.
    private let owner = pthread_self()
    // Unchecked: read or filled in one step by the getter, never held across a call; each
    // typed read's access check cost more than the rest of a kept read.
    @exclusivity(unchecked) private var reads: ContiguousArray<TypedRead?> = []

    var isOwnThread: Bool { pthread_equal(pthread_self(), owner) != 0 }

    func read(_ id: Int32) -> TypedRead? {
        Int(id) < reads.count ? reads[Int(id)] : nil
    }

    func remember(_ read: TypedRead, for id: Int32) {
        if reads.count <= Int(id) { reads.append(contentsOf: repeatElement(nil, count: Int(id) + 1 - reads.count)) }
        reads[Int(id)] = read
    }
}

/// A service as one typed read found it: its value, as the type read, with that type's identity.
///
/// Not a generic box (`TypedRead<Service>`, as it was): casting to one looked its metadata up
/// for the type read at every read (`swift_getGenericMetadata`, a hash lookup, ≈ 400
/// instructions); here the type read is compared with the one kept, and the value is copied
/// out of storage laid out for it.
final class TypedRead {
    private let type: ObjectIdentifier
    private let storage: UnsafeMutableRawPointer
    private let destroy: (UnsafeMutableRawPointer) -> Void

    init<Service>(_ service: Service) {
        type = ObjectIdentifier(Service.self)
        storage = .allocate(byteCount: max(MemoryLayout<Service>.size, 1), alignment: MemoryLayout<Service>.alignment)
        storage.initializeMemory(as: Service.self, to: service)
        destroy = { $0.assumingMemoryBound(to: Service.self).deinitialize(count: 1) }
    }

    deinit {
        destroy(storage)
        storage.deallocate()
    }

    /// Whether the value was kept as `Service` — the very type, not one it converts to.
    func holds<Service>(_: Service.Type) -> Bool { type == ObjectIdentifier(Service.self) }

    /// The value, which `holds(Service.self)` said is a `Service`. (Not an optional: making
    /// one here looked up `Optional<Service>`'s metadata at every read.)
    func value<Service>(as _: Service.Type) -> Service {
        precondition(holds(Service.self), "a typed read asked for another type than it kept")
        return storage.assumingMemoryBound(to: Service.self).pointee
    }
}

/// Anything that takes the app-wide services from its parent.
///
/// Coordinators and page views conform. Setting `dependencies` on a coordinator hands the same
/// value to its children (`updateChildCoordinatorDependencies`) and replays queued messages
/// that were waiting for a service that is now there.
@MainActor
public protocol NeedsDependency: AnyObject {
    /// The services as this level sees them (the app's, laid over with its scene's); nil
    /// before the level is in a tree.
    var dependencies: AppDependency? { get set }
}

extension Responder {
    /// The service in `key`'s slot, or a one-line error that names what is missing — for
    /// handlers that cannot do anything useful without it and should not wait for it.
    public func require<Service>(_ key: ServiceKey<Service>, for context: String) throws -> Service {
        // A copy: reading a service may load its plugin, which hands every level new
        // dependencies (see `Responder.parent` on why they are unchecked).
        let dependencies = self.dependencies
        if dependencies?.isDenied(key.key) == true { throw CoordError.notGranted(.service(key.key.name), context: context, plugin: pluginName) }
        // `required`, not the optional getter (nor `try?`, which makes one): see there.
        if let dependencies {
            do { return try dependencies.required(key) } catch {}
        }
        throw CoordError.failed("\(context): no loaded plugin provides '\(key.key.name)'; 'plugins' shows what is loaded")
    }
}
