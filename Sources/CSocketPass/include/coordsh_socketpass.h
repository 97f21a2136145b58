#ifndef COORDSH_SOCKETPASS_H
#define COORDSH_SOCKETPASS_H

/* Passing a descriptor over a Unix socket (SCM_RIGHTS), which Swift cannot spell: the CMSG_*
 * macros do pointer arithmetic Swift does not import. A supervised front hands its worker one
 * end of a new socketpair per scene this way, so that a scene's connection belongs to the
 * front and only the front can open one. */

/* Sends `fd` with one byte of payload. Returns 0, or -1 with errno set. */
int coordsh_send_fd(int socket, int fd);

/* Waits for a descriptor sent with coordsh_send_fd. Returns it (close-on-exec), -1 at the end
 * of the stream (the sender is gone), or -2 with errno set on an error. */
int coordsh_recv_fd(int socket);
/* Sends up to `count` bytes with `fd` attached to them (a front's start for the worker the
 * launcher started, with the worker's marker). Returns the bytes sent — the caller sends the
 * rest with send(2) — or -1 with errno set. */
long coordsh_send_bytes_fd(int socket, const void *bytes, unsigned long count, int fd);
/* Receives up to `count` bytes and, when one came with them, a descriptor (close-on-exec) in
 * `*fd`, else -1 there. Returns the bytes received, 0 at the end of the stream, or -1 with
 * errno set. A descriptor beyond the first that came with them is closed. */
long coordsh_recv_bytes_fd(int socket, void *bytes, unsigned long count, int *fd);

/* pidfd_open(2): a descriptor readable when process `pid` ends, so that a front can wait for
 * its worker with poll and a deadline instead of sleeping in steps. -1 with errno when the
 * kernel lacks it (before 5.3). Here because Swift cannot call the variadic syscall(2). */
int coordsh_pidfd_open(int pid);

#endif
