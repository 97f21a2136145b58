#include "sqlite_step.h"

#include <sqlite3.h>

int coordsh_step_int64(struct sqlite3_stmt *statement, int64_t *value) {
    int code = sqlite3_step(statement);
    if (code == SQLITE_ROW) *value = sqlite3_column_int64(statement, 0);
    int reset = sqlite3_reset(statement);
    if (code == SQLITE_ROW) return reset;
    return code == SQLITE_DONE ? SQLITE_DONE : reset;
}
