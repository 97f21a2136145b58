#ifndef COORDSH_SQLITE_STEP_H
#define COORDSH_SQLITE_STEP_H

#include <stdint.h>

struct sqlite3_stmt;

/// Steps a prepared statement of one integer column once, stores its first row's value in
/// `*value` and resets the statement. Returns 0 (SQLITE_OK) when a row came, SQLite's error
/// code when stepping failed, and SQLITE_DONE (101) when there was no row. For a value read
/// before every transaction (the schema's version), where a general query's overhead would be
/// most of the cost.
int coordsh_step_int64(struct sqlite3_stmt *statement, int64_t *value);

#endif
