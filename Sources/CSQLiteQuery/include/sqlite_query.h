#ifndef COORDSH_SQLITE_QUERY_H
#define COORDSH_SQLITE_QUERY_H

#include <stdint.h>

struct sqlite3_stmt;

// A statement GRDB compiled and caches, run directly: for the queries a plugin runs thousands of
// times in a batch script, GRDB's general cursor and arguments (existential values, a row object
// per row, its bookkeeping) cost more than SQLite's own work. Thin wrappers, because Swift cannot
// call SQLite's variadic or macro-based parts (SQLITE_TRANSIENT) itself.

/// Steps a prepared statement of one integer column once, stores its first row's value in
/// `*value` and resets the statement. Returns 0 (SQLITE_OK) when a row came, SQLite's error
/// code when stepping failed, and SQLITE_DONE (101) when there was no row. For a value read
/// before every transaction (the schema's version), where a general query's overhead would be
/// most of the cost.
int coordsh_step_int64(struct sqlite3_stmt *statement, int64_t *value);

/// 1 when the statement only reads and returns rows (a SELECT, a reading PRAGMA): running it
/// outside GRDB changes no transaction state GRDB keeps. 0 for anything else, BEGIN included.
int coordsh_query_reads(struct sqlite3_stmt *statement);

/// 1 when the statement is an INSERT, UPDATE, DELETE or REPLACE and its connection is inside a
/// transaction: such a statement changes rows, never the transaction or the schema, and the
/// transaction is known to be open (GRDB's check for one SQLite ended after an error is then
/// not needed). 0 for anything else, which keeps GRDB's path.
int coordsh_query_changes_rows(struct sqlite3_stmt *statement);

/// How many values the statement takes (its largest parameter number).
int coordsh_query_parameter_count(struct sqlite3_stmt *statement);

/// Resets the statement and clears its values, ready to bind the next run's.
int coordsh_query_reset(struct sqlite3_stmt *statement);

/// Binds parameter `index` (1-based). Text and blobs are copied; an empty one (whose pointer
/// may be NULL) is bound as empty, not NULL. SQLite's result code.
int coordsh_query_bind_null(struct sqlite3_stmt *statement, int index);
int coordsh_query_bind_int64(struct sqlite3_stmt *statement, int index, int64_t value);
int coordsh_query_bind_double(struct sqlite3_stmt *statement, int index, double value);
int coordsh_query_bind_text(struct sqlite3_stmt *statement, int index, const char *utf8, int length);
int coordsh_query_bind_blob(struct sqlite3_stmt *statement, int index, const void *bytes, int length);

/// Steps once: SQLITE_ROW (100), SQLITE_DONE (101) or the error's code.
int coordsh_query_step(struct sqlite3_stmt *statement);

/// The statement's columns as its last step ran it: SQLite compiles a statement again when the
/// schema changed since it was first compiled (another process added a column), so a cached
/// statement's columns are known only once it has stepped.
int coordsh_query_column_count(struct sqlite3_stmt *statement);
/// How many times SQLite compiled the statement again (for a changed schema) since it was
/// first compiled: while 0, the columns are those it was compiled with.
int coordsh_query_recompiled(struct sqlite3_stmt *statement);
/// The name of column `index` (0-based), NULL when out of memory.
const char *coordsh_query_column_name(struct sqlite3_stmt *statement, int index);

/// The current row's column `index` (0-based): its type (SQLITE_INTEGER 1, FLOAT 2, TEXT 3,
/// BLOB 4, NULL 5) and value. Text and blob pointers last until the next step or reset.
int coordsh_query_column_type(struct sqlite3_stmt *statement, int index);
int64_t coordsh_query_column_int64(struct sqlite3_stmt *statement, int index);
double coordsh_query_column_double(struct sqlite3_stmt *statement, int index);
/// The column as UTF-8 text (NULL for an empty blob or when out of memory) and its length in bytes.
const unsigned char *coordsh_query_column_text(struct sqlite3_stmt *statement, int index, int *length);
const void *coordsh_query_column_blob(struct sqlite3_stmt *statement, int index, int *length);

/// Turns off SQLite's memory statistics for this process (SQLITE_CONFIG_MEMSTATUS), before its
/// first connection. With them on, every allocation and free SQLite makes takes a process-wide
/// mutex to count it — 98 of each per shop command, 2 % of a `-1` batch script — and coordsh
/// reads none of those counts (`sqlite3_memory_used`, a soft heap limit). Returns SQLite's code:
/// SQLITE_MISUSE (21) once SQLite has started, which leaves the statistics on and is harmless.
int coordsh_sqlite_without_memory_statistics(void);

#endif
