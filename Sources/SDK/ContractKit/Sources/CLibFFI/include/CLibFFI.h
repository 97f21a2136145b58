/*
 * A small shim over libffi for Swift 6.
 *
 * libffi describes C types with global variables (ffi_type_pointer, ffi_type_sint32, …).
 * Swift 6 treats imported mutable globals as unsafe shared state, so the host reads them
 * through these accessors instead.
 */
#ifndef COORDSH_CLIBFFI_H
#define COORDSH_CLIBFFI_H

#include <ffi.h>

ffi_type *coordsh_ffi_type_pointer(void);
ffi_type *coordsh_ffi_type_sint32(void);
ffi_type *coordsh_ffi_type_sint64(void);
ffi_type *coordsh_ffi_type_double(void);

#endif
