/* The __NAME__ feature: a coordsh plugin in C (ABI 2). `make` builds lib__NAME__.so; drop it into a
 * plugin folder, or run `coordsh plugin check lib__NAME__.so`. The header says what each field
 * means, who owns each string and what may be called when. */
#include <coordsh_plugin.h>
#include <stdio.h>

/* The page __NAME__/home: a title and lines. */
static int32_t render_home(coordsh_ctx *c) {
    c->host->set_title(c, "__Name__");
    c->host->add_line(c, "__NAME__ show ID — one item");
    return 0;
}

/* The page __NAME__/item id=N: reads its argument. */
static int32_t render_item(coordsh_ctx *c) {
    int64_t id = 0;
    char title[64];
    c->host->arg_int(c, "id", &id);
    snprintf(title, sizeof title, "Item %lld", (long long)id);
    c->host->set_title(c, title);
    return 0;
}

/* `__NAME__ show ID`: an ordinary C function with typed parameters, called through libffi. */
static int32_t show(coordsh_ctx *c, int64_t id) {
    char route[64];
    snprintf(route, sizeof route, "__NAME__/item id=%lld", (long long)id);
    return c->host->display(c, route);
}

/* Tab after `__NAME__ show` offers values for the parameter `id`: one add_line each. */
static int32_t complete(coordsh_ctx *c, const char *parameter) {
    if (parameter[0] == 'i') { c->host->add_line(c, "1"); c->host->add_line(c, "2"); }
    return 0;
}

static const coordsh_param id[] = {{"id", COORDSH_TYPE_INT, 0, "item number"}};
static const coordsh_page pages[] = {
    {"home", 0, 0, "the __NAME__ feature", render_home},
    {"item", id, 1, "one item", render_item},
};
static const coordsh_message messages[] = {{"show", id, 1, "show one item", 0, 0, 0, (coordsh_handler_fn)show}};
static const coordsh_feature feature = {
    .name = "__NAME__", .prefix = "__NAME__", .summary = "the __NAME__ feature",
    .pages = pages, .page_count = 2, .messages = messages, .message_count = 1, .complete = complete,
};

int32_t coordsh_plugin_entry(coordsh_plugin_descriptor *d) {
    d->magic = COORDSH_PLUGIN_MAGIC;
    d->abi_version = COORDSH_PLUGIN_ABI_VERSION_C;
    d->name = "__NAME__";
    d->version = "0.1.0";
    d->feature = &feature;
    d->feature_size = sizeof feature; /* the host reads the fields this covers */
    return 0;
}
