/* handover.c: renewal. hearth serve sends SIGPWR after restoring a checkpoint taken while the
 * computer ran (gVisor restored a Go runtime's epoll deaf, google/gvisor#13920; a fresh program
 * is the safe answer for any agent): PID 1 executes itself anew, keeping its pid, its children
 * and the process table. The table goes through a memfd inherited across exec, as JSON, so an
 * agent asleep across an upgrade hands over to the one mounted now. */
#include "agent.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct sink { int fd; char buf[64 * 1024]; size_t len; int failed; };

static void put(struct sink *s, const char *p, size_t n)
{
    while (n && !s->failed) {
        if (s->len == sizeof s->buf) {
            s->failed = write_all(s->fd, s->buf, s->len) < 0;
            s->len = 0;
        }
        size_t k = sizeof s->buf - s->len < n ? sizeof s->buf - s->len : n;
        memcpy(s->buf + s->len, p, k);
        s->len += k;
        p += k;
        n -= k;
    }
}

static void put_json(struct sink *s, struct jbuf *b)
{
    put(s, b->p, b->len);
    s->failed |= b->failed;
    b->len = 0;
}

static void hand_one(struct sink *s, struct proc *p, struct jbuf *b)
{
    jb_lit(b, "{\"pid\":");
    jb_int(b, p->pid);
    jb_lit(b, ",\"tag\":");
    jb_strz(b, p->tag);
    jb_lit(b, ",\"command\":");
    jb_strv(b, p->command);
    jb_lit(b, ",\"started_at\":");
    jb_time(b, p->started);
    jb_lit(b, ",\"ended_at\":");
    if (p->ended)
        jb_time(b, p->ended_at);
    else
        jb_lit(b, "null");
    jb_lit(b, ",\"exit_code\":");
    if (p->ended)
        jb_int(b, p->exit_code);
    else
        jb_lit(b, "null");
    jb_lit(b, ",\"events\":[");
    put_json(s, b);
    char *enc = malloc((IO_CHUNK + 2) / 3 * 4 + 4);
    for (struct event *e = p->head; e && enc; e = e->next) {
        char head[32];
        int n = snprintf(head, sizeof head, "%s{\"k\":%d,\"d\":\"", e == p->head ? "" : ",", (unsigned char)e->kind);
        put(s, head, n);
        for (uint32_t at = 0; at < e->len; at += IO_CHUNK / 3 * 3) { /* whole 3-byte groups but the last */
            uint32_t k = e->len - at < IO_CHUNK / 3 * 3 ? e->len - at : IO_CHUNK / 3 * 3;
            put(s, enc, base64_encode(enc, (unsigned char *)e->data + at, k));
        }
        put(s, "\"}", 2);
    }
    s->failed |= !enc;
    free(enc);
    int fds[3] = {p->in_fd, p->out_fd, p->err_fd};
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            fcntl(fds[i], F_SETFD, 0); /* kept open across exec */
    jb_lit(b, "],\"first\":");
    jb_int(b, (long long)p->first);
    jb_lit(b, p->pid == table_main ? ",\"main\":true,\"fds\":[" : ",\"main\":false,\"fds\":[");
    for (int i = 0; i < 3; i++) {
        if (i)
            jb_raw(b, ",", 1);
        jb_int(b, fds[i]);
    }
    jb_lit(b, "]}");
    put_json(s, b);
}

/* The reaper stays locked from here to the exec, so no status is collected and lost in between;
 * the table's lock keeps the collector from reading the pipes the renewed agent will read. */
void renew(void)
{
    reaper_lock();
    pthread_mutex_lock(&tab_mu);
    struct sink *s = malloc(sizeof *s);
    char extra[64] = "";
    int fd = (int)syscall(SYS_memfd_create, "hearth-agent-state", 0);
    int err = fd < 0 ? errno : !s ? ENOMEM : 0;
    if (!err) {
        s->fd = fd;
        s->len = 0;
        s->failed = 0;
        struct jbuf b = {0};
        put(s, "[", 1);
        for (size_t i = 0; i < table_n; i++) {
            if (i)
                put(s, ",", 1);
            hand_one(s, table[i], &b);
        }
        put(s, "]", 1);
        free(b.p);
        if (!s->failed)
            s->failed = write_all(fd, s->buf, s->len) < 0;
        err = s->failed ? (errno ? errno : ENOMEM) : 0;
    }
    free(s);
    if (err) {
        log_err("hearth-agent: cannot hand the processes over; their output is lost: %s", err_text(err));
        if (fd >= 0)
            close(fd);
        fd = -1;
    } else {
        snprintf(extra, sizeof extra, "%s=%d", STATE_ENV, fd);
    }
    char **env = env_for_renewal(fd >= 0 ? extra : NULL);
    if (env)
        execve(reexec_args[0], reexec_args, env);
    log_err("hearth-agent: cannot renew itself: %s", err_text(env ? errno : ENOMEM));
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; i < table_n; i++) { /* as before: the collector goes on */
        int fds[3] = {table[i]->in_fd, table[i]->out_fd, table[i]->err_fd};
        for (int k = 0; k < 3; k++)
            if (fds[k] >= 0)
                fcntl(fds[k], F_SETFD, FD_CLOEXEC);
    }
    pthread_mutex_unlock(&tab_mu);
    reaper_unlock();
}

/* A handed descriptor, ours again: closed on exec, and read by the collector without blocking
 * (stdin stays blocking: it is written whole). */
static int reopen(long long fd, int nonblocking)
{
    if (fd < 0 || fd > 1 << 20 || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    int fl = fcntl((int)fd, F_GETFL);
    fcntl((int)fd, F_SETFL, nonblocking ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
    return (int)fd;
}

static void adopt(int pid, const char *tag, char **command, struct timespec started, int ended,
                  struct timespec ended_at, int code, struct proc *events, int is_main, long long fds[3])
{
    struct proc *p = proc_new(pid, tag, command, started);
    if (!p) {
        for (int i = 0; i < 3; i++)
            if (fds[i] >= 0)
                close((int)fds[i]);
        return;
    }
    p->in_fd = reopen(fds[0], 0);
    p->out_fd = reopen(fds[1], 1);
    p->err_fd = reopen(fds[2], 1);
    p->open = (p->out_fd >= 0) + (p->err_fd >= 0);
    p->tee = is_main;
    if (events) {
        p->head = events->head;
        p->tail = events->tail;
        p->first = events->first;
        p->count = events->count;
        p->size = events->size;
    }
    pthread_mutex_lock(&tab_mu);
    if (ended) {
        proc_end_locked(p, code, ended_at);
    } else {
        p->refs++; /* the reaper's */
    }
    pthread_mutex_unlock(&tab_mu);
    if (!ended)
        reaper_watch(pid, proc_exited, p);
    table_add(p);
}

static int decode_events(struct jcur *j, struct proc *into)
{
    int r = jc_array(j);
    if (r <= 0)
        return r;
    while ((r = jc_next(j)) == 1) {
        char key[8];
        long long kind = 0;
        char *data = NULL;
        size_t len = 0;
        int ok = jc_object(j) == 1;
        while (ok && (r = jc_key(j, key, sizeof key)) == 1) {
            if (!strcmp(key, "k"))
                ok = jc_int(j, &kind) >= 0;
            else if (!strcmp(key, "d")) {
                free(data);
                data = NULL;
                ok = jc_string(j, &data, &len) >= 0;
            } else
                ok = jc_skip(j) == 0;
        }
        long n = data ? base64_decode((unsigned char *)data, data, len) : 0;
        if (ok && r == 0 && n >= 0)
            event_append_locked(into, (char)kind, data ? data : "", n);
        free(data);
        if (!ok || r < 0)
            return -1;
    }
    return r;
}

static int decode_one(struct jcur *j)
{
    char key[16];
    long long pid = 0, code = 0, first = 0, fds[3] = {-1, -1, -1};
    char *tag = NULL, *started = NULL, *ended = NULL;
    size_t started_len = 0, ended_len = 0;
    struct strv command = {0};
    struct proc events = {0};
    int main = 0, r = jc_object(j), ok = r == 1, has_code = 0;
    while (ok && (r = jc_key(j, key, sizeof key)) == 1) {
        if (!strcmp(key, "pid"))
            ok = jc_int(j, &pid) >= 0;
        else if (!strcmp(key, "tag"))
            ok = jc_string(j, &tag, NULL) >= 0;
        else if (!strcmp(key, "command"))
            ok = jc_strings(j, &command) >= 0;
        else if (!strcmp(key, "started_at"))
            ok = jc_string(j, &started, &started_len) >= 0;
        else if (!strcmp(key, "ended_at"))
            ok = jc_string(j, &ended, &ended_len) >= 0;
        else if (!strcmp(key, "exit_code"))
            ok = (has_code = jc_int(j, &code)) >= 0;
        else if (!strcmp(key, "events"))
            ok = decode_events(j, &events) >= 0;
        else if (!strcmp(key, "first"))
            ok = jc_int(j, &first) >= 0;
        else if (!strcmp(key, "main"))
            ok = jc_bool(j, &main) >= 0;
        else if (!strcmp(key, "fds")) {
            ok = jc_array(j) >= 0;
            for (int i = 0; ok && (r = jc_next(j)) == 1;)
                ok = i < 3 ? jc_int(j, &fds[i++]) >= 0 : jc_skip(j) == 0;
            ok = ok && r >= 0;
        } else
            ok = jc_skip(j) == 0;
    }
    ok = ok && r == 0;
    struct timespec st = {0, 0}, en = {0, 0};
    if (ok && pid > 0 && pid <= INT32_MAX) {
        if (started)
            parse_time(started, started_len, &st);
        int done = ended && parse_time(ended, ended_len, &en) == 0;
        events.first += first;
        adopt((int)pid, tag, command.v, st, done, en, done && has_code ? (int)code : 0, &events, main, fds);
    } else {
        for (struct event *e = events.head, *next; e; e = next) {
            next = e->next;
            free(e);
        }
    }
    free(tag);
    free(started);
    free(ended);
    strv_free(&command);
    return ok ? 0 : -1;
}

static void adopt_legacy(const char *text)
{
    long pid;
    if (parse_decimal(text, &pid) < 0 || pid <= 0)
        return;
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    struct strv command = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    while (n > 0 && buf[n - 1] == 0)
        n--;
    for (ssize_t at = 0; n > 0 && at <= n;) {
        size_t len = strnlen(buf + at, n - at);
        strv_push(&command, buf + at, len);
        at += len + 1;
    }
    long long fds[3] = {-1, -1, -1};
    struct timespec none = {0, 0};
    char *empty[] = {NULL};
    adopt((int)pid, MAIN_TAG, command.v ? command.v : empty, now_real(), 0, none, 0, NULL, 1, fds);
    strv_free(&command);
}

int take_over(void)
{
    char *legacy = env_get(LEGACY_MAIN_ENV);
    if (legacy) {
        env_unset(LEGACY_MAIN_ENV);
        adopt_legacy(legacy);
        free(legacy);
        return 1;
    }
    char *text = env_get(STATE_ENV);
    if (!text)
        return 0;
    env_unset(STATE_ENV);
    long fd;
    int ok = parse_decimal(text, &fd) == 0 && fd >= 0 && fd < INT32_MAX;
    free(text);
    if (!ok)
        return 1;
    off_t size = lseek((int)fd, 0, SEEK_END);
    char *map = size > 0 ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, (int)fd, 0) : MAP_FAILED;
    if (map != MAP_FAILED) {
        struct jcur j = JCUR(map, (size_t)size);
        int r = jc_array(&j);
        while (r == 1 && (r = jc_next(&j)) == 1)
            if (decode_one(&j) < 0)
                r = -1;
        if (r < 0)
            log_err("hearth-agent: cannot take the processes over: the hand-over is not readable");
        munmap(map, size);
    }
    close((int)fd);
    return 1;
}
