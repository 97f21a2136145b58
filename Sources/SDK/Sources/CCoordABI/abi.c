// The ABI is the header; this file gives the C target something to compile, and the host's
// one helper that needs _GNU_SOURCE (coordsh_image.h).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include "coordsh_plugin.h"
#include "coordsh_image.h"

const void *coordsh_image_base(const void *address, const char **path) {
    Dl_info info;
    if (dladdr(address, &info) == 0) return NULL;
    if (path) *path = info.dli_fname;
    return info.dli_fbase;
}
