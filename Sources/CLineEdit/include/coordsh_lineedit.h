#ifndef COORDSH_LINEEDIT_H
#define COORDSH_LINEEDIT_H

/* A small shim over libedit's readline interface, so that Swift 6 does not touch its global
 * variables directly and so that Ctrl-C can cancel a line without longjmp. */

/* Called on Tab with the word being completed and the whole line up to the cursor; it adds
 * candidates with coordsh_edit_add_candidate. */
typedef void (*coordsh_completer_t)(const char *word, const char *line_to_cursor);

#include <stddef.h>

/* Opens libedit (once; it is not linked, so that a process that never shows the prompt never
 * maps it). Returns 0, or -1 with the reason in error (one line, up to size bytes). Every
 * other function here needs it to have returned 0. */
int coordsh_edit_load(char *error, size_t size);

void coordsh_edit_init(const char *name, coordsh_completer_t completer);
void coordsh_edit_add_candidate(const char *candidate);

/* Called while a line is being read when watch_fd (say, the plugin folder watcher) becomes
 * readable. It may print whole lines, starting with a newline (the cursor is on the prompt
 * line), and returns non-zero if it did: the prompt and the half-typed line are then drawn
 * again below them. It returns 2 when the shell wants the terminal back (to ask the person
 * something): if nothing has been typed on the line, reading stops with *interrupted = 2;
 * otherwise the line is drawn again and the shell asks once it is entered. */
typedef int (*coordsh_watch_t)(void);

/* Reads one line with editing and completion. Returns a malloc'd line (free it), or NULL on
 * end of input (Ctrl-D on an empty line). *interrupted is set to 1 and NULL returned when
 * Ctrl-C cancelled the line, to 2 when the watch callback took the terminal back. watch_fd < 0 watches nothing. */
char *coordsh_edit_readline(const char *prompt, int *interrupted, int watch_fd, coordsh_watch_t on_watch);

void coordsh_edit_history_limit(int entries);
int coordsh_edit_history_load(const char *path);
void coordsh_edit_history_add(const char *line);
int coordsh_edit_history_save(const char *path);

#endif
