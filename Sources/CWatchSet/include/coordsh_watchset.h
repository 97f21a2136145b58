#ifndef COORDSH_WATCHSET_H
#define COORDSH_WATCHSET_H

/* A watch set: one descriptor (an epoll set) that is readable when any descriptor in it is,
 * so that the prompt can keep watching "the current worker" while the worker is replaced. A
 * descriptor leaves the set by itself when it is closed. Returns -1 on failure. */
int coordsh_watchset_create(void);
int coordsh_watchset_add(int set, int fd);
/* Looks at the set without waiting. Readiness is level-triggered: it ends only when the
 * members themselves are read or closed. */
void coordsh_watchset_drain(int set);

#endif
