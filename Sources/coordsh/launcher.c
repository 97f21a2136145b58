/* coordsh: the launcher. A few hundred microseconds of C that starts the shell
 * (coordsh-front, beside it) with exec — and, when the command line looks like a supervised
 * shell's, first starts that shell's app process (`coordsh-server worker --early`) so that
 * the two executables' starts overlap: each maps Foundation and a large Swift image, ≈ 20 ms
 * of dynamic loading apiece, which a front that started its worker from its own main paid
 * one after the other (BENCHMARKS.md, "Issue 41, third pass").
 *
 * `coordsh serve` and `coordsh worker` it execs as coordsh-server directly.
 *
 * The guess only saves time, never decides anything: the front reads its command line as
 * before, takes the early worker when it runs supervised (COORDSH_EARLY_WORKER names it), and
 * otherwise ends it. An early worker waits for its options on its control channel and exits
 * when that closes, so a wrong guess, or a front that cannot be started, costs one idle
 * process that is gone when the front is.
 *
 * Linked statically (Package.swift): it runs before every coordsh command, and a dynamic
 * one paid the loader for libraries it does not use. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

static const char *const front_name = "coordsh-front";
static const char *const server_name = "coordsh-server";

/* The folder of this executable (symbolic links resolved), with a trailing slash. */
static int own_folder(char *folder, size_t size) {
    ssize_t length = readlink("/proc/self/exe", folder, size - 1);
    if (length <= 0) return -1;
    folder[length] = '\0';
    char *slash = strrchr(folder, '/');
    if (!slash) return -1;
    slash[1] = '\0';
    return 0;
}

/* True when the front will most likely run supervised: --supervised is given, or nothing
 * makes it a script, another command or an in-process shell and stdin is a terminal (the
 * interactive default). Words are compared whole; a value that happens to equal an option
 * only makes the guess wrong, which costs an idle process. */
static int looks_supervised(int argc, char **argv) {
    static const char *const in_process[] = {
        "--single-process", "-1", "--single-transaction", "-h", "--help", "--version", "--generate-completion-script", NULL,
    };
    static const char *const commands[] = { "plugin", "connect", "serve", "worker", "help", NULL };
    if (argc > 1) {
        for (const char *const *command = commands; *command; command++) {
            if (strcmp(argv[1], *command) == 0) return 0;
        }
    }
    int supervised = 0, script = 0;
    for (int index = 1; index < argc; index++) {
        for (const char *const *word = in_process; *word; word++) {
            if (strcmp(argv[index], *word) == 0) return 0;
        }
        if (strcmp(argv[index], "--supervised") == 0) supervised = 1;
        if (strcmp(argv[index], "-c") == 0 || strcmp(argv[index], "-f") == 0) script = 1;
    }
    return supervised || (!script && isatty(STDIN_FILENO));
}

/* The file the command line's last --config names (`--config FILE` or `--config=FILE`), or
 * NULL: the early worker parses the configuration while it waits for its front
 * (ConfigReadAhead), and uses it only if the front names the same file, still holding the
 * same text. */
static const char *config_guess(int argc, char **argv) {
    const char *guess = NULL;
    for (int index = 1; index < argc; index++) {
        if (strcmp(argv[index], "--config") == 0 && index + 1 < argc) guess = argv[++index];
        else if (strncmp(argv[index], "--config=", 9) == 0) guess = argv[index] + 9;
    }
    return guess;
}

/* The environment with SWIFT_BACKTRACE=enable=no,swift-backtrace= in it, as WorkerProcess
 * starts a worker (ChildBacktrace.setting: a trap ends it at once with its one line, not a
 * backtrace, and the runtime does not look for the backtracer at start). NULL when out of
 * memory. */
static char **worker_environment(void) {
    size_t count = 0;
    while (environ[count]) count++;
    char **environment = calloc(count + 2, sizeof(char *));
    if (!environment) return NULL;
    size_t kept = 0;
    for (size_t index = 0; index < count; index++) {
        if (strncmp(environ[index], "SWIFT_BACKTRACE=", 16) != 0) environment[kept++] = environ[index];
    }
    environment[kept++] = "SWIFT_BACKTRACE=enable=no,swift-backtrace=";
    environment[kept] = NULL;
    return environment;
}

/* Starts `coordsh-server worker --early [--config FILE]` the way WorkerProcess starts a
 * worker: stdin and stdout /dev/null, stderr a pipe the front keeps for the crash report, one
 * end of a control socketpair as descriptor 3, nothing else, in a process group of its own
 * (Ctrl-C at the prompt is the front's). On success sets COORDSH_EARLY_WORKER="PID CONTROL
 * STDERR" for the front, with the two descriptors left open across its exec. Any failure: no early worker,
 * and the front starts its own as it always could. */
static void start_early_worker(const char *folder, const char *config) {
    char server[PATH_MAX];
    if (snprintf(server, sizeof server, "%s%s", folder, server_name) >= (int)sizeof server) return;
    int pair[2], err[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(pair[0]);
        close(pair[1]);
        return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawn_file_actions_adddup2(&actions, pair[1], 3);
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    char *argv[] = { server, "worker", "--early", config ? "--config" : NULL, (char *)config, NULL };
    char **environment = worker_environment();
    pid_t child = 0;
    int spawned = environment ? posix_spawn(&child, server, &actions, &attributes, argv, environment) : ENOMEM;
    free(environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(pair[1]);
    close(err[1]);
    char value[64];
    if (spawned != 0 || snprintf(value, sizeof value, "%d %d %d", (int)child, pair[0], err[0]) >= (int)sizeof value
        || fcntl(pair[0], F_SETFD, 0) != 0 || fcntl(err[0], F_SETFD, 0) != 0 || setenv("COORDSH_EARLY_WORKER", value, 1) != 0) {
        close(pair[0]);
        close(err[0]);
        return;
    }
}

/* swiftc links every SwiftPM executable, this one too, with the object that registers a Swift
 * image's metadata sections with the runtime at start-up. This program has no Swift and no
 * metadata: its two references are answered here, so that the static link takes nothing of
 * the Swift runtime and the launcher is the C library and this file. */
struct MetadataSections;
void swift_addNewDSOImage(struct MetadataSections *sections) { (void)sections; }
int _swift_backtrace_isThunkFunction(const char *name) { (void)name; return 0; }

int main(int argc, char **argv) {
    char folder[PATH_MAX], front[PATH_MAX];
    /* Never passed on from an outer coordsh: it names this process's descriptors only. */
    unsetenv("COORDSH_EARLY_WORKER");
    if (own_folder(folder, sizeof folder) != 0 || snprintf(front, sizeof front, "%s%s", folder, front_name) >= (int)sizeof front) {
        fprintf(stderr, "coordsh: error: cannot find where coordsh is installed (/proc/self/exe: %s)\n", strerror(errno));
        return 2;
    }
    /* `coordsh serve` (and `worker`) are coordsh-server's: the shell would only exec it in turn
     * (CommandLineEntry.execServer), after a start of its own. */
    if (argc > 1 && (strcmp(argv[1], "serve") == 0 || strcmp(argv[1], "worker") == 0)) {
        char server[PATH_MAX];
        if (snprintf(server, sizeof server, "%s%s", folder, server_name) < (int)sizeof server) {
            argv[0] = server;
            execv(server, argv);
            fprintf(stderr, "coordsh: error: '%s' needs %s: %s (it is built and installed beside coordsh)\n", argv[1], server, strerror(errno));
            return 2;
        }
    }
    if (looks_supervised(argc, argv)) start_early_worker(folder, config_guess(argc, argv));
    execv(front, argv);
    fprintf(stderr, "coordsh: error: cannot start %s: %s (it is built and installed beside coordsh)\n", front, strerror(errno));
    return 2;
}
