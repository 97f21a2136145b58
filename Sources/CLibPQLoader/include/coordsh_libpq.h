#ifndef COORDSH_LIBPQ_H
#define COORDSH_LIBPQ_H

#include <stddef.h>
#include <postgresql/libpq-fe.h>

/* libpq, loaded on first use. linking it made every coordsh start map libpq and ~25
 * libraries it needs (Kerberos, LDAP, GnuTLS…): about 3 ms and several MiB for a program
 * whose default is SQLite, and a larger scope for every symbol lookup of every plugin
 * dlopen. `coordsh_libpq_load` dlopens libpq.so.5 once (thread-safe) and resolves the
 * functions below; it returns 0, or -1 with a one-line reason in `error`. Each coordsh_PQ*
 * function is the libpq function of the same name; calling one before a successful load
 * is a programming error the Swift side rules out (the data manager loads before it
 * connects). */
int coordsh_libpq_load(char *error, size_t size);

PGconn *coordsh_PQconnectdb(const char *conninfo);
ConnStatusType coordsh_PQstatus(const PGconn *conn);
void coordsh_PQfinish(PGconn *conn);
char *coordsh_PQerrorMessage(const PGconn *conn);
PQnoticeProcessor coordsh_PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg);
PGresult *coordsh_PQexec(PGconn *conn, const char *query);
PGresult *coordsh_PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                               const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                               int resultFormat);
void coordsh_PQclear(PGresult *res);
ExecStatusType coordsh_PQresultStatus(const PGresult *res);
char *coordsh_PQcmdTuples(PGresult *res);
char *coordsh_PQresultErrorField(const PGresult *res, int fieldcode);
int coordsh_PQntuples(const PGresult *res);
int coordsh_PQnfields(const PGresult *res);
char *coordsh_PQfname(const PGresult *res, int field_num);
Oid coordsh_PQftype(const PGresult *res, int field_num);
int coordsh_PQgetisnull(const PGresult *res, int tup_num, int field_num);
char *coordsh_PQgetvalue(const PGresult *res, int tup_num, int field_num);

#endif
