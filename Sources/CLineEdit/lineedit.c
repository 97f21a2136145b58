#include "coordsh_lineedit.h"

#include <editline/readline.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

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
    rl_attempted_completion_over = 1; /* never fall back to file names */
    if (!completer) return NULL;
    candidate_count = 0;
    char *line = strndup(rl_line_buffer, (size_t)end);
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
    rl_completion_append_character =
        (matches[2] == NULL && length > 0 && (matches[1][length - 1] == '=' || matches[1][length - 1] == '/')) ? '\0' : ' ';
    return matches;
}

void coordsh_edit_init(const char *name, coordsh_completer_t c) {
    completer = c;
    rl_readline_name = name;
    rl_attempted_completion_function = complete;
    rl_completer_word_break_characters = " \t";
    rl_catch_signals = 0;
}

static void on_sigint(int signal) {
    (void)signal;
    got_sigint = 1;
}

static void on_line(char *line) {
    finished_line = line;
    line_finished = 1;
    rl_callback_handler_remove();
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
    rl_callback_handler_install(prompt, on_line);
    int fd = fileno(rl_instream ? rl_instream : stdin);
    while (!line_finished) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        if (watch_fd >= 0) FD_SET(watch_fd, &fds);
        int ready = select((watch_fd > fd ? watch_fd : fd) + 1, &fds, NULL, NULL, NULL);
        if (got_sigint) {
            got_sigint = 0;
            rl_replace_line("", 0);
            rl_callback_handler_remove();
            fputs("^C\n", stdout);
            fflush(stdout);
            *interrupted = 1;
            break;
        }
        if (ready < 0) {
            if (errno == EINTR) continue;
            rl_callback_handler_remove();
            break;
        }
        if (watch_fd >= 0 && FD_ISSET(watch_fd, &fds)) {
            int outcome = on_watch();
            if (outcome == 2 && rl_end == 0) {
                rl_callback_handler_remove();
                fflush(stdout);
                *interrupted = 2;
                break;
            }
            if (outcome) {
                fflush(stdout);
                rl_forced_update_display();
            }
            if (!FD_ISSET(fd, &fds)) continue;
        }
        rl_callback_read_char();
    }
    sigaction(SIGINT, &previous, NULL);
    sigprocmask(SIG_SETMASK, &previous_mask, NULL);
    return finished_line;
}

void coordsh_edit_history_limit(int entries) { stifle_history(entries); }

int coordsh_edit_history_load(const char *path) { return read_history(path); }

void coordsh_edit_history_add(const char *line) { add_history(line); }

int coordsh_edit_history_save(const char *path) { return write_history(path); }
