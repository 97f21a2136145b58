#define _GNU_SOURCE
#include "stack_report.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void put(const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(STDERR_FILENO, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

static void put_hex(unsigned long value) {
    char digits[2 + 2 * sizeof value + 1];
    int at = (int)sizeof digits - 1;
    digits[at] = 0;
    do {
        digits[--at] = "0123456789abcdef"[value & 0xf];
        value >>= 4;
    } while (value != 0 && at > 2);
    digits[--at] = 'x';
    digits[--at] = '0';
    put(digits + at);
}

/* Runs on the thread the front signalled: the main one, where handlers run. dladdr is not
 * async-signal-safe by the letter; the process is about to be killed, and a lock it finds
 * taken costs only the report. */
static void report(int signal) {
    (void)signal;
    void *frames[64];
    int count = backtrace(frames, 64);
    put("coordsh worker: stack\n");
    for (int i = 0; i < count; i++) {
        Dl_info info;
        put("coordsh worker: frame ");
        if (dladdr(frames[i], &info) && info.dli_fname && info.dli_fname[0]) {
            put(info.dli_fname);
            put(" ");
            put_hex((unsigned long)((char *)frames[i] - (char *)info.dli_fbase));
        } else {
            put("? ");
            put_hex((unsigned long)frames[i]);
        }
        put("\n");
    }
    put("coordsh worker: end of stack\n");
}

int coordsh_stack_report_install(int signal) {
    void *warm[2];
    (void)backtrace(warm, 2);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = report;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(signal, &action, NULL) != 0) return -1;
    /* A process may start with the signal blocked (a parent's mask is inherited across exec):
     * this thread, the main one, must take it. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL) == 0 ? 0 : -1;
}

int coordsh_signal_main_thread(pid_t pid, int signal) {
    return (int)syscall(SYS_tgkill, pid, pid, signal);
}
