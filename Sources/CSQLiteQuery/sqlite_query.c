#include "sqlite_query.h"

#include <sqlite3.h>
#include <string.h>
#include <strings.h>

int coordsh_step_int64(struct sqlite3_stmt *statement, int64_t *value) {
    int code = sqlite3_step(statement);
    if (code == SQLITE_ROW) *value = sqlite3_column_int64(statement, 0);
    int reset = sqlite3_reset(statement);
    if (code == SQLITE_ROW) return reset;
    return code == SQLITE_DONE ? SQLITE_DONE : reset;
}

int coordsh_query_reads(struct sqlite3_stmt *statement) {
    return sqlite3_stmt_readonly(statement) && sqlite3_column_count(statement) > 0;
}

/// The statement's first word (after spaces and comments) is `word`, followed by a non-letter.
static int starts_with_word(const char *sql, const char *word, size_t length) {
    for (;;) {
        while (*sql == ' ' || *sql == '\t' || *sql == '\n' || *sql == '\r' || *sql == '\f' || *sql == '\v') sql++;
        if (sql[0] == '-' && sql[1] == '-') {
            while (*sql && *sql != '\n') sql++;
        } else if (sql[0] == '/' && sql[1] == '*') {
            const char *end = strstr(sql + 2, "*/");
            if (!end) return 0;
            sql = end + 2;
        } else {
            break;
        }
    }
    if (strncasecmp(sql, word, length) != 0) return 0;
    char next = sql[length];
    return !((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || (next >= '0' && next <= '9') || next == '_');
}

int coordsh_query_changes_rows(struct sqlite3_stmt *statement) {
    if (sqlite3_stmt_readonly(statement)) return 0;
    if (sqlite3_get_autocommit(sqlite3_db_handle(statement))) return 0;
    const char *sql = sqlite3_sql(statement);
    if (!sql) return 0;
    return starts_with_word(sql, "INSERT", 6) || starts_with_word(sql, "UPDATE", 6) ||
           starts_with_word(sql, "DELETE", 6) || starts_with_word(sql, "REPLACE", 7);
}

int coordsh_query_parameter_count(struct sqlite3_stmt *statement) {
    return sqlite3_bind_parameter_count(statement);
}

int coordsh_query_reset(struct sqlite3_stmt *statement) {
    int code = sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    return code;
}

int coordsh_query_bind_null(struct sqlite3_stmt *statement, int index) {
    return sqlite3_bind_null(statement, index);
}

int coordsh_query_bind_int64(struct sqlite3_stmt *statement, int index, int64_t value) {
    return sqlite3_bind_int64(statement, index, value);
}

int coordsh_query_bind_double(struct sqlite3_stmt *statement, int index, double value) {
    return sqlite3_bind_double(statement, index, value);
}

int coordsh_query_bind_text(struct sqlite3_stmt *statement, int index, const char *utf8, int length) {
    // An empty text may come without a buffer; a NULL pointer would bind NULL, not ''.
    return sqlite3_bind_text(statement, index, utf8 ? utf8 : "", length, SQLITE_TRANSIENT);
}

int coordsh_query_bind_blob(struct sqlite3_stmt *statement, int index, const void *bytes, int length) {
    // Likewise an empty blob: bound as a zero-length blob, not NULL.
    if (!bytes || length == 0) return sqlite3_bind_zeroblob(statement, index, 0);
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

int coordsh_query_step(struct sqlite3_stmt *statement) {
    return sqlite3_step(statement);
}

int coordsh_query_column_count(struct sqlite3_stmt *statement) {
    return sqlite3_column_count(statement);
}

int coordsh_query_recompiled(struct sqlite3_stmt *statement) {
    return sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0);
}

const char *coordsh_query_column_name(struct sqlite3_stmt *statement, int index) {
    return sqlite3_column_name(statement, index);
}

int coordsh_query_column_type(struct sqlite3_stmt *statement, int index) {
    return sqlite3_column_type(statement, index);
}

int64_t coordsh_query_column_int64(struct sqlite3_stmt *statement, int index) {
    return sqlite3_column_int64(statement, index);
}

double coordsh_query_column_double(struct sqlite3_stmt *statement, int index) {
    return sqlite3_column_double(statement, index);
}

const unsigned char *coordsh_query_column_text(struct sqlite3_stmt *statement, int index, int *length) {
    const unsigned char *text = sqlite3_column_text(statement, index);
    *length = sqlite3_column_bytes(statement, index);
    return text;
}

const void *coordsh_query_column_blob(struct sqlite3_stmt *statement, int index, int *length) {
    const void *bytes = sqlite3_column_blob(statement, index);
    *length = sqlite3_column_bytes(statement, index);
    return bytes;
}

int coordsh_sqlite_without_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
