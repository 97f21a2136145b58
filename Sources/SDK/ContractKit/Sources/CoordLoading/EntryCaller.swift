import CoordSDK  // and the plugin ABI's C declarations (CCoordABI), which it re-exports
import CLibFFI

/// Calls a plugin's C entry point through libffi.
///
/// The entry's address comes from `dlsym` as an untyped pointer. Casting it to a Swift
/// function type would bake the assumed signature into the call site with nothing to check it;
/// libffi makes the C signature explicit data (`ffi_prep_cif`, once per signature) and the call
/// itself (`ffi_call`, per plugin) follows the platform's C calling convention exactly.
@MainActor
final class EntryCaller {
    /// The one caller for the ABI version 1 signature; prepared on first use.
    static let shared: EntryCaller? = EntryCaller()

    /// `int32_t entry(coordsh_plugin_descriptor *)` — the ABI version 1 signature.
    private var cif = ffi_cif()
    private let argumentTypes: UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>

    private init?() {
        argumentTypes = .allocate(capacity: 1)
        argumentTypes[0] = coordsh_ffi_type_pointer()
        guard ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 1, coordsh_ffi_type_sint32(), argumentTypes) == FFI_OK else {
            argumentTypes.deallocate()
            return nil
        }
    }

    /// Calls `entry(descriptor)` and returns its `int32_t` result.
    func call(_ entry: UnsafeMutableRawPointer, _ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>) -> Int32 {
        // libffi widens integral return values to a full register (`ffi_arg`).
        var result: ffi_arg = 0
        var argument: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(descriptor)
        let function = unsafeBitCast(entry, to: (@convention(c) () -> Void).self)
        withUnsafeMutablePointer(to: &argument) { argumentPointer in
            var values: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(argumentPointer)]
            values.withUnsafeMutableBufferPointer { buffer in
                ffi_call(&cif, function, &result, buffer.baseAddress)
            }
        }
        return Int32(truncatingIfNeeded: result)
    }
}
