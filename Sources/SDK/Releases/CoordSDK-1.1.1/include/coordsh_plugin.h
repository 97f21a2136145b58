/*
 * The coordsh plugin ABI: version 1 (Swift plugins) and version 2 (plain C).
 *
 * A plugin is a shared object that exports exactly one C symbol, COORDSH_PLUGIN_ENTRY,
 * with the signature coordsh_plugin_entry_fn. The host resolves it with dlsym and calls it
 * through libffi. The entry fills the descriptor.
 *
 * Version 1: `plugin` is a retained Swift object. The host compares every version field
 * before it touches any Swift type of the plugin, because Swift has no stable ABI on Linux:
 * a plugin must be built by the same compiler against the same SDK version.
 *
 * Version 2: `feature` describes one feature in plain C data — its pages, each with a
 * render function, and its messages, each with a handler that is an ordinary C function with
 * typed parameters, which the host calls through libffi. No Swift type crosses: a plugin in
 * C, Rust, Zig or anything that speaks C, built by any compiler, loads (sdk_version and
 * swift_version are not read). See "Version 2" below.
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
    /* Version 2 only (appended: a version 1 plugin never writes them; the host zeroes the
     * descriptor before the entry fills it). */
    const struct coordsh_feature *feature;
    /* sizeof(coordsh_feature) as the plugin was built: coordsh_feature's fields are only
     * appended, and the host reads only those the plugin's size covers. 0 means the first
     * version's (up to migration_count, without `complete`). */
    uint32_t feature_size;
} coordsh_plugin_descriptor;

/* Returns 0 on success; anything else is a refusal with descriptor->error as the reason. */
typedef int32_t (*coordsh_plugin_entry_fn)(coordsh_plugin_descriptor *descriptor);

/* ------------------------------------------------------------------------------------------
 * Version 2: a feature in plain C.
 *
 * Ownership and lifetime. Everything the entry points `descriptor->feature` at (the feature,
 * its arrays and strings) is the plugin's and must live as long as the process: static data,
 * as in the examples. The host copies what it keeps. A string the host passes to the plugin
 * (a handler's argument, an argument read with arg_string, a row's text) is UTF-8,
 * NUL-terminated and valid until the call it was passed in returns: copy it to keep it. A
 * string the plugin passes to the host (set_error, add_line, …) is copied before the host
 * function returns. Strings must be UTF-8: anything else is refused in one line.
 *
 * Threads. The host calls the entry, every render function and every handler on its one
 * main thread, one at a time, and the host functions may be called only from inside such a
 * call, on that thread, with the ctx it was given. A ctx is valid only during that call.
 * ------------------------------------------------------------------------------------------ */
#define COORDSH_PLUGIN_ABI_VERSION_C 2u

/* The types of a page parameter or a message argument. */
enum {
    COORDSH_TYPE_INT = 1,    /* int64_t;     optional: const int64_t * (NULL when not given) */
    COORDSH_TYPE_BOOL = 2,   /* int32_t 0/1; optional: const int32_t * (NULL when not given) */
    COORDSH_TYPE_STRING = 3, /* const char *; optional: the same, NULL when not given */
    COORDSH_TYPE_ROUTE = 4,  /* a page as text ("content/product id=7"): passed as a string */
    COORDSH_TYPE_DOUBLE = 5  /* double, finite; optional: const double * (NULL when not given) */
};

typedef struct coordsh_param {
    const char *name;    /* lower camel case, unique in its page or message */
    int32_t type;        /* COORDSH_TYPE_… */
    int32_t optional;    /* non-zero: may be left out (see the types above) */
    const char *summary; /* one line for help; may be NULL */
} coordsh_param;

typedef struct coordsh_ctx coordsh_ctx;

/* Renders one page: read the page's arguments with arg_int/arg_string, give a title with
 * set_title and lines with add_line. Return 0, or non-zero with set_error to say why not. */
typedef int32_t (*coordsh_render_fn)(coordsh_ctx *ctx);

typedef struct coordsh_page {
    const char *name;               /* the route's page name: "list" in "notes/list" */
    const coordsh_param *params;
    int32_t param_count;
    const char *summary;            /* one line for `pages` and help */
    coordsh_render_fn render;
} coordsh_page;

/* A message handler is an ordinary C function (it shows a page with display, or leaves a
 * note; nothing is shown for it otherwise),
 *     int32_t handler(coordsh_ctx *ctx, <one parameter per declared argument, in order>);
 * e.g. int32_t notes_add(coordsh_ctx *ctx, const char *text, const int64_t *priority).
 * The host calls it through libffi with the argument types the message declares. Return 0,
 * or non-zero with set_error (a non-zero return without a message is reported as such). */
typedef void (*coordsh_handler_fn)(void);

typedef struct coordsh_message {
    const char *verb;               /* "add": with the prefix "notes", the message notesAdd */
    const coordsh_param *params;
    int32_t param_count;
    const char *summary;
    const char *const *needs;       /* services it waits for, e.g. "user"; may be NULL */
    int32_t need_count;
    const char *waiting;            /* what the person is told while it waits; may be NULL */
    coordsh_handler_fn handler;
} coordsh_message;

typedef struct coordsh_feature {
    const char *name;               /* the feature's name: also the name of its routes */
    const char *prefix;             /* the message prefix: "notes" */
    const char *summary;
    const coordsh_page *pages;      /* at least one */
    int32_t page_count;
    const coordsh_message *messages;
    int32_t message_count;
    const char *const *uses;        /* capabilities in text form ("read products"); may be NULL */
    int32_t use_count;
    const char *const *migrations;  /* SQL statements, applied once each, in order, as steps
                                       "c1", "c2", …: append, never edit or reorder */
    int32_t migration_count;
    /* Since feature_size covers it; may be NULL. Offers values for the parameter named
     * `parameter` (of any of the feature's pages or messages) while the person types, Tab at
     * the prompt: call add_line once per value. Called on the main thread like a render
     * function, with no page or message: display and send fail here; sql, setting and login
     * work. Return 0 (offering nothing is 0 with no line). */
    int32_t (*complete)(coordsh_ctx *ctx, const char *parameter);
} coordsh_feature;

/* One SQL value: a bound parameter, or a column of a row. */
enum { COORDSH_SQL_NULL = 0, COORDSH_SQL_INTEGER = 1, COORDSH_SQL_REAL = 2, COORDSH_SQL_TEXT = 3 };
typedef struct coordsh_value {
    int32_t type;      /* COORDSH_SQL_… */
    int64_t integer;
    double real;
    const char *text;
} coordsh_value;

/* Called once per row; return non-zero to stop reading. `names` and `values` are valid
 * during the call only. */
typedef int32_t (*coordsh_row_fn)(void *user, int32_t columns, const char *const *names, const coordsh_value *values);

/* What the host does for a C plugin. Fields are only ever appended: check `size` before
 * using a field a newer host added. */
typedef struct coordsh_host {
    uint32_t size;  /* sizeof(coordsh_host) as the host was built */
    /* The command fails with this line (the handler or render function then returns non-zero). */
    void (*set_error)(coordsh_ctx *ctx, const char *message);
    /* A note shown to the person after the command. */
    void (*note)(coordsh_ctx *ctx, const char *line);
    /* Shows a page of any feature by its route ("notes/item id=3", "account/login"). */
    int32_t (*display)(coordsh_ctx *ctx, const char *route);
    /* Sends a message by name ("cartAdd") with arguments as text, checked and typed by the
     * receiving feature's declaration. */
    int32_t (*send)(coordsh_ctx *ctx, const char *message, int32_t count, const char *const *names, const char *const *values);
    /* Rendering: this page's arguments, and its output. arg_int returns 1 and fills *value
     * when the argument was given, 0 otherwise; arg_string returns NULL when it was not. */
    int32_t (*arg_int)(coordsh_ctx *ctx, const char *name, int64_t *value);
    const char *(*arg_string)(coordsh_ctx *ctx, const char *name);
    void (*set_title)(coordsh_ctx *ctx, const char *title);
    void (*add_line)(coordsh_ctx *ctx, const char *line);
    /* Runs one statement on the feature's data (its own tables, and what it declared and was
     * granted), `?` placeholders bound to `values` in order; `row` (may be NULL) is called for
     * each row. Returns 0, or non-zero after set_error with the database's one-line reason.
     * A blob column is refused (there is no blob value): select hex(…) or CAST(… AS TEXT). */
    int32_t (*sql)(coordsh_ctx *ctx, const char *sql, int32_t count, const coordsh_value *values, coordsh_row_fn row, void *user);
    /* A key of the feature's own table of the config ([notes] key = "…") as text; NULL when unset. */
    const char *(*setting)(coordsh_ctx *ctx, const char *key);
    /* Who is logged in in this scene (the login feature's name for them), NULL for nobody. */
    const char *(*login)(coordsh_ctx *ctx);
    /* Rendering: a page's number argument (COORDSH_TYPE_DOUBLE), as arg_int. */
    int32_t (*arg_double)(coordsh_ctx *ctx, const char *name, double *value);
} coordsh_host;

/* What a render function or a handler is given. Only `host` is the plugin's to read. */
struct coordsh_ctx {
    const coordsh_host *host;
    void *host_private;
};

#endif
