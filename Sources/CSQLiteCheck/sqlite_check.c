#include "sqlite_check.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

struct coordsh_checker {
    sqlite3 *db;
    coordsh_check_event event;
    void *context;
};

static int authorize(void *opaque, int action, const char *first, const char *second, const char *database,
                     const char *inner) {
    struct coordsh_checker *checker = opaque;
    if (checker->event) checker->event(checker->context, action, first, second, database, inner);
    return SQLITE_OK;
}

coordsh_checker *coordsh_checker_open(void) {
    struct coordsh_checker *checker = calloc(1, sizeof *checker);
    if (!checker) return NULL;
    if (sqlite3_open_v2(":memory:", &checker->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        sqlite3_close(checker->db);
        free(checker);
        return NULL;
    }
    sqlite3_db_config(checker->db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    sqlite3_db_config(checker->db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
    sqlite3_db_config(checker->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    sqlite3_set_authorizer(checker->db, authorize, checker);
    return checker;
}

void coordsh_checker_close(coordsh_checker *checker) {
    if (!checker) return;
    sqlite3_close(checker->db);
    free(checker);
}

static char *copy(const char *text) {
    size_t length = strlen(text ? text : "");
    char *result = malloc(length + 1);
    if (result) memcpy(result, text ? text : "", length + 1);
    return result;
}

int coordsh_checker_run(coordsh_checker *checker, const char *sql, char **message) {
    checker->event = NULL;
    char *error = NULL;
    int code = sqlite3_exec(checker->db, sql, NULL, NULL, &error);
    if (code != SQLITE_OK) {
        *message = copy(error ? error : sqlite3_errmsg(checker->db));
        sqlite3_free(error);
    }
    return code;
}

int coordsh_checker_inspect(coordsh_checker *checker, const char *sql, coordsh_check_event event, void *context,
                            int *statements, char **message) {
    *statements = 0;
    const char *rest = sql;
    while (rest && *rest) {
        sqlite3_stmt *statement = NULL;
        const char *tail = NULL;
        checker->event = event;
        checker->context = context;
        int code = sqlite3_prepare_v2(checker->db, rest, -1, &statement, &tail);
        checker->event = NULL;
        if (code != SQLITE_OK) {
            *message = copy(sqlite3_errmsg(checker->db));
            sqlite3_finalize(statement);
            return code;
        }
        if (statement) *statements += 1;
        sqlite3_finalize(statement);
        if (tail == rest) break;
        rest = tail;
    }
    return SQLITE_OK;
}

int coordsh_checker_rows(coordsh_checker *checker, const char *sql, coordsh_check_row row, void *context, char **message) {
    checker->event = NULL;
    sqlite3_stmt *statement = NULL;
    int code = sqlite3_prepare_v2(checker->db, sql, -1, &statement, NULL);
    if (code != SQLITE_OK) {
        *message = copy(sqlite3_errmsg(checker->db));
        sqlite3_finalize(statement);
        return code;
    }
    while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
        row(context, (const char *)sqlite3_column_text(statement, 0), (const char *)sqlite3_column_text(statement, 1));
    }
    sqlite3_finalize(statement);
    if (code != SQLITE_DONE) {
        *message = copy(sqlite3_errmsg(checker->db));
        return code;
    }
    return SQLITE_OK;
}

void coordsh_checker_free(char *message) { free(message); }
