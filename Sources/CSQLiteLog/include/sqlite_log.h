#ifndef COORDSH_SQLITE_LOG_H
#define COORDSH_SQLITE_LOG_H

struct sqlite3;

/// Closing this connection, when it is the database's last, leaves the write-ahead log and its
/// index as they are (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE) instead of checkpointing the log into
/// the database file and deleting both: the next process neither makes them again nor writes
/// to make the log non-empty, and the caller checkpoints when something changed. Returns
/// SQLite's result code.
int coordsh_log_no_checkpoint_on_close(struct sqlite3 *db);

/// The main database's data version (SQLITE_FCNTL_DATA_VERSION): it changes whenever the
/// content changes, by this connection's commits or others' that this connection has seen.
/// Returns SQLite's result code.
int coordsh_log_data_version(struct sqlite3 *db, unsigned int *version);

#endif
