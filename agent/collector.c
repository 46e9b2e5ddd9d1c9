/* collector.c: the pipes of the processes the agent keeps. One thread reads every process's
 * output (poll, not a thread per pipe) into its buffer, and the main process's also to the
 * agent's own stdout and stderr. It reads under the table's lock, so a hand-over (which holds
 * it) finds every pipe between two reads. */
#include "agent.h"
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int wake_fd = -1;

void close3(int fds[3])
{
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
}

int open_pipes(int stdin_pipe, int mine[3], int theirs[3])
{
    int p[2];
    for (int i = 0; i < 3; i++)
        mine[i] = theirs[i] = -1;
    if (stdin_pipe) {
        if (pipe2(p, O_CLOEXEC) < 0)
            goto failed;
        theirs[0] = p[0];
        mine[0] = p[1];
    } else if ((theirs[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        goto failed;
    }
    for (int i = 1; i < 3; i++) {
        if (pipe2(p, O_CLOEXEC) < 0)
            goto failed;
        mine[i] = p[0];
        theirs[i] = p[1];
        fcntl(mine[i], F_SETFL, O_NONBLOCK); /* read by the collector's poll */
    }
    return 0;
failed:;
    int err = errno;
    close3(mine);
    close3(theirs);
    return -err;
}

void collector_wake(void)
{
    uint64_t one = 1;
    if (wake_fd >= 0 && write(wake_fd, &one, sizeof one) < 0) {
        /* already due to wake */
    }
}

struct polled { uint64_t serial; int which; };

static struct proc *by_serial(uint64_t serial)
{
    for (size_t i = 0; i < table_n; i++)
        if (table[i]->serial == serial)
            return table[i];
    return NULL;
}

static void *collector(void *arg)
{
    (void)arg;
    static char buf[IO_CHUNK], tee[2][IO_CHUNK];
    struct pollfd *fds = NULL;
    struct polled *who = NULL;
    size_t cap = 0;
    for (;;) {
        pthread_mutex_lock(&tab_mu);
        size_t need = 1 + 2 * table_n, n = 1;
        if (need > cap) {
            struct pollfd *f = realloc(fds, need * sizeof *f);
            if (f)
                fds = f;
            struct polled *w = realloc(who, need * sizeof *w);
            if (w)
                who = w;
            if (f && w)
                cap = need;
        }
        if (need > cap) {
            pthread_mutex_unlock(&tab_mu);
            struct timespec t = {0, 50000000};
            nanosleep(&t, NULL);
            continue;
        }
        fds[0] = (struct pollfd){wake_fd, POLLIN, 0};
        for (size_t i = 0; i < table_n; i++) {
            struct proc *p = table[i];
            if (p->out_fd >= 0) {
                fds[n] = (struct pollfd){p->out_fd, POLLIN, 0};
                who[n++] = (struct polled){p->serial, 1};
            }
            if (p->err_fd >= 0) {
                fds[n] = (struct pollfd){p->err_fd, POLLIN, 0};
                who[n++] = (struct polled){p->serial, 2};
            }
        }
        pthread_mutex_unlock(&tab_mu);
        if (poll(fds, n, -1) < 0)
            continue;
        uint64_t v;
        if ((fds[0].revents & POLLIN) && read(wake_fd, &v, sizeof v) < 0) {
            /* drained */
        }
        size_t teed[2] = {0, 0};
        pthread_mutex_lock(&tab_mu);
        for (size_t i = 1; i < n; i++) {
            if (!fds[i].revents)
                continue;
            struct proc *p = by_serial(who[i].serial);
            int *fd = p ? (who[i].which == 1 ? &p->out_fd : &p->err_fd) : NULL;
            if (!p || *fd != fds[i].fd)
                continue;
            ssize_t r = read(*fd, buf, sizeof buf);
            if (r > 0) {
                char kind = who[i].which == 1 ? FRAME_STDOUT : FRAME_STDERR;
                event_append_locked(p, kind, buf, r);
                if (p->tee && !teed[who[i].which - 1]) {
                    memcpy(tee[who[i].which - 1], buf, r);
                    teed[who[i].which - 1] = r;
                }
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                close(*fd);
                *fd = -1;
                p->open--;
                proc_notify_locked(p);
            }
        }
        pthread_mutex_unlock(&tab_mu);
        for (int k = 0; k < 2; k++)
            if (teed[k])
                write_all(k + 1, tee[k], teed[k]);
    }
    return NULL;
}

void collector_start(void)
{
    if (wake_fd >= 0)
        return;
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd < 0 || thread_start(collector, NULL, 32 * 1024) < 0)
        log_err("hearth-agent: cannot collect processes' output");
}
