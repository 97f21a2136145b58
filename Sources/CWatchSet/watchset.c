#include "coordsh_watchset.h"

#include <sys/epoll.h>

int coordsh_watchset_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int coordsh_watchset_add(int set, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.fd = fd;
    return epoll_ctl(set, EPOLL_CTL_ADD, fd, &event);
}

void coordsh_watchset_drain(int set) {
    /* One look, never a loop: the set is level-triggered, so a member at end of file (a worker
     * that died) stays ready until it is closed, and looping until fewer than 8 were ready
     * spun for ever once 8 members were (a server with 8 scenes on a dead worker). */
    struct epoll_event events[8];
    (void)epoll_wait(set, events, 8, 0);
}
