#ifndef COORDSH_SPAWN_H
#define COORDSH_SPAWN_H

#include <spawn.h>

/* posix_spawn_file_actions_addclosefrom_np (glibc 2.34), which Swift's Glibc module does not
 * import (spawn.h declares it only under _GNU_SOURCE). Every child coordsh starts — a plugin
 * vetting child, a supervised worker — gets the descriptors it is given and nothing else:
 * SwiftNIO opens its listening and accepted sockets without close-on-exec, and a worker that
 * inherited them would keep a killed server's socket accepting connections nobody answers.
 * Returns 0 or an error number, as the other file actions do. */
int coordsh_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

#endif
