#include <sqlite3.h>
#include "sqlite_log.h"

int coordsh_log_no_checkpoint_on_close(sqlite3 *db) {
    // sqlite3_db_config is variadic, which Swift cannot call.
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

int coordsh_log_data_version(sqlite3 *db, unsigned int *version) {
    return sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, version);
}
