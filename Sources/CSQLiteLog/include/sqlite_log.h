#ifndef COORDSH_SQLITE_LOG_H
#define COORDSH_SQLITE_LOG_H

struct sqlite3;

/// Keeps the database's write-ahead log and its index as files between processes
/// (SQLITE_FCNTL_PERSIST_WAL): the last connection to close leaves them instead of deleting
/// them (with no journal_size_limit, the log as it is), so the next process neither creates
/// them again nor writes to make the log non-empty. Returns SQLite's result code.
int coordsh_log_keep(struct sqlite3 *db);

/// Whether closing this connection, when it is the database's last, checkpoints the log into
/// the database file (SQLite's default) or leaves the log as it is
/// (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE). Returns SQLite's result code.
int coordsh_log_checkpoint_on_close(struct sqlite3 *db, int checkpoint);

/// The main database's data version (SQLITE_FCNTL_DATA_VERSION): it changes whenever the
/// content changes, by this connection's commits or others' that this connection has seen.
/// Returns SQLite's result code.
int coordsh_log_data_version(struct sqlite3 *db, unsigned int *version);

#endif
