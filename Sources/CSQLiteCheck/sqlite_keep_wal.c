#include "sqlite_keep_wal.h"
#include <sqlite3.h>

int coordsh_keep_wal(struct sqlite3 *connection) {
    int keep = 1;
    return sqlite3_file_control(connection, "main", SQLITE_FCNTL_PERSIST_WAL, &keep);
}
