#ifndef COORDSH_SQLITE_KEEP_WAL_H
#define COORDSH_SQLITE_KEEP_WAL_H

struct sqlite3;

/// Keeps the store's write-ahead log file when the last connection closes
/// (SQLITE_FCNTL_PERSIST_WAL) instead of deleting it. GRDB makes sure a non-empty log exists
/// whenever a pool opens — by creating and dropping a table, a write and a schema change —
/// so with the log deleted at every exit, every start of coordsh wrote to the store, even for
/// `echo`. Returns SQLite's result code.
int coordsh_keep_wal(struct sqlite3 *connection);

#endif
