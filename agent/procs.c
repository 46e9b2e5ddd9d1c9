/* procs.c: the process table: the main process and those started in the background, each with
 * its output kept (1 MiB each, the oldest going first), at most 256 running and 32 ended ones
 * remembered; followers are woken through eventfds they register (collector.c reads the pipes). */
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
    jb_lit(b, p->in_fd >= 0 ? ",\"stdin\":true" : ",\"stdin\":false");
    jb_lit(b, p->pty ? ",\"pty\":true}" : ",\"pty\":false}");
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
