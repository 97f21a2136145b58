/* A notes plugin in C: its own table, a page per note, and messages that wait for a login.
 * Build: cc -shared -fPIC -o libnotes.so -I SDK/Sources/CCoordABI/include notes.c */
#include <coordsh_plugin.h>
#include <stdio.h>
#include <string.h>

/* Every row of the person's notes becomes a line of the list page. */
static int32_t list_row(void *user, int32_t columns, const char *const *names, const coordsh_value *values) {
    (void)columns; (void)names;
    coordsh_ctx *c = user;
    char line[600];
    snprintf(line, sizeof line, "#%lld  %s", (long long)values[0].integer, values[1].text ? values[1].text : "");
    c->host->add_line(c, line);
    return 0;
}

static int32_t render_list(coordsh_ctx *c) {
    const char *who = c->host->login(c);
    c->host->set_title(c, "Notes");
    if (!who) { c->host->add_line(c, "(log in to see your notes)"); return 0; }
    coordsh_value owner = {COORDSH_SQL_TEXT, 0, 0, who};
    return c->host->sql(c, "SELECT id, text FROM notes WHERE owner = ? ORDER BY id", 1, &owner, list_row, c);
}

static int32_t item_row(void *user, int32_t columns, const char *const *names, const coordsh_value *values) {
    (void)columns; (void)names;
    coordsh_ctx *c = user;
    c->host->add_line(c, values[0].text ? values[0].text : "");
    return 1;
}

static int32_t render_item(coordsh_ctx *c) {
    int64_t id = 0;
    const char *who = c->host->login(c);
    if (!c->host->arg_int(c, "id", &id) || !who) { c->host->set_error(c, "no such note"); return 1; }
    char title[64];
    snprintf(title, sizeof title, "Note %lld", (long long)id);
    c->host->set_title(c, title);
    coordsh_value args[] = {{COORDSH_SQL_INTEGER, id, 0, 0}, {COORDSH_SQL_TEXT, 0, 0, who}};
    return c->host->sql(c, "SELECT text FROM notes WHERE id = ? AND owner = ?", 2, args, item_row, c);
}

/* notes add TEXT [PRIORITY]: an ordinary C function with typed parameters, called through libffi. */
static int32_t notes_add(coordsh_ctx *c, const char *text, const int64_t *priority) {
    coordsh_value args[] = {{COORDSH_SQL_TEXT, 0, 0, c->host->login(c)}, {COORDSH_SQL_TEXT, 0, 0, text},
                            {COORDSH_SQL_INTEGER, priority ? *priority : 0, 0, 0}};
    if (c->host->sql(c, "INSERT INTO notes (owner, text, priority) VALUES (?, ?, ?)", 3, args, 0, 0) != 0) return 1;
    return c->host->display(c, "notes/list");
}

static int32_t count_row(void *user, int32_t columns, const char *const *names, const coordsh_value *values) {
    (void)columns; (void)names;
    *(int64_t *)user = values[0].integer;
    return 1;
}

static int32_t notes_remove(coordsh_ctx *c, int64_t id) {
    int64_t found = 0;
    coordsh_value args[] = {{COORDSH_SQL_INTEGER, id, 0, 0}, {COORDSH_SQL_TEXT, 0, 0, c->host->login(c)}};
    if (c->host->sql(c, "SELECT count(*) FROM notes WHERE id = ? AND owner = ?", 2, args, count_row, &found) != 0) return 1;
    if (!found) {
        char message[80];
        snprintf(message, sizeof message, "notes remove: there is no note %lld of yours", (long long)id);
        c->host->set_error(c, message);
        return 1;
    }
    if (c->host->sql(c, "DELETE FROM notes WHERE id = ? AND owner = ?", 2, args, 0, 0) != 0) return 1;
    return c->host->display(c, "notes/list");
}

static int32_t notes_show(coordsh_ctx *c, int64_t id) {
    char route[64];
    snprintf(route, sizeof route, "notes/item id=%lld", (long long)id);
    return c->host->display(c, route);
}

static int32_t notes_list(coordsh_ctx *c) { return c->host->display(c, "notes/list"); }

/* Tab after `notes show` or `notes remove` offers the numbers of the person's notes. */
static int32_t id_row(void *user, int32_t columns, const char *const *names, const coordsh_value *values) {
    (void)columns; (void)names;
    coordsh_ctx *c = user;
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)values[0].integer);
    c->host->add_line(c, id);
    return 0;
}

static int32_t complete(coordsh_ctx *c, const char *parameter) {
    const char *who = c->host->login(c);
    if (strcmp(parameter, "id") != 0 || !who) return 0;
    coordsh_value owner = {COORDSH_SQL_TEXT, 0, 0, who};
    return c->host->sql(c, "SELECT id FROM notes WHERE owner = ? ORDER BY id", 1, &owner, id_row, c);
}

static const char *const needs_user[] = {"user"};
static const coordsh_param add_params[] = {
    {"text", COORDSH_TYPE_STRING, 0, "what to note"}, {"priority", COORDSH_TYPE_INT, 1, "higher first (default 0)"}};
static const coordsh_param id_param[] = {{"id", COORDSH_TYPE_INT, 0, "the note's number"}};
static const coordsh_page pages[] = {
    {"list", 0, 0, "your notes", render_list},
    {"item", id_param, 1, "one note", render_item},
};
#define LOGIN "log in to keep notes ('account login EMAIL')"
static const coordsh_message messages[] = {
    {"add", add_params, 2, "note something", needs_user, 1, LOGIN, (coordsh_handler_fn)notes_add},
    {"remove", id_param, 1, "forget a note", needs_user, 1, LOGIN, (coordsh_handler_fn)notes_remove},
    {"show", id_param, 1, "show one note", needs_user, 1, LOGIN, (coordsh_handler_fn)notes_show},
    {"list", 0, 0, "show your notes", needs_user, 1, LOGIN, (coordsh_handler_fn)notes_list},
};
static const char *const migrations[] = {
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, owner TEXT NOT NULL, text TEXT NOT NULL, priority INTEGER NOT NULL DEFAULT 0)",
};
static const coordsh_feature feature = {
    .name = "notes", .prefix = "notes", .summary = "notes kept per person, in C",
    .pages = pages, .page_count = 2, .messages = messages, .message_count = 4,
    .migrations = migrations, .migration_count = 1, .complete = complete,
};

int32_t coordsh_plugin_entry(coordsh_plugin_descriptor *d) {
    d->magic = COORDSH_PLUGIN_MAGIC;
    d->abi_version = COORDSH_PLUGIN_ABI_VERSION_C;
    d->name = "notes";
    d->version = "1.0.0";
    d->feature = &feature;
    d->feature_size = sizeof feature;
    return 0;
}
