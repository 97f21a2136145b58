#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>

#include "coordsh_loaded_library.h"

const char *coordsh_loaded_library_path(const char *name) {
    void *handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL) return NULL;
    struct link_map *map = NULL;
    const char *path = NULL;
    /* l_name lives as long as the library, which is never unloaded: this handle only adds a
     * reference, given back here. */
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL && map->l_name != NULL && map->l_name[0] != '\0')
        path = map->l_name;
    dlclose(handle);
    return path;
}
