#ifndef COORDSH_STACK_REPORT_H
#define COORDSH_STACK_REPORT_H

#include <sys/types.h>

/* A worker that stops answering is killed; before that, its front asks it where its main
 * thread is, so that the crash line can name the function it was stuck in.
 *
 * In the worker: installs a handler for `signal` that writes the main thread's return
 * addresses to stderr, one line each — "coordsh worker: frame IMAGE 0xOFFSET" (the image's
 * path and the address's offset in it, from dladdr) — between "coordsh worker: stack" and
 * "coordsh worker: end of stack". Call it before the sandbox and before any other thread:
 * it makes glibc's backtrace() load what it needs now, not in the handler. Returns 0 or -1. */
int coordsh_stack_report_install(int signal);

/* In the front: sends `signal` to the main thread of process `pid` (whose thread id is its
 * pid) with tgkill, so that the handler runs on the thread that is stuck. Returns 0 or -1. */
int coordsh_signal_main_thread(pid_t pid, int signal);

#endif
