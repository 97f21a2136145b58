#ifndef COORDSH_SQLITE_CHECK_H
#define COORDSH_SQLITE_CHECK_H

#include <stdint.h>

/// A private in-memory SQLite connection that compiles a plugin's statements against a copy of
/// the store's schema, with an authorizer that reports every table, view and trigger body the
/// statement would touch. Nothing is ever run on the store by it.
typedef struct coordsh_checker coordsh_checker;

/// One access the authorizer reported: SQLite's action code and its four strings (any may be
/// NULL): for SQLITE_READ the table and column, for SQLITE_INSERT/UPDATE/DELETE the table,
/// then the database name and the innermost trigger or view.
typedef void (*coordsh_check_event)(void *context, int action, const char *first, const char *second,
                                    const char *database, const char *inner);

/// Opens the checker (double-quoted strings are identifiers, as on PostgreSQL); NULL on failure.
coordsh_checker *coordsh_checker_open(void);
void coordsh_checker_close(coordsh_checker *checker);

/// Runs `sql` on the checker without reporting (building its schema). Returns 0, or SQLite's
/// error code with `*message` set (free with coordsh_checker_free).
int coordsh_checker_run(coordsh_checker *checker, const char *sql, char **message);

/// Compiles each statement of `sql` in turn, calling `event` for every access, and discards
/// them. Returns 0, or SQLite's error code with `*message` set. `statements` receives how many
/// statements the text held.
int coordsh_checker_inspect(coordsh_checker *checker, const char *sql, coordsh_check_event event, void *context,
                            int *statements, char **message);

/// Runs a query of two text columns on the checker (its own schema), calling `row` for each row.
typedef void (*coordsh_check_row)(void *context, const char *first, const char *second);
int coordsh_checker_rows(coordsh_checker *checker, const char *sql, coordsh_check_row row, void *context, char **message);

void coordsh_checker_free(char *message);

#endif
