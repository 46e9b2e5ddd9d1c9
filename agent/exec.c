/* exec.c: POST /exec. The request is a JSON head (4 bytes of its length first) and then stdin;
 * the answer, frames of output as it comes and then the exit. One poll loop per command moves
 * stdin in, output out, and watches the time limit and the caller: either ending kills the
 * command's whole tree. */
#include "agent.h"
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define HEAD_LIMIT (4 << 20)

int read_head(struct conn *c, char **head, size_t *len)
{
    unsigned char size[4];
    size_t got = 0;
    while (got < 4) {
        ssize_t n = body_read(c, size + got, 4 - got, 0);
        if (n <= 0)
            return -1;
        got += n;
    }
    size_t n = (size_t)size[0] << 24 | (size_t)size[1] << 16 | (size_t)size[2] << 8 | size[3];
    if (n > HEAD_LIMIT)
        return -1;
    char *buf = malloc(n + 1);
    if (!buf)
        return -1;
    for (got = 0; got < n;) {
        ssize_t r = body_read(c, buf + got, n - got, 0);
        if (r <= 0) {
            free(buf);
            return -1;
        }
        got += r;
    }
    buf[n] = 0;
    *head = buf;
    *len = n;
    return 0;
}

void exit_frame(struct conn *c, int code, int timed_out)
{
    char body[64];
    int n = snprintf(body, sizeof body, "{\"exit_code\":%d,\"timed_out\":%s}\n", code, timed_out ? "true" : "false");
    resp_frame(c, FRAME_EXIT, body, n);
}

int unread_bytes(int fd)
{
    int n = 0;
    return fd >= 0 && ioctl(fd, FIONREAD, &n) == 0 && n > 0;
}

/* The exit code a shell gives for a command it cannot run. */
int start_failure(int err) { return err == ENOENT ? 127 : 126; }

struct ended { int status; int efd; };

static void on_exit_status(void *arg, int status)
{
    struct ended *e = arg;
    uint64_t one = 1;
    e->status = status;
    if (write(e->efd, &one, sizeof one) < 0) {
        /* the counter is set already */
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

struct run {
    struct conn *c;
    int pid, out, err, in;
    struct ended end;
    int ended, timed_out, gone, killed;
    char *buf;          /* output read, then relayed */
    char *stdin_buf;    /* body read, not yet taken by the command */
    size_t stdin_len, stdin_off;
    int discarding;     /* the command took no more stdin: the rest of the body is dropped */
};

static void relay(struct run *r, int *fd, char kind)
{
    ssize_t n = read(*fd, r->buf, IO_CHUNK);
    if (n > 0) {
        if (!r->gone && resp_frame(r->c, kind, r->buf, n) < 0)
            r->gone = 1;
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        close_fd(fd);
    }
}

/* Moves what it can of the body into the command's stdin, without waiting. */
static void feed(struct run *r)
{
    struct conn *c = r->c;
    for (;;) {
        if (r->stdin_off < r->stdin_len && !r->discarding) {
            ssize_t w = write(r->in, r->stdin_buf + r->stdin_off, r->stdin_len - r->stdin_off);
            if (w < 0 && (errno == EAGAIN || errno == EINTR))
                return;
            if (w < 0) { /* it stopped reading (ended, or closed its stdin): the rest is read and dropped */
                r->discarding = 1;
                close_fd(&r->in);
                continue;
            }
            r->stdin_off += w;
            continue;
        }
        if (c->body_done)
            break;
        ssize_t n = body_read(c, r->stdin_buf, IO_CHUNK, 1);
        if (n == -2)
            return;
        if (n < 0) { /* the body was cut short: the caller is gone */
            r->gone = 1;
            break;
        }
        if (n == 0)
            break;
        r->stdin_len = n;
        r->stdin_off = 0;
        if (r->discarding)
            r->stdin_len = 0;
    }
    close_fd(&r->in); /* EOF for the command */
}

static int stdin_pending(struct run *r)
{
    return !r->c->body_done || (r->stdin_off < r->stdin_len && !r->discarding);
}

static void loop(struct run *r, long long timeout_ms)
{
    struct conn *c = r->c;
    int64_t deadline = now_ms() + (timeout_ms > 100LL * 365 * 86400000 ? 100LL * 365 * 86400000 : timeout_ms);
    int64_t drain_until = 0, kill_again = 0;
    for (;;) {
        feed(r);
        if (r->gone && !r->killed) {
            kill_tree(r->pid);
            kill_again = now_ms() + KILL_AGAIN_MS;
            r->killed = 1;
            close_fd(&r->out);
            close_fd(&r->err);
        }
        if (r->ended && r->out < 0 && r->err < 0 && (r->gone || !stdin_pending(r)))
            return;
        int64_t now = now_ms();
        if (!r->ended && !r->timed_out && now >= deadline) {
            r->timed_out = 1;
            kill_tree(r->pid);
            kill_again = now_ms() + KILL_AGAIN_MS;
        } else if ((r->timed_out || r->killed) && !r->ended && now >= kill_again) {
            kill_group(r->pid); /* what forked while the first kill went out */
            kill_again = now + KILL_AGAIN_MS;
        }
        if (r->ended && now >= drain_until && !unread_bytes(r->out) && !unread_bytes(r->err)) {
            /* output held open by a child left behind is not waited for */
            close_fd(&r->out);
            close_fd(&r->err);
            if (!r->discarding && r->in >= 0) {
                r->discarding = 1;
                close_fd(&r->in);
            }
            if (r->gone || !stdin_pending(r))
                return;
        }
        struct pollfd f[5];
        int n = 0, i_end = -1, i_out = -1, i_err = -1, i_in = -1, i_conn;
        if (!r->ended)
            i_end = n, f[n++] = (struct pollfd){r->end.efd, POLLIN, 0};
        if (r->out >= 0)
            i_out = n, f[n++] = (struct pollfd){r->out, POLLIN, 0};
        if (r->err >= 0)
            i_err = n, f[n++] = (struct pollfd){r->err, POLLIN, 0};
        if (r->in >= 0 && r->stdin_off < r->stdin_len && !r->discarding)
            i_in = n, f[n++] = (struct pollfd){r->in, POLLOUT, 0};
        int want_body = !c->body_done && !(r->stdin_off < r->stdin_len && !r->discarding);
        i_conn = -1;
        if (!r->gone)
            i_conn = n, f[n++] = (struct pollfd){c->fd, (short)(conn_watch(c) | (want_body ? POLLIN : 0)), 0};
        int wait = -1;
        if (!r->ended && !r->timed_out && !r->gone)
            wait = deadline - now > INT_MAX ? INT_MAX : (int)(deadline - now);
        if (!r->ended && (r->timed_out || r->killed))
            wait = KILL_AGAIN_MS;
        if (r->ended && (r->out >= 0 || r->err >= 0))
            wait = now < drain_until ? (int)(drain_until - now) : 2;
        if (poll(f, n, wait) < 0 && errno != EINTR)
            continue;
        if (i_end >= 0 && (f[i_end].revents & POLLIN)) {
            uint64_t v;
            if (read(r->end.efd, &v, sizeof v) == sizeof v) {
                r->ended = 1;
                drain_until = now_ms() + DRAIN_AFTER_EXIT_MS;
            }
        }
        if (i_out >= 0 && f[i_out].revents)
            relay(r, &r->out, FRAME_STDOUT);
        if (i_err >= 0 && f[i_err].revents)
            relay(r, &r->err, FRAME_STDERR);
        (void)i_in;
        /* Jetty never half-closes: a peer that shut its side is gone (what it sent is still read first). */
        if (i_conn >= 0 && c->body_done && conn_hung_up(c, f[i_conn].revents))
            r->gone = 1;
        else if (i_conn >= 0 && (f[i_conn].revents & (POLLRDHUP | POLLHUP | POLLERR))) {
            feed(r); /* what it sent is still read first */
            r->gone = 1;
        }
    }
}

void h_exec(struct conn *c)
{
    c->duplex = 1;
    struct run_spec s = {0};
    struct identity as = {0};
    char *head = NULL, path[PATH_MAX], msg[PATH_MAX + 64];
    size_t len;
    if (read_head(c, &head, &len) < 0) {
        fail(c, 400, "invalid", "the exec head is missing, too large or cut short");
        return;
    }
    if (spec_decode(head, len, SF_COMMAND | SF_ENV | SF_CWD | SF_USER | SF_TIMEOUT, &s) < 0 || s.command.n == 0
            || s.timeout_ms <= 0) {
        free(head);
        spec_free(&s);
        fail(c, 400, "invalid", "the exec head needs a command and a timeout");
        return;
    }
    free(head);
    resp_start(c, 200, "application/x-hearth-frames", -1);
    resp_flush(c); /* the head goes at once: a command may be silent for as long as its time limit */
    struct run r = {.c = c, .out = -1, .err = -1, .in = -1, .end = {0, -1}};
    int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1};
    int user_err = s.command.nul || s.env.nul ? 0 : run_as(&s, &as);
    int err = s.command.nul || s.env.nul ? EINVAL : user_err ? user_err : resolve(s.command.v[0], s.env.v, path, sizeof path);
    r.buf = malloc(IO_CHUNK);
    r.stdin_buf = malloc(IO_CHUNK);
    r.end.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (!err && (!r.buf || !r.stdin_buf || r.end.efd < 0))
        err = ENOMEM;
    if (!err && (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0))
        err = errno;
    if (!err) {
        char *none[] = {NULL};
        struct spawn_spec sp = {path, s.command.v, s.env.v ? s.env.v : none, s.cwd, {in[0], out[1], errp[1]}, 1, 0, &as};
        r.pid = spawn(&sp, on_exit_status, &r.end);
        if (r.pid < 0)
            err = -r.pid;
    }
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&errp[1]);
    if (err) {
        close_fd(&in[1]);
        close_fd(&out[0]);
        close_fd(&errp[0]);
        body_discard(c, UINT64_MAX);
        if (user_err)
            snprintf(msg, sizeof msg, "hearth-agent: user %s: %s\n", s.user, user_err == ENOENT
                     ? "not in this computer's /etc/passwd" : err_text(user_err));
        else
            snprintf(msg, sizeof msg, "hearth-agent: %s: %s\n", s.command.v[0], err_text(err));
        resp_frame(c, FRAME_STDERR, msg, strlen(msg));
        exit_frame(c, start_failure(err), 0);
    } else {
        r.in = in[1];
        r.out = out[0];
        r.err = errp[0];
        fcntl(r.in, F_SETFL, O_NONBLOCK);
        fcntl(r.out, F_SETFL, O_NONBLOCK);
        fcntl(r.err, F_SETFL, O_NONBLOCK);
        loop(&r, s.timeout_ms);
        close_fd(&r.in);
        close_fd(&r.out);
        close_fd(&r.err);
        if (r.gone)
            c->broken = 1; /* no exit frame: the connection goes */
        else
            exit_frame(c, exit_code(r.end.status), r.timed_out);
    }
    if (r.end.efd >= 0)
        close(r.end.efd);
    free(r.buf);
    free(r.stdin_buf);
    spec_free(&s);
}
