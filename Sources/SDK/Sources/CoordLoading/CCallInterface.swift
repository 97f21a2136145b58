import CCoordABI
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
/// (an `int64_t`, an `int32_t` flag, a `const char *`, or for an optional one a pointer that
/// is NULL when it was not given), calls, and frees what it allocated.
@MainActor
final class CCallInterface {
    /// How one argument is passed.
    struct Slot: Hashable {
        let kind: CFeatureDescription.Kind
        let optional: Bool
    }

    private static var prepared: [[Slot]: CCallInterface] = [:]

    /// The interface for `int32_t f(coordsh_ctx *, slots…)`, prepared on first use; nil if
    /// libffi refuses it (it does not for these types).
    static func interface(for slots: [Slot]) -> CCallInterface? {
        if let known = prepared[slots] { return known }
        guard let made = CCallInterface(slots) else { return nil }
        prepared[slots] = made
        return made
    }

    let slots: [Slot]
    private var cif = ffi_cif()
    private let types: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>

    private init?(_ slots: [Slot]) {
        self.slots = slots
        types = .allocate(capacity: slots.count + 1)
        types[0] = coordsh_ffi_type_pointer()
        for (index, slot) in slots.enumerated() {
            types[index + 1] = switch (slot.kind, slot.optional) {
            case (.int, false): coordsh_ffi_type_sint64()
            case (.bool, false): coordsh_ffi_type_sint32()
            default: coordsh_ffi_type_pointer()
            }
        }
        guard ffi_prep_cif(&cif, FFI_DEFAULT_ABI, UInt32(slots.count + 1), coordsh_ffi_type_sint32(), types) == FFI_OK else {
            types.deallocate()
            return nil
        }
    }

    /// Calls `function(ctx, values…)` and returns its `int32_t`. `values` holds one value (or
    /// nil for an optional one not given) per slot, already checked against the declaration.
    func call(_ function: coordsh_handler_fn, context: UnsafeMutablePointer<coordsh_ctx>, values: [Value?]) -> Int32 {
        // Each argument's bytes (8 suffice for every slot), and what they point to.
        var storage: [UnsafeMutableRawPointer] = []
        var owned: [UnsafeMutableRawPointer] = []
        defer {
            for pointer in storage { pointer.deallocate() }
            for pointer in owned { free(pointer) }
        }
        func slot() -> UnsafeMutableRawPointer {
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
            pointer.storeBytes(of: 0, as: UInt64.self)
            storage.append(pointer)
            return pointer
        }
        func boxed<T>(_ value: T) -> UnsafeMutableRawPointer {
            let box = slot()
            box.storeBytes(of: value, as: T.self)
            return box
        }
        func string(_ text: String) -> UnsafeMutableRawPointer? {
            guard let copy = strdup(text) else { return nil }
            owned.append(UnsafeMutableRawPointer(copy))
            return UnsafeMutableRawPointer(copy)
        }
        let contextSlot = slot()
        contextSlot.storeBytes(of: UnsafeMutableRawPointer(context), as: UnsafeMutableRawPointer.self)
        var arguments: [UnsafeMutableRawPointer?] = [contextSlot]
        for (value, slotType) in zip(values, slots) {
            let place = slot()
            switch (slotType.kind, slotType.optional, value) {
            case (.int, false, let value):
                place.storeBytes(of: Int64(value?.intValue ?? 0), as: Int64.self)
            case (.bool, false, let value):
                place.storeBytes(of: Int32(value?.boolValue == true ? 1 : 0), as: Int32.self)
            case (.int, true, .some(let value)):
                place.storeBytes(of: boxed(Int64(value.intValue ?? 0)), as: UnsafeMutableRawPointer.self)
            case (.bool, true, .some(let value)):
                place.storeBytes(of: boxed(Int32(value.boolValue == true ? 1 : 0)), as: UnsafeMutableRawPointer.self)
            case (.string, _, .some(let value)), (.route, _, .some(let value)):
                place.storeBytes(of: string(value.description), as: UnsafeMutableRawPointer?.self)
            case (_, _, nil):
                place.storeBytes(of: nil, as: UnsafeMutableRawPointer?.self)
            }
            arguments.append(place)
        }
        var result: ffi_arg = 0
        arguments.withUnsafeMutableBufferPointer { buffer in
            ffi_call(&cif, function, &result, buffer.baseAddress)
        }
        return Int32(truncatingIfNeeded: result)
    }
}
