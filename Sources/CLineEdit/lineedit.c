#include "coordsh_lineedit.h"

#include <dlfcn.h>
#include <editline/readline.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

/* libedit is opened by the interactive prompt's first use (coordsh_edit_load), not linked:
 * linked, it and the three libraries it needs (libtinfo, libbsd, libmd) were mapped and
 * relocated by every coordsh process — each script, each worker — though only the prompt
 * uses them (0.36 MiB of a start's memory). The header is only for the types: every function
 * and variable is reached through this table. Only the main thread edits lines. */
static struct {
    int loaded;
    char error[256];
    __typeof__(&rl_callback_handler_install) callback_handler_install;
    __typeof__(&rl_callback_handler_remove) callback_handler_remove;
    __typeof__(&rl_callback_read_char) callback_read_char;
    __typeof__(&rl_forced_update_display) forced_update_display;
    __typeof__(&rl_replace_line) replace_line;
    __typeof__(&stifle_history) stifle_history;
    __typeof__(&read_history) read_history;
    __typeof__(&add_history) add_history;
    __typeof__(&write_history) write_history;
    __typeof__(&rl_attempted_completion_over) attempted_completion_over;
    __typeof__(&rl_line_buffer) line_buffer;
    __typeof__(&rl_completion_append_character) completion_append_character;
    __typeof__(&rl_readline_name) readline_name;
    __typeof__(&rl_attempted_completion_function) attempted_completion_function;
    __typeof__(&rl_completer_word_break_characters) completer_word_break_characters;
    __typeof__(&rl_catch_signals) catch_signals;
    __typeof__(&rl_instream) instream;
    __typeof__(&rl_end) end;
} edit;

static int resolve(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot != NULL) return 0;
    snprintf(edit.error, sizeof edit.error, "libedit.so.2 has no %s (too old a libedit)", name);
    return -1;
}

#define RESOLVE(field, name) if (resolve(library, name, (void **)&edit.field) != 0) return -1

static int load(void) {
    void *library = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(edit.error, sizeof edit.error, "cannot load libedit.so.2 (install libedit2): %s", why ? why : "unknown error");
        return -1;
    }
    RESOLVE(callback_handler_install, "rl_callback_handler_install");
    RESOLVE(callback_handler_remove, "rl_callback_handler_remove");
    RESOLVE(callback_read_char, "rl_callback_read_char");
    RESOLVE(forced_update_display, "rl_forced_update_display");
    RESOLVE(replace_line, "rl_replace_line");
    RESOLVE(stifle_history, "stifle_history");
    RESOLVE(read_history, "read_history");
    RESOLVE(add_history, "add_history");
    RESOLVE(write_history, "write_history");
    RESOLVE(attempted_completion_over, "rl_attempted_completion_over");
    RESOLVE(line_buffer, "rl_line_buffer");
    RESOLVE(completion_append_character, "rl_completion_append_character");
    RESOLVE(readline_name, "rl_readline_name");
    RESOLVE(attempted_completion_function, "rl_attempted_completion_function");
    RESOLVE(completer_word_break_characters, "rl_completer_word_break_characters");
    RESOLVE(catch_signals, "rl_catch_signals");
    RESOLVE(instream, "rl_instream");
    RESOLVE(end, "rl_end");
    /* libedit stays mapped: never unloaded, like every other library here. */
    return 0;
}

int coordsh_edit_load(char *error, size_t size) {
    if (!edit.loaded && edit.error[0] == '\0' && load() == 0) edit.loaded = 1;
    if (!edit.loaded && error != NULL && size > 0) snprintf(error, size, "%s", edit.error);
    return edit.loaded ? 0 : -1;
}

static coordsh_completer_t completer;
static char **candidates;
static size_t candidate_count, candidate_capacity;

static volatile sig_atomic_t got_sigint;
static char *finished_line;
static int line_finished;

void coordsh_edit_add_candidate(const char *candidate) {
    if (candidate_count + 2 > candidate_capacity) {
        candidate_capacity = candidate_capacity ? candidate_capacity * 2 : 16;
        candidates = realloc(candidates, candidate_capacity * sizeof(char *));
    }
    candidates[candidate_count++] = strdup(candidate);
}

/* readline's convention: [0] is what replaces the word (the longest common prefix), then the
 * candidates, then NULL. */
static char **complete(const char *text, int start, int end) {
    (void)start;
    *edit.attempted_completion_over = 1; /* never fall back to file names */
    if (!completer) return NULL;
    candidate_count = 0;
    char *line = strndup(*edit.line_buffer, (size_t)end);
    completer(text, line);
    free(line);
    if (candidate_count == 0) return NULL;
    size_t common = strlen(candidates[0]);
    for (size_t i = 1; i < candidate_count; i++) {
        size_t j = 0;
        while (j < common && candidates[i][j] == candidates[0][j]) j++;
        common = j;
    }
    char **matches = malloc((candidate_count + 2) * sizeof(char *));
    matches[0] = strndup(candidates[0], common);
    for (size_t i = 0; i < candidate_count; i++) matches[i + 1] = candidates[i];
    matches[candidate_count + 1] = NULL;
    candidate_count = 0;
    /* A single candidate that ends in '=' or '/' is not finished: no space after it. */
    size_t length = strlen(matches[1]);
    *edit.completion_append_character =
        (matches[2] == NULL && length > 0 && (matches[1][length - 1] == '=' || matches[1][length - 1] == '/')) ? '\0' : ' ';
    return matches;
}

void coordsh_edit_init(const char *name, coordsh_completer_t c) {
    completer = c;
    *edit.readline_name = name;
    *edit.attempted_completion_function = complete;
    *edit.completer_word_break_characters = " \t";
    *edit.catch_signals = 0;
}

static void on_sigint(int signal) {
    (void)signal;
    got_sigint = 1;
}

static void on_line(char *line) {
    finished_line = line;
    line_finished = 1;
    edit.callback_handler_remove();
}

char *coordsh_edit_readline(const char *prompt, int *interrupted, int watch_fd, coordsh_watch_t on_watch) {
    struct sigaction action, previous;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0; /* no SA_RESTART: select() returns EINTR on Ctrl-C */
    sigaction(SIGINT, &action, &previous);
    /* A parent (a test runner, a job-control shell) may have left SIGINT blocked. */
    sigset_t interrupt, previous_mask;
    sigemptyset(&interrupt);
    sigaddset(&interrupt, SIGINT);
    sigprocmask(SIG_UNBLOCK, &interrupt, &previous_mask);

    *interrupted = 0;
    got_sigint = 0;
    line_finished = 0;
    finished_line = NULL;
    edit.callback_handler_install(prompt, on_line);
    int fd = fileno(*edit.instream ? *edit.instream : stdin);
    while (!line_finished) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        if (watch_fd >= 0) FD_SET(watch_fd, &fds);
        int ready = select((watch_fd > fd ? watch_fd : fd) + 1, &fds, NULL, NULL, NULL);
        if (got_sigint) {
            got_sigint = 0;
            edit.replace_line("", 0);
            edit.callback_handler_remove();
            fputs("^C\n", stdout);
            fflush(stdout);
            *interrupted = 1;
            break;
        }
        if (ready < 0) {
            if (errno == EINTR) continue;
            edit.callback_handler_remove();
            break;
        }
        if (watch_fd >= 0 && FD_ISSET(watch_fd, &fds)) {
            int outcome = on_watch();
            if (outcome == 2 && *edit.end == 0) {
                edit.callback_handler_remove();
                fflush(stdout);
                *interrupted = 2;
                break;
            }
            if (outcome) {
                fflush(stdout);
                edit.forced_update_display();
            }
            if (!FD_ISSET(fd, &fds)) continue;
        }
        edit.callback_read_char();
    }
    sigaction(SIGINT, &previous, NULL);
    sigprocmask(SIG_SETMASK, &previous_mask, NULL);
    return finished_line;
}

void coordsh_edit_history_limit(int entries) { edit.stifle_history(entries); }

int coordsh_edit_history_load(const char *path) { return edit.read_history(path); }

void coordsh_edit_history_add(const char *line) { edit.add_history(line); }

int coordsh_edit_history_save(const char *path) { return edit.write_history(path); }
