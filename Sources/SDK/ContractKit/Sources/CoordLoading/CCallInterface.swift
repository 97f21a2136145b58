import CLibFFI
@_spi(Host) import CoordSDK
#if canImport(Glibc)
import Glibc
#endif

/// Calls a C plugin's handlers, whose signatures the host learns at run time from what each
/// message declares: `int32_t handler(coordsh_ctx *, <one C parameter per argument>)`.
///
/// libffi's call interface (`ffi_prep_cif`) is prepared once per distinct signature and kept;
/// each call lays the message's typed arguments out as the C calling convention wants them
/// (an `int64_t`, an `int32_t` flag, a `double`, a `const char *`, or for an optional one a pointer that
/// is NULL when it was not given), calls, and frees what it allocated.
///
/// Only its cache is the main actor's: a call is not isolated, so that the closures it runs
/// in (the stack buffers) are not checked for the main actor's executor on every call. It is
/// only ever called from a handler or a render function, on the main thread.
final class CCallInterface {
    /// How one argument is passed.
    struct Slot: Hashable {
        let kind: CFeatureDescription.Kind
        let optional: Bool
    }

    @MainActor private static var prepared: [[Slot]: CCallInterface] = [:]

    /// The interface for `int32_t f(coordsh_ctx *, slots…)`, prepared on first use; nil if
    /// libffi refuses it (it does not for these types).
    @MainActor static func interface(for slots: [Slot]) -> CCallInterface? {
        if let known = prepared[slots] { return known }
        guard let made = CCallInterface(slots) else { return nil }
        prepared[slots] = made
        return made
    }

    let slots: [Slot]
    /// libffi's description of the call, in memory of its own: a call made during another
    /// of the same signature reads it too, which an inout access to a stored property would
    /// forbid (Swift's exclusivity check stops the process).
    private let cif: UnsafeMutablePointer<ffi_cif>
    private let types: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>
    /// The interface's own argument buffer — per slot, 8 bytes of argument and 8 of what an
    /// optional one points to, after 16 for the ctx — and the pointers libffi reads, which
    /// point into it and are set once. A call made while another is running (a handler that
    /// sends a message handled by a function of the same signature) uses the stack instead.
    private let storage: UnsafeMutableRawPointer
    private let pointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private var busy = false

    private init?(_ slots: [Slot]) {
        self.slots = slots
        types = .allocate(capacity: slots.count + 1)
        types[0] = coordsh_ffi_type_pointer()
        for (index, slot) in slots.enumerated() {
            types[index + 1] = switch (slot.kind, slot.optional) {
            case (.int, false): coordsh_ffi_type_sint64()
            case (.bool, false): coordsh_ffi_type_sint32()
            case (.double, false): coordsh_ffi_type_double()
            default: coordsh_ffi_type_pointer()
            }
        }
        cif = .allocate(capacity: 1)
        cif.initialize(to: ffi_cif())
        storage = .allocate(byteCount: 16 * (slots.count + 1), alignment: 8)
        pointers = .allocate(capacity: slots.count + 1)
        for index in 0...slots.count { pointers[index] = storage + 16 * index }
        guard ffi_prep_cif(cif, FFI_DEFAULT_ABI, UInt32(slots.count + 1), coordsh_ffi_type_sint32(), types) == FFI_OK else {
            types.deallocate()
            cif.deallocate()
            storage.deallocate()
            pointers.deallocate()
            return nil
        }
    }

    /// Calls `function(ctx, values…)` and returns its `int32_t`, each slot's value (nil for an
    /// optional one not given, already checked against the declaration) read by `value(index)`
    /// as it is laid out: a message's arguments by name, with no array made for them. Only a string argument is copied (it
    /// must end with a NUL the plugin can read), and freed after the call.
    func call(_ function: coordsh_handler_fn, context: UnsafeMutablePointer<coordsh_ctx>, value: (Int) -> CArgument) -> Int32 {
        guard !busy else { return callOnTheStack(function, context: context, value: value) }
        busy = true
        defer { busy = false }
        return invoke(function, context: context, base: storage, pointers: pointers, value: value)
    }

    /// A call during a call: its buffers on the stack.
    private func callOnTheStack(_ function: coordsh_handler_fn, context: UnsafeMutablePointer<coordsh_ctx>, value: (Int) -> CArgument) -> Int32 {
        let count = slots.count
        return withUnsafeTemporaryAllocation(byteCount: 16 * (count + 1), alignment: 8) { bytes in
            withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: count + 1) { arguments in
                guard let base = bytes.baseAddress, let pointers = arguments.baseAddress else { return -1 }
                for index in 0...count { pointers[index] = base + 16 * index }
                return invoke(function, context: context, base: base, pointers: pointers, value: value)
            }
        }
    }

    /// Lays the arguments out in `base` (whose slots `pointers` point at) and calls.
    private func invoke(
        _ function: coordsh_handler_fn, context: UnsafeMutablePointer<coordsh_ctx>, base: UnsafeMutableRawPointer,
        pointers: UnsafeMutablePointer<UnsafeMutableRawPointer?>, value: (Int) -> CArgument
    ) -> Int32 {
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { for pointer in owned { free(pointer) } }
        base.storeBytes(of: UnsafeMutableRawPointer(context), as: UnsafeMutableRawPointer.self)
        for index in 0..<slots.count {
            let place = base + 16 * (index + 1), box = place + 8
            let slot = slots[index]
            // What the door let through: each argument of its declared kind, or absent when an
            // optional one was left out. Anything else (which the door does not let through)
            // is passed as nothing of the slot's C type: 0, or a NULL pointer.
            switch (slot.kind, slot.optional, value(index)) {
            case (.int, false, .int(let number)): place.storeBytes(of: Int64(number), as: Int64.self)
            case (.bool, false, .bool(let flag)): place.storeBytes(of: Int32(flag ? 1 : 0), as: Int32.self)
            case (.double, false, .double(let number)): place.storeBytes(of: number, as: Double.self)
            case (.int, true, .int(let number)):
                box.storeBytes(of: Int64(number), as: Int64.self)
                place.storeBytes(of: box, as: UnsafeMutableRawPointer.self)
            case (.bool, true, .bool(let flag)):
                box.storeBytes(of: Int32(flag ? 1 : 0), as: Int32.self)
                place.storeBytes(of: box, as: UnsafeMutableRawPointer.self)
            case (.double, true, .double(let number)):
                box.storeBytes(of: number, as: Double.self)
                place.storeBytes(of: box, as: UnsafeMutableRawPointer.self)
            case (.string, _, .text(let text)), (.route, _, .text(let text)):
                let copy = strdup(text)
                if let copy { owned.append(copy) }
                place.storeBytes(of: copy.map(UnsafeMutableRawPointer.init), as: UnsafeMutableRawPointer?.self)
            case (.int, false, _): place.storeBytes(of: Int64(0), as: Int64.self)
            case (.bool, false, _): place.storeBytes(of: Int32(0), as: Int32.self)
            case (.double, false, _): place.storeBytes(of: Double(0), as: Double.self)
            default: place.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
            }
        }
        var result: ffi_arg = 0
        ffi_call(cif, function, &result, pointers)
        return Int32(truncatingIfNeeded: result)
    }
}
