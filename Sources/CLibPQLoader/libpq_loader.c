#include "coordsh_libpq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* One table, filled once under the lock; read without it afterwards (the load's unlock
 * publishes it). */
static struct {
    int loaded;
    char error[256];
    PGconn *(*connectdb)(const char *);
    ConnStatusType (*status)(const PGconn *);
    void (*finish)(PGconn *);
    char *(*errorMessage)(const PGconn *);
    PQnoticeProcessor (*setNoticeProcessor)(PGconn *, PQnoticeProcessor, void *);
    PGresult *(*exec)(PGconn *, const char *);
    PGresult *(*execParams)(PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, int);
    void (*clear)(PGresult *);
    ExecStatusType (*resultStatus)(const PGresult *);
    char *(*cmdTuples)(PGresult *);
    char *(*resultErrorField)(const PGresult *, int);
    int (*ntuples)(const PGresult *);
    int (*nfields)(const PGresult *);
    char *(*fname)(const PGresult *, int);
    Oid (*ftype)(const PGresult *, int);
    int (*getisnull)(const PGresult *, int, int);
    char *(*getvalue)(const PGresult *, int, int);
} pq;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int resolve(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot != NULL) return 0;
    snprintf(pq.error, sizeof pq.error, "libpq.so.5 has no %s (too old a libpq)", name);
    return -1;
}

#define RESOLVE(field, name) if (resolve(library, name, (void **)&pq.field) != 0) goto failed

int coordsh_libpq_load(char *error, size_t size) {
    pthread_mutex_lock(&lock);
    if (!pq.loaded && pq.error[0] == '\0') {
        void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            const char *why = dlerror();
            snprintf(pq.error, sizeof pq.error, "cannot load libpq.so.5 (install libpq5): %s", why ? why : "unknown error");
            goto done;
        }
        RESOLVE(connectdb, "PQconnectdb");
        RESOLVE(status, "PQstatus");
        RESOLVE(finish, "PQfinish");
        RESOLVE(errorMessage, "PQerrorMessage");
        RESOLVE(setNoticeProcessor, "PQsetNoticeProcessor");
        RESOLVE(exec, "PQexec");
        RESOLVE(execParams, "PQexecParams");
        RESOLVE(clear, "PQclear");
        RESOLVE(resultStatus, "PQresultStatus");
        RESOLVE(cmdTuples, "PQcmdTuples");
        RESOLVE(resultErrorField, "PQresultErrorField");
        RESOLVE(ntuples, "PQntuples");
        RESOLVE(nfields, "PQnfields");
        RESOLVE(fname, "PQfname");
        RESOLVE(ftype, "PQftype");
        RESOLVE(getisnull, "PQgetisnull");
        RESOLVE(getvalue, "PQgetvalue");
        pq.loaded = 1;
        goto done;
    failed:
        /* libpq stays mapped: never unloaded, like every other library here. */
        ;
    }
done:;
    int status = pq.loaded ? 0 : -1;
    if (status != 0 && error != NULL && size > 0) snprintf(error, size, "%s", pq.error);
    pthread_mutex_unlock(&lock);
    return status;
}

PGconn *coordsh_PQconnectdb(const char *conninfo) { return pq.connectdb(conninfo); }
ConnStatusType coordsh_PQstatus(const PGconn *conn) { return pq.status(conn); }
void coordsh_PQfinish(PGconn *conn) { pq.finish(conn); }
char *coordsh_PQerrorMessage(const PGconn *conn) { return pq.errorMessage(conn); }
PQnoticeProcessor coordsh_PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    return pq.setNoticeProcessor(conn, proc, arg);
}
PGresult *coordsh_PQexec(PGconn *conn, const char *query) { return pq.exec(conn, query); }
PGresult *coordsh_PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                               const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                               int resultFormat) {
    return pq.execParams(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
void coordsh_PQclear(PGresult *res) { pq.clear(res); }
ExecStatusType coordsh_PQresultStatus(const PGresult *res) { return pq.resultStatus(res); }
char *coordsh_PQcmdTuples(PGresult *res) { return pq.cmdTuples(res); }
char *coordsh_PQresultErrorField(const PGresult *res, int fieldcode) { return pq.resultErrorField(res, fieldcode); }
int coordsh_PQntuples(const PGresult *res) { return pq.ntuples(res); }
int coordsh_PQnfields(const PGresult *res) { return pq.nfields(res); }
char *coordsh_PQfname(const PGresult *res, int field_num) { return pq.fname(res, field_num); }
Oid coordsh_PQftype(const PGresult *res, int field_num) { return pq.ftype(res, field_num); }
int coordsh_PQgetisnull(const PGresult *res, int tup_num, int field_num) { return pq.getisnull(res, tup_num, field_num); }
char *coordsh_PQgetvalue(const PGresult *res, int tup_num, int field_num) { return pq.getvalue(res, tup_num, field_num); }
