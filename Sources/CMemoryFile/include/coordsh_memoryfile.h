#ifndef COORDSH_MEMORYFILE_H
#define COORDSH_MEMORYFILE_H
/* An anonymous file in memory (memfd_create(2)), sized once and sealed at that size, which
 * Swift cannot spell (the call and its flags are glibc's _GNU_SOURCE). A supervised front
 * shares one with each worker it starts, which maps it and notes there the command it runs:
 * a file with no name in any folder, so no other process can plant, read or leave it behind,
 * and one whose size cannot change under the worker's mapping. */
#include <stddef.h>
/* A memory file of `size` zero bytes, close-on-exec, sealed against shrinking, growing and
 * further seals. Returns its descriptor, or -1 with errno set. */
int coordsh_memory_file(const char *name, size_t size);
/* 1 when `fd` is such a file of at least `size` bytes (its size sealed), else 0: what the
 * worker checks before it maps the descriptor it was given. */
int coordsh_memory_file_sealed(int fd, size_t size);
#endif
