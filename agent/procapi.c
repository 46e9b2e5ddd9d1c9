/* procapi.c: the processes routes: start in the background, list, get (or wait for the end),
 * output (replay, then follow), signal and stdin. The selector is a pid, or "main". */
#include "agent.h"
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define RUNNING_LIMIT 256

static void answer_proc(struct conn *c, int status, struct proc *p)
{
    struct jbuf b = {0};
    pthread_mutex_lock(&tab_mu);
    json_proc_locked(&b, p);
    pthread_mutex_unlock(&tab_mu);
    answer_json(c, status, &b);
}

/* The process's stdio: pipes (stdin one only if asked), or one new pty for all three (its master
 * the agent's stdin and output both; its output is stdout). 0, or an errno. */
static int open_stdio(struct run_spec *s, int mine[3], int theirs[3])
{
    if (!s->pty)
        return -open_pipes(s->stdin_pipe, mine, theirs);
    int master, slave;
    int err = open_pty(&master, &slave);
    if (err)
        return err;
    set_window(master, s->cols ? s->cols : 80, s->rows ? s->rows : 24);
    mine[0] = fcntl(master, F_DUPFD_CLOEXEC, 3);
    if (mine[0] < 0) {
        err = errno;
        close(master);
        close(slave);
        return err;
    }
    fcntl(master, F_SETFL, O_NONBLOCK); /* read by the collector's poll */
    mine[1] = master;
    mine[2] = -1;
    theirs[0] = slave;
    theirs[1] = fcntl(slave, F_DUPFD_CLOEXEC, 3);
    theirs[2] = fcntl(slave, F_DUPFD_CLOEXEC, 3);
    return theirs[1] < 0 || theirs[2] < 0 ? EMFILE : 0;
}

static void start(struct conn *c)
{
    struct run_spec s = {0};
    struct identity as = {0};
    size_t len;
    char *body = body_all(c, 4 << 20, &len);
    if (!body || spec_decode(body, len, SF_COMMAND | SF_ENV | SF_CWD | SF_TAG | SF_STDIN | SF_USER | SF_PTY
                             | SF_COLS | SF_ROWS, &s) < 0 || s.command.n == 0) {
        fail(c, 400, "invalid", "a command is required");
        goto out;
    }
    if (s.tag && strlen(s.tag) > 128) {
        fail(c, 400, "invalid", "a tag is at most 128 characters of UTF-8");
        goto out;
    }
    if (table_running() >= RUNNING_LIMIT) {
        fail(c, 429, "too_many_processes", "too many processes are running in this computer");
        goto out;
    }
    char path[PATH_MAX], msg[PATH_MAX + 128];
    int mine[3] = {-1, -1, -1}, theirs[3] = {-1, -1, -1};
    int err = s.command.nul || s.env.nul ? EINVAL : run_as(&s, &as);
    if (err && s.user) {
        snprintf(msg, sizeof msg, "user %s: %s", s.user, err == ENOENT ? "not in this computer's /etc/passwd"
                 : err_text(err));
        fail(c, 400, "cannot_start", msg);
        goto out;
    }
    if (!err)
        err = resolve(s.command.v[0], s.env.v, path, sizeof path);
    if (!err)
        err = open_stdio(&s, mine, theirs);
    if (err) {
        close3(mine);
        close3(theirs);
        snprintf(msg, sizeof msg, "%s: %s", s.command.v[0], err_text(err));
        fail(c, 400, "cannot_start", msg);
        goto out;
    }
    char *none[] = {NULL};
    struct spawn_spec sp = {path, s.command.v, s.env.v ? s.env.v : none, s.cwd, {theirs[0], theirs[1], theirs[2]},
                            !s.pty, s.pty, &as};
    struct proc *p = NULL;
    int pid = launch(&sp, s.tag ? s.tag : "", s.command.v, 0, mine, &p);
    close3(theirs);
    if (pid < 0) {
        close3(mine);
        snprintf(msg, sizeof msg, "%s: %s", s.command.v[0], err_text(-pid));
        fail(c, 400, "cannot_start", msg);
        goto out;
    }
    if (s.pty) {
        pthread_mutex_lock(&tab_mu);
        p->pty = 1;
        pthread_mutex_unlock(&tab_mu);
    }
    answer_proc(c, 201, p);
    proc_unref(p);
out:
    spec_free(&s);
    free(body);
}

static void list_one(struct proc *p, void *arg)
{
    struct jbuf *b = arg;
    if (b->len > 14)
        jb_raw(b, ",", 1);
    json_proc_locked(b, p);
}

static void list(struct conn *c)
{
    struct jbuf b = {0};
    jb_lit(&b, "{\"processes\":[");
    table_each(list_one, &b);
    jb_lit(&b, "]}");
    answer_json(c, 200, &b);
}

/* Waits for the process's end or the caller's going; 1 if the caller went. */
static int await_end(struct conn *c, struct proc *p)
{
    struct waiter w = {NULL, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
    if (w.efd < 0)
        return 1;
    int gone = 0;
    pthread_mutex_lock(&tab_mu);
    waiter_add_locked(p, &w);
    while (!p->ended && !gone) {
        pthread_mutex_unlock(&tab_mu);
        struct pollfd f[2] = {{w.efd, POLLIN, 0}, {c->fd, conn_watch(c), 0}};
        uint64_t v;
        if (poll(f, 2, -1) > 0) {
            if ((f[0].revents & POLLIN) && read(w.efd, &v, sizeof v) < 0) {
                /* drained */
            }
            gone = conn_hung_up(c, f[1].revents);
        }
        pthread_mutex_lock(&tab_mu);
    }
    waiter_remove_locked(p, &w);
    pthread_mutex_unlock(&tab_mu);
    close(w.efd);
    return gone;
}

struct batch { char *buf; size_t len; };

/* Copies the output from sequence number *next on (or the oldest kept, when that went), up to
 * 256 KiB, so that frames are written without the table's lock. 1 if more is left. */
static int since(struct proc *p, uint64_t *next, struct batch *b)
{
    b->len = 0;
    int more = 0;
    pthread_mutex_lock(&tab_mu);
    if (*next < p->first)
        *next = p->first;
    uint64_t seq = p->first;
    for (struct event *e = p->head; e; e = e->next, seq++) {
        if (seq < *next)
            continue;
        if (b->len && b->len + 5 + e->len > 256 * 1024) {
            more = 1;
            break;
        }
        char *grown = realloc(b->buf, b->len + 5 + e->len);
        if (!grown) {
            more = 1;
            break;
        }
        b->buf = grown;
        b->buf[b->len] = e->kind;
        memcpy(b->buf + b->len + 1, &e->len, 4);
        memcpy(b->buf + b->len + 5, e->data, e->len);
        b->len += 5 + e->len;
        (*next)++;
    }
    pthread_mutex_unlock(&tab_mu);
    return more;
}

static int send_batch(struct conn *c, struct batch *b)
{
    for (size_t at = 0; at < b->len;) {
        uint32_t n;
        memcpy(&n, b->buf + at + 1, 4);
        if (resp_frame(c, b->buf[at], b->buf + at + 5, n) < 0)
            return -1;
        at += 5 + n;
    }
    return 0;
}

/* The kept output as exec frames, then (with follow) what comes until the process ends; the
 * exit frame closes it once the process ended. */
static void output(struct conn *c, struct proc *p)
{
    char *follow_q = query_get(c, "follow"), *from_q = query_get(c, "from");
    int follow = follow_q && !strcmp(follow_q, "true"), from_now = from_q && !strcmp(from_q, "now");
    free(follow_q);
    free(from_q);
    resp_start(c, 200, "application/x-hearth-frames", -1);
    resp_flush(c);
    struct waiter w = {NULL, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
    if (w.efd < 0)
        return;
    pthread_mutex_lock(&tab_mu);
    waiter_add_locked(p, &w);
    pthread_mutex_unlock(&tab_mu);
    struct batch b = {0};
    uint64_t next = 0;
    if (from_now) { /* what it writes from here on only (E2B's Connect) */
        pthread_mutex_lock(&tab_mu);
        next = p->first + p->count;
        pthread_mutex_unlock(&tab_mu);
    }
    for (;;) {
        pthread_mutex_lock(&tab_mu);
        int ended = p->ended;
        pthread_mutex_unlock(&tab_mu);
        int more = since(p, &next, &b);
        if (send_batch(c, &b) < 0)
            break;
        if (more)
            continue;
        if (ended) {
            await_pipes(p, DRAIN_AFTER_EXIT_MS, c);
            while (since(p, &next, &b) && send_batch(c, &b) == 0)
                ;
            send_batch(c, &b);
            pthread_mutex_lock(&tab_mu);
            int code = p->exit_code;
            pthread_mutex_unlock(&tab_mu);
            exit_frame(c, code, 0);
            break;
        }
        if (!follow)
            break;
        struct pollfd f[2] = {{w.efd, POLLIN, 0}, {c->fd, conn_watch(c), 0}};
        uint64_t v;
        if (poll(f, 2, -1) > 0 && conn_hung_up(c, f[1].revents)) {
            c->broken = 1;
            break;
        }
        if ((f[0].revents & POLLIN) && read(w.efd, &v, sizeof v) < 0) {
            /* drained */
        }
    }
    free(b.buf);
    pthread_mutex_lock(&tab_mu);
    waiter_remove_locked(p, &w);
    pthread_mutex_unlock(&tab_mu);
    close(w.efd);
}

static const struct { const char *name; int sig; } signals[] = {
    {"TERM", SIGTERM}, {"KILL", SIGKILL}, {"INT", SIGINT}, {"HUP", SIGHUP}, {"QUIT", SIGQUIT},
    {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"STOP", SIGSTOP}, {"CONT", SIGCONT}};

static void signal_proc(struct conn *c, struct proc *p)
{
    size_t len;
    char *body = body_all(c, 1 << 20, &len), *name = NULL;
    if (body) { /* a body that is not JSON names no signal, as any unknown one */
        struct jcur j = JCUR(body, len);
        char key[16];
        int ok = jc_object(&j) == 1;
        while (ok && jc_key(&j, key, sizeof key) == 1) {
            if (!strcmp(key, "signal")) {
                free(name);
                name = NULL;
                ok = jc_string(&j, &name, NULL) >= 0;
            } else {
                ok = jc_skip(&j) == 0;
            }
        }
    }
    free(body);
    int sig = 0;
    for (size_t i = 0; name && i < sizeof signals / sizeof *signals; i++)
        if (!strcmp(name, signals[i].name))
            sig = signals[i].sig;
    free(name);
    if (!sig) {
        fail(c, 400, "invalid", "signal is one of TERM, KILL, INT, HUP, QUIT, USR1, USR2, STOP, CONT");
        return;
    }
    pthread_mutex_lock(&tab_mu);
    int ended = p->ended, pid = p->pid;
    pthread_mutex_unlock(&tab_mu);
    if (!ended) {
        if (sig == SIGKILL)
            kill_group(pid); /* until empty: a fork bomb's members fork while the signal goes out */
        else
            kill(-pid, sig); /* its group first (a shell's children get it too), then itself, which may have left it */
        if (kill(pid, sig) < 0 && errno != ESRCH) {
            fail(c, 400, "failed", err_text(errno));
            return;
        }
    }
    answer_proc(c, 200, p);
}

/* POST .../resize {cols, rows}: the window of a process started on a pty. */
static void resize_proc(struct conn *c, struct proc *p)
{
    size_t len;
    char *body = body_all(c, 1 << 16, &len);
    struct run_spec s = {0};
    int ok = body && spec_decode(body, len, SF_COLS | SF_ROWS, &s) == 0 && s.cols > 0 && s.rows > 0
             && s.cols <= 10000 && s.rows <= 10000;
    long long cols = s.cols, rows = s.rows; /* spec_free clears them */
    free(body);
    spec_free(&s);
    if (!ok) {
        fail(c, 400, "invalid", "cols and rows are whole numbers from 1 to 10000");
        return;
    }
    pthread_mutex_lock(&tab_mu);
    int pty = p->pty, fd = p->out_fd >= 0 ? p->out_fd : p->in_fd;
    if (pty && fd >= 0)
        set_window(fd, cols, rows);
    pthread_mutex_unlock(&tab_mu);
    if (!pty) {
        fail(c, 409, "no_pty", "the process was not started on a pty");
        return;
    }
    answer_proc(c, 200, p);
}

static void write_stdin(struct conn *c, struct proc *p)
{
    char *close_q = query_get(c, "close");
    int close_after = close_q && !strcmp(close_q, "true");
    free(close_q);
    pthread_mutex_lock(&tab_mu);
    int in = p->in_fd;
    /* A copy of our own: the process ending closes p->in_fd meanwhile, and its number may be reused. */
    int fd = in >= 0 ? fcntl(in, F_DUPFD_CLOEXEC, 3) : -1;
    pthread_mutex_unlock(&tab_mu);
    if (fd < 0) {
        fail(c, 409, "no_stdin", "the process takes no input (it was started without stdin, it closed, or it ended)");
        return;
    }
    char *buf = malloc(IO_CHUNK);
    int err = buf ? 0 : ENOMEM, cut = 0;
    while (buf) {
        ssize_t n = body_read(c, buf, IO_CHUNK, 0);
        if (n <= 0) {
            cut = n < 0;
            break;
        }
        if (write_all(fd, buf, n) < 0) {
            err = errno;
            break;
        }
    }
    free(buf);
    close(fd);
    if (close_after || err || cut) {
        pthread_mutex_lock(&tab_mu);
        if (p->in_fd == in) {
            close(in);
            p->in_fd = -1;
        }
        pthread_mutex_unlock(&tab_mu);
    }
    if (err || cut) {
        fail(c, 409, "no_stdin", cut ? err_text(0) : err_text(err));
        return;
    }
    answer_proc(c, 200, p);
}

void h_processes(struct conn *c, const char *rest)
{
    const char *m = c->method;
    if (!*rest) {
        if (!strcmp(m, "POST"))
            start(c);
        else if (!strcmp(m, "GET"))
            list(c);
        else {
            resp_start(c, 405, "text/plain; charset=utf-8", 19);
            resp_write(c, "Method Not Allowed\n", 19);
        }
        return;
    }
    const char *sel = rest + 1, *slash = strchr(sel, '/');
    size_t n = slash ? (size_t)(slash - sel) : strlen(sel);
    const char *what = slash ? slash : "";
    int get = !strcmp(m, "GET"), post = !strcmp(m, "POST");
    int known = !*what ? get : !strcmp(what, "/output") ? get
              : !strcmp(what, "/signal") || !strcmp(what, "/stdin") || !strcmp(what, "/resize") ? post : -1;
    if (!n || known < 0) {
        resp_start(c, 404, "text/plain; charset=utf-8", 19);
        resp_write(c, "404 page not found\n", 19);
        return;
    }
    if (!known) {
        resp_start(c, 405, "text/plain; charset=utf-8", 19);
        resp_write(c, "Method Not Allowed\n", 19);
        return;
    }
    char *selector = strndup(sel, n);
    struct proc *p = selector ? table_find(selector) : NULL;
    /* The agent serves before it starts the main process: a watch asked for at once is not refused. */
    for (int64_t until = now_ms() + 10000; !p && selector && !strcmp(selector, MAIN_TAG) && !atomic_load(&main_known)
                                           && now_ms() < until;) {
        struct timespec t = {0, 5000000};
        nanosleep(&t, NULL);
        p = table_find(selector);
    }
    if (!p) {
        size_t mn = n + 64;
        char *msg = malloc(mn);
        if (msg)
            snprintf(msg, mn, "no process %s is known in this computer", selector ? selector : "");
        fail(c, 404, "not_found", msg ? msg : "no such process is known in this computer");
        free(msg);
        free(selector);
        return;
    }
    free(selector);
    if (!*what) {
        char *wait = query_get(c, "wait");
        /* wait=exit answers once the process has ended: hearth serve learns of the main process's end. */
        int gone = wait && !strcmp(wait, "exit") && await_end(c, p);
        free(wait);
        if (gone)
            c->broken = 1;
        else
            answer_proc(c, 200, p);
    } else if (!strcmp(what, "/output")) {
        output(c, p);
    } else if (!strcmp(what, "/signal")) {
        signal_proc(c, p);
    } else if (!strcmp(what, "/resize")) {
        resize_proc(c, p);
    } else {
        write_stdin(c, p);
    }
    proc_unref(p);
}
