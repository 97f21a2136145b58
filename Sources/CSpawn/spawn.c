#define _GNU_SOURCE
#include "coordsh_spawn.h"

int coordsh_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
