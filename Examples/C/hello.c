#include <coordsh_plugin.h>

static int32_t page(coordsh_ctx *c) { c->host->set_title(c, "Hello"); c->host->add_line(c, "hello say NAME — be greeted"); return 0; }
static int32_t say(coordsh_ctx *c, const char *name) { c->host->note(c, name); return 0; }
static const coordsh_param name[] = {{"name", COORDSH_TYPE_STRING, 0, "who to greet"}};
static const coordsh_page pages[] = {{"home", 0, 0, "the greeting page", page}};
static const coordsh_message messages[] = {{"say", name, 1, "greet someone", 0, 0, 0, (coordsh_handler_fn)say}};
static const coordsh_feature feature = {"hello", "hello", "a C plugin", pages, 1, messages, 1};

int32_t coordsh_plugin_entry(coordsh_plugin_descriptor *d) {
    d->magic = COORDSH_PLUGIN_MAGIC; d->abi_version = COORDSH_PLUGIN_ABI_VERSION_C;
    d->name = "hello"; d->version = "1.0.0"; d->feature = &feature;
    return 0;
}
