#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* The kernel's structures (include/uapi/linux/landlock.h). */
struct coordsh_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct coordsh_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct coordsh_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

#define RULE_PATH_BENEATH 1
#define RULE_NET_PORT 2
#define CREATE_RULESET_VERSION (1U << 0)

/* The rights that mean something on a file (not a folder). */
#define FILE_RIGHTS (COORDSH_LL_FS_EXECUTE | COORDSH_LL_FS_WRITE_FILE | COORDSH_LL_FS_READ_FILE \
                     | COORDSH_LL_FS_TRUNCATE | COORDSH_LL_FS_IOCTL_DEV)

int coordsh_landlock_abi(void) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, CREATE_RULESET_VERSION);
    return abi < 0 ? -errno : (int)abi;
}

int coordsh_landlock_ruleset(uint64_t fs, uint64_t net, uint64_t scoped) {
    struct coordsh_ruleset_attr attr = {fs, net, scoped};
    /* An older kernel knows a shorter structure: give it only what it knows. */
    size_t size = scoped ? sizeof attr : net ? offsetof(struct coordsh_ruleset_attr, scoped)
                                             : offsetof(struct coordsh_ruleset_attr, handled_access_net);
    long fd = syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    return fd < 0 ? -errno : (int)fd;
}

int coordsh_landlock_allow_path(int ruleset, const char *path, uint64_t access) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    struct coordsh_path_beneath_attr attr = {S_ISDIR(st.st_mode) ? access : access & FILE_RIGHTS, fd};
    long result = syscall(__NR_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &attr, 0);
    int error = errno;
    close(fd);
    return result < 0 ? -error : 0;
}

int coordsh_landlock_allow_port(int ruleset, uint64_t port, uint64_t access) {
    struct coordsh_net_port_attr attr = {access, port};
    return syscall(__NR_landlock_add_rule, ruleset, RULE_NET_PORT, &attr, 0) < 0 ? -errno : 0;
}

int coordsh_landlock_restrict(int ruleset) {
    int result = 0;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) result = -errno;
    else if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) result = -errno;
    close(ruleset);
    return result;
}

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

#define REFUSE (SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (field))
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + (n) * sizeof(uint64_t))

int coordsh_seccomp_install(int allow_unix) {
#ifndef AUDIT_ARCH_HERE
    (void)allow_unix;
    return -ENOSYS;
#else
    struct sock_filter filter[] = {
        /* 0 */ LOAD(offsetof(struct seccomp_data, arch)),
        /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
        /* 2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        /* 3 */ LOAD(offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        /* x32 system calls (the same numbers with bit 30 set) are not ours: refused. */
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 16, 0),
#else
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0),
#endif
        /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 15, 0),
        /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_keyctl, 14, 0),
        /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_add_key, 13, 0),
        /* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_request_key, 12, 0),
        /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 11, 0),
        /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 9),
        /* 11 */ LOAD(ARG_LOW(0)),
        /* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
        /* 13 */ BPF_STMT(BPF_RET | BPF_K, allow_unix ? SECCOMP_RET_ALLOW : REFUSE),
        /* 14 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0),
        /* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 3),
        /* 16 */ LOAD(ARG_LOW(1)),
        /* 17 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf), /* the type without SOCK_CLOEXEC, SOCK_NONBLOCK */
        /* 18 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 1, 0),
        /* 19 */ BPF_STMT(BPF_RET | BPF_K, REFUSE),
        /* 20 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* 21: refused system calls */
        /* 21 */ BPF_STMT(BPF_RET | BPF_K, REFUSE),
    };
    struct sock_fprog program = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) return -errno;
    return 0;
#endif
}

extern char **environ;

int coordsh_scrub_environment(const char *const *keep, int count) {
    if (environ == NULL) return 0;
    int removed = 0;
    /* Collect first: unsetenv moves the entries of environ. */
    size_t total = 0;
    while (environ[total] != NULL) total++;
    char **doomed = calloc(total + 1, sizeof(char *));
    if (doomed == NULL) return -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < total; i++) {
        char *entry = environ[i];
        char *equals = strchr(entry, '=');
        size_t length = equals ? (size_t)(equals - entry) : strlen(entry);
        int kept = 0;
        for (int k = 0; k < count && !kept; k++) {
            kept = strlen(keep[k]) == length && strncmp(keep[k], entry, length) == 0;
        }
        if (!kept) doomed[n++] = entry;
    }
    for (size_t i = 0; i < n; i++) {
        char *entry = doomed[i];
        char *equals = strchr(entry, '=');
        size_t length = equals ? (size_t)(equals - entry) : strlen(entry);
        char *name = strndup(entry, length);
        if (name != NULL) {
            unsetenv(name);
            free(name);
        }
        /* The bytes themselves: the start-up block is what /proc/self/environ reads. */
        memset(entry, 0, strlen(entry));
        removed++;
    }
    free(doomed);
    return removed;
}

struct visit_context {
    void (*visit)(const char *path, void *context);
    void *context;
};

static int visit_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct visit_context *given = data;
    if (info->dlpi_name != NULL && info->dlpi_name[0] == '/') given->visit(info->dlpi_name, given->context);
    return 0;
}

void coordsh_loaded_objects(void (*visit)(const char *path, void *context), void *context) {
    struct visit_context given = {visit, context};
    dl_iterate_phdr(visit_object, &given);
}
