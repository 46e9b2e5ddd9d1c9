/* procs.c: the process table: the main process and those started in the background, each with
 * its output kept (1 MiB each, the oldest going first), at most 256 running and 32 ended ones
 * remembered. One collector thread reads every process's pipes (poll, not a thread per pipe);
 * followers are woken through eventfds they register. */
#include "agent.h"
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define OUTPUT_LIMIT (1 << 20)
#define REMEMBER_ENDED 32

pthread_mutex_t tab_mu = PTHREAD_MUTEX_INITIALIZER;
struct proc **table;
size_t table_n;
int table_main;
static size_t table_cap;
static uint64_t serials;
static int wake_fd = -1;

struct proc *proc_new(int pid, const char *tag, char **command, struct timespec started)
{
    struct proc *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    struct strv argv;
    p->tag = strdup(tag ? tag : "");
    if (!p->tag || strv_dup(&argv, command) < 0) {
        free(p->tag);
        free(p);
        return NULL;
    }
    p->command = argv.v;
    p->pid = pid;
    p->started = started;
    p->in_fd = p->out_fd = p->err_fd = -1;
    p->refs = 1;
    return p;
}

static void proc_free(struct proc *p)
{
    int fds[3] = {p->in_fd, p->out_fd, p->err_fd};
    close3(fds);
    for (struct event *e = p->head, *next; e; e = next) {
        next = e->next;
        free(e);
    }
    for (char **a = p->command; a && *a; a++)
        free(*a);
    free(p->command);
    free(p->tag);
    free(p);
}

void proc_unref_locked(struct proc *p)
{
    if (--p->refs == 0)
        proc_free(p);
}

void proc_unref(struct proc *p)
{
    pthread_mutex_lock(&tab_mu);
    proc_unref_locked(p);
    pthread_mutex_unlock(&tab_mu);
}

void proc_notify_locked(struct proc *p)
{
    uint64_t one = 1;
    for (struct waiter *w = p->waiters; w; w = w->next)
        if (write(w->efd, &one, sizeof one) < 0) {
            /* a full counter already wakes its follower */
        }
}

void waiter_add_locked(struct proc *p, struct waiter *w)
{
    w->next = p->waiters;
    p->waiters = w;
}

void waiter_remove_locked(struct proc *p, struct waiter *w)
{
    for (struct waiter **at = &p->waiters; *at; at = &(*at)->next)
        if (*at == w) {
            *at = w->next;
            return;
        }
}

void proc_end_locked(struct proc *p, int code, struct timespec at)
{
    if (p->ended)
        return;
    p->ended = 1;
    p->exit_code = code;
    p->ended_at = at;
    if (p->in_fd >= 0) {
        close(p->in_fd);
        p->in_fd = -1;
    }
    proc_notify_locked(p);
}

void proc_exited(void *arg, int status)
{
    struct proc *p = arg;
    pthread_mutex_lock(&tab_mu);
    proc_end_locked(p, exit_code(status), now_real());
    proc_unref_locked(p); /* the reaper's reference */
    pthread_mutex_unlock(&tab_mu);
}

static int before(const struct proc *a, const struct proc *b)
{
    return a->started.tv_sec < b->started.tv_sec ||
           (a->started.tv_sec == b->started.tv_sec && a->started.tv_nsec < b->started.tv_nsec);
}

static void remove_at(size_t i)
{
    struct proc *p = table[i];
    memmove(table + i, table + i + 1, (table_n - i - 1) * sizeof *table);
    table_n--;
    proc_unref_locked(p);
}

/* The oldest ended processes beyond what is remembered go. */
static void forget_ended_locked(void)
{
    for (;;) {
        size_t ended = 0, oldest = 0;
        for (size_t i = 0; i < table_n; i++)
            if (table[i]->ended && table[i]->pid != table_main) {
                if (!ended || before(table[i], table[oldest]))
                    oldest = i;
                ended++;
            }
        if (ended <= REMEMBER_ENDED)
            return;
        remove_at(oldest);
    }
}

static int table_add_locked(struct proc *p)
{
    if (table_n == table_cap) {
        size_t cap = table_cap ? table_cap * 2 : 16;
        struct proc **t = realloc(table, cap * sizeof *t);
        if (!t)
            return -1;
        table = t;
        table_cap = cap;
    }
    for (size_t i = 0; i < table_n; i++)
        if (table[i]->pid == p->pid) { /* a pid used again: the new process is the one known by it */
            remove_at(i);
            break;
        }
    p->serial = ++serials;
    table[table_n++] = p;
    if (p->tee)
        table_main = p->pid;
    forget_ended_locked();
    return 0;
}

void table_add(struct proc *p)
{
    pthread_mutex_lock(&tab_mu);
    if (table_add_locked(p) < 0)
        proc_unref_locked(p);
    pthread_mutex_unlock(&tab_mu);
    collector_wake();
}

struct proc *table_find(const char *selector)
{
    long pid;
    if (!strcmp(selector, MAIN_TAG))
        pid = -1;
    else if (parse_decimal(selector, &pid) < 0 || pid != (int)pid)
        return NULL;
    struct proc *found = NULL;
    pthread_mutex_lock(&tab_mu);
    if (pid == -1)
        pid = table_main ? table_main : -2;
    for (size_t i = 0; i < table_n; i++)
        if (table[i]->pid == pid) {
            found = table[i];
            found->refs++;
            break;
        }
    pthread_mutex_unlock(&tab_mu);
    return found;
}

int table_running(void)
{
    int n = 0;
    pthread_mutex_lock(&tab_mu);
    for (size_t i = 0; i < table_n; i++)
        n += !table[i]->ended;
    pthread_mutex_unlock(&tab_mu);
    return n;
}

void table_each(void (*fn)(struct proc *, void *), void *arg)
{
    pthread_mutex_lock(&tab_mu);
    struct proc **sorted = malloc((table_n + 1) * sizeof *sorted);
    if (sorted) {
        for (size_t i = 0; i < table_n; i++) { /* insertion sort: the table is small */
            size_t j = i;
            for (; j > 0 && before(table[i], sorted[j - 1]); j--)
                sorted[j] = sorted[j - 1];
            sorted[j] = table[i];
        }
        for (size_t i = 0; i < table_n; i++)
            fn(sorted[i], arg);
        free(sorted);
    }
    pthread_mutex_unlock(&tab_mu);
}

int event_append_locked(struct proc *p, char kind, const char *data, size_t n)
{
    struct event *e = malloc(sizeof *e + n);
    if (!e)
        return -1;
    e->next = NULL;
    e->kind = kind;
    e->len = (uint32_t)n;
    memcpy(e->data, data, n);
    if (p->tail)
        p->tail->next = e;
    else
        p->head = e;
    p->tail = e;
    p->size += n;
    p->count++;
    while (p->size > OUTPUT_LIMIT && p->count > 1) {
        struct event *old = p->head;
        p->head = old->next;
        p->size -= old->len;
        p->count--;
        p->first++;
        free(old);
    }
    proc_notify_locked(p);
    return 0;
}

void json_proc_locked(struct jbuf *b, struct proc *p)
{
    jb_lit(b, "{\"pid\":");
    jb_int(b, p->pid);
    jb_lit(b, ",\"tag\":");
    jb_strz(b, p->tag);
    jb_lit(b, ",\"command\":");
    jb_strv(b, p->command);
    jb_lit(b, p->ended ? ",\"state\":\"exited\",\"exit_code\":" : ",\"state\":\"running\",\"exit_code\":null");
    if (p->ended)
        jb_int(b, p->exit_code);
    jb_lit(b, ",\"started_at\":");
    jb_time(b, p->started);
    jb_lit(b, ",\"ended_at\":");
    if (p->ended)
        jb_time(b, p->ended_at);
    else
        jb_lit(b, "null");
    jb_lit(b, p->in_fd >= 0 ? ",\"stdin\":true}" : ",\"stdin\":false}");
}

/* Gives output still in the pipes of an ended process a moment to arrive, as an exec's answer
 * does: until both pipes end, limit_ms passes, or the caller (c, NULL: none) hangs up. */
int await_pipes(struct proc *p, int limit_ms, struct conn *c)
{
    struct waiter w = {NULL, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
    int64_t deadline = now_ms() + limit_ms;
    int gone = 0;
    pthread_mutex_lock(&tab_mu);
    if (w.efd >= 0)
        waiter_add_locked(p, &w);
    while (p->open > 0) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            break;
        pthread_mutex_unlock(&tab_mu);
        struct pollfd f[2] = {{w.efd, POLLIN, 0}, {c ? c->fd : -1, c ? conn_watch(c) : 0, 0}};
        int r = poll(f, c ? 2 : 1, w.efd >= 0 ? (int)left : 2);
        uint64_t v;
        if (r > 0 && (f[0].revents & POLLIN) && read(w.efd, &v, sizeof v) < 0) {
            /* drained already */
        }
        pthread_mutex_lock(&tab_mu);
        if (c && r > 0 && conn_hung_up(c, f[1].revents)) {
            gone = 1;
            break;
        }
    }
    if (w.efd >= 0)
        waiter_remove_locked(p, &w);
    pthread_mutex_unlock(&tab_mu);
    if (w.efd >= 0)
        close(w.efd);
    return gone;
}

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

/* Starts a process whose stdio are s->fds and keeps it in the table with mine, the agent's ends
 * (taken over on success). The reaper may have its status before it is in the table: the proc
 * exists first, and the reaper holds a reference to it. */
int launch(const struct spawn_spec *s, const char *tag, char **argv, int tee, int mine[3], struct proc **out)
{
    struct proc *p = proc_new(0, tag, argv, now_real());
    if (!p)
        return -ENOMEM;
    p->tee = tee;
    p->refs = 2;
    int pid = spawn(s, proc_exited, p);
    if (pid < 0) {
        p->refs = 1;
        proc_unref(p);
        return pid;
    }
    pthread_mutex_lock(&tab_mu);
    p->pid = pid;
    p->started = now_real();
    p->in_fd = mine[0];
    p->out_fd = mine[1];
    p->err_fd = mine[2];
    if (p->ended && p->in_fd >= 0) {
        close(p->in_fd);
        p->in_fd = -1;
    }
    p->open = (p->out_fd >= 0) + (p->err_fd >= 0);
    mine[0] = mine[1] = mine[2] = -1;
    if (out) {
        p->refs++;
        *out = p;
    }
    if (table_add_locked(p) < 0) { /* no room to remember it: it runs, unlisted */
        proc_unref_locked(p);
    }
    pthread_mutex_unlock(&tab_mu);
    collector_wake();
    return pid;
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
