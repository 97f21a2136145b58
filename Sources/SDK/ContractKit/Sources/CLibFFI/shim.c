#include "CLibFFI.h"

ffi_type *coordsh_ffi_type_pointer(void) { return &ffi_type_pointer; }
ffi_type *coordsh_ffi_type_sint32(void) { return &ffi_type_sint32; }
ffi_type *coordsh_ffi_type_sint64(void) { return &ffi_type_sint64; }
ffi_type *coordsh_ffi_type_double(void) { return &ffi_type_double; }
