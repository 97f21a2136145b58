/*
 * The coordsh plugin ABI, version 1.
 *
 * A plugin is a shared object that exports exactly one C symbol, COORDSH_PLUGIN_ENTRY,
 * with the signature coordsh_plugin_entry_fn. The host resolves it with dlsym and calls it
 * through libffi. The entry fills the descriptor; the host then compares every version
 * field before it touches any Swift type of the plugin, because Swift has no stable ABI on
 * Linux: a plugin must be built by the same compiler against the same SDK version.
 */
#ifndef COORDSH_PLUGIN_H
#define COORDSH_PLUGIN_H

#include <stdint.h>

/* 'COOR' — rejects shared objects that merely happen to export a symbol of that name. */
#define COORDSH_PLUGIN_MAGIC 0x434F4F52u
/* Bumped whenever this struct or the entry signature changes. */
#define COORDSH_PLUGIN_ABI_VERSION 1u
#define COORDSH_PLUGIN_ENTRY "coordsh_plugin_entry"

typedef struct coordsh_plugin_descriptor {
    uint32_t magic;          /* COORDSH_PLUGIN_MAGIC */
    uint32_t abi_version;    /* COORDSH_PLUGIN_ABI_VERSION the plugin was built for */
    const char *sdk_version; /* CoordSDK version the plugin was compiled against */
    const char *swift_version; /* Swift compiler version that compiled the plugin */
    const char *name;        /* feature plugin name, e.g. "cart" */
    const char *version;     /* the plugin's own version, e.g. "1.0.0" */
    void *plugin;            /* +1 retained Swift object conforming to CoordSDK.CoordPlugin */
    const char *error;       /* a reason when the entry returns non-zero; may be NULL */
} coordsh_plugin_descriptor;

/* Returns 0 on success; anything else is a refusal with descriptor->error as the reason. */
typedef int32_t (*coordsh_plugin_entry_fn)(coordsh_plugin_descriptor *descriptor);

#endif
