#ifndef COORDSH_SANDBOX_H
#define COORDSH_SANDBOX_H

#include <stdint.h>

/* The kernel's confinement of a process that runs plugin code: Landlock (files, TCP ports,
 * signals and abstract Unix sockets) and a seccomp filter for what Landlock cannot say (which
 * sockets may be made at all, the kernel keyring, io_uring). Declared here, not taken from
 * <linux/landlock.h>, whose copy on a build machine may be older than the kernel it runs on:
 * the numbers are the kernel's ABI and never change. Every function returns 0 (or a
 * descriptor, or a version) on success and -errno on failure. */

/* Landlock access rights (ABI version in which each appeared). */
#define COORDSH_LL_FS_EXECUTE      (1ULL << 0)
#define COORDSH_LL_FS_WRITE_FILE   (1ULL << 1)
#define COORDSH_LL_FS_READ_FILE    (1ULL << 2)
#define COORDSH_LL_FS_READ_DIR     (1ULL << 3)
#define COORDSH_LL_FS_REMOVE_DIR   (1ULL << 4)
#define COORDSH_LL_FS_REMOVE_FILE  (1ULL << 5)
#define COORDSH_LL_FS_MAKE_CHAR    (1ULL << 6)
#define COORDSH_LL_FS_MAKE_DIR     (1ULL << 7)
#define COORDSH_LL_FS_MAKE_REG     (1ULL << 8)
#define COORDSH_LL_FS_MAKE_SOCK    (1ULL << 9)
#define COORDSH_LL_FS_MAKE_FIFO    (1ULL << 10)
#define COORDSH_LL_FS_MAKE_BLOCK   (1ULL << 11)
#define COORDSH_LL_FS_MAKE_SYM     (1ULL << 12)
#define COORDSH_LL_FS_REFER        (1ULL << 13) /* 2 */
#define COORDSH_LL_FS_TRUNCATE     (1ULL << 14) /* 3 */
#define COORDSH_LL_FS_IOCTL_DEV    (1ULL << 15) /* 5 */
#define COORDSH_LL_NET_BIND_TCP    (1ULL << 0)  /* 4 */
#define COORDSH_LL_NET_CONNECT_TCP (1ULL << 1)  /* 4 */
#define COORDSH_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* 6 */
#define COORDSH_LL_SCOPE_SIGNAL    (1ULL << 1)  /* 6 */

/* The Landlock ABI version of the running kernel (1, 2, …), or -errno (-ENOSYS: not built in,
 * -EOPNOTSUPP: built in but disabled at boot). */
int coordsh_landlock_abi(void);

/* A new ruleset that handles these rights; its descriptor. */
int coordsh_landlock_ruleset(uint64_t fs, uint64_t net, uint64_t scoped);

/* Allows `access` beneath `path` (a folder) or on it (a file: only the rights that apply to a
 * file are kept). */
int coordsh_landlock_allow_path(int ruleset, const char *path, uint64_t access);

/* Allows `access` (bind, connect) on TCP port `port`. */
int coordsh_landlock_allow_port(int ruleset, uint64_t port, uint64_t access);

/* Sets no_new_privs and enforces the ruleset on this process and every thread and child it
 * starts from now on (all threads: the kernel's TSYNC flag where it has it, else this thread
 * only, which is why it is called before any other thread exists). Closes the ruleset. */
int coordsh_landlock_restrict(int ruleset);

/* Installs the seccomp filter, on every thread (SECCOMP_FILTER_FLAG_TSYNC): socket() only for
 * TCP (AF_INET/AF_INET6, SOCK_STREAM), and for AF_UNIX when `allow_unix` is nonzero (a
 * PostgreSQL server on a Unix socket); io_uring, the kernel keyring and ptrace refused.
 * Refused calls fail with EACCES. */
int coordsh_seccomp_install(int allow_unix);

/* Removes every variable whose name is not in `keep` from the environment, and overwrites
 * its bytes where they were, so that /proc/self/environ (the block the process was started
 * with) no longer shows them either. Returns how many were removed. */
int coordsh_scrub_environment(const char *const *keep, int count);

/* Calls `visit` with the file name of every shared object loaded in this process (the
 * dynamic linker's own list: no /proc needed, which a process started inside a sandbox may
 * not read). */
void coordsh_loaded_objects(void (*visit)(const char *path, void *context), void *context);

#endif
