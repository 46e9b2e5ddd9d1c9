/* terminal.c: POST /terminal runs a command on a new pty: the caller's frames (after a head as
 * exec's) are its keystrokes and window sizes, the answer its output as frames, then its exit.
 * Input frames are passed on in pieces as they come, never held whole, whatever length they
 * claim. The caller hanging up kills the command's tree. */
#include "agent.h"
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

struct ended { int status; int efd; };

static void on_exit_status(void *arg, int status)
{
    struct ended *e = arg;
    uint64_t one = 1;
    e->status = status;
    if (write(e->efd, &one, sizeof one) < 0) {
        /* set already */
    }
}

/* The caller's frames, read as they come: a 5-byte head, then its payload in pieces. */
struct steer {
    unsigned char head[5];
    size_t head_got;
    uint32_t left;       /* payload bytes of the current frame still to come */
    char resize[256];
    size_t resize_len;
    char pending[4096];  /* keystrokes read, not yet taken by the terminal */
    size_t pending_len, pending_off;
};

static void resize(int master, const char *payload, size_t len)
{
    struct jcur j = JCUR(payload, len);
    char key[8];
    long long cols = 0, rows = 0;
    int r = jc_object(&j);
    if (r != 1)
        return;
    while ((r = jc_key(&j, key, sizeof key)) == 1) {
        int ok = !strcmp(key, "cols") ? jc_int(&j, &cols) >= 0 : !strcmp(key, "rows") ? jc_int(&j, &rows) >= 0
                                                                                     : jc_skip(&j) == 0;
        if (!ok)
            return;
    }
    if (r == 0 && jc_end(&j) == 0)
        set_window(master, cols, rows);
}

/* Applies what it can of the body to the terminal without waiting; -1 if the body was cut short. */
static int steer(struct conn *c, struct steer *s, int master)
{
    for (;;) {
        if (s->pending_off < s->pending_len) {
            ssize_t w = write(master, s->pending + s->pending_off, s->pending_len - s->pending_off);
            if (w < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
            s->pending_off = w < 0 ? s->pending_len : s->pending_off + w;
            continue;
        }
        if (c->body_done)
            return 0;
        ssize_t n;
        if (s->head_got < 5) {
            n = body_read(c, s->head + s->head_got, 5 - s->head_got, 1);
            if (n > 0 && (s->head_got += n) == 5) {
                s->left = (uint32_t)s->head[1] << 24 | (uint32_t)s->head[2] << 16 | (uint32_t)s->head[3] << 8 | s->head[4];
                s->resize_len = 0;
            }
        } else if (s->left) {
            char *to = s->head[0] == FRAME_INPUT ? s->pending : s->resize + s->resize_len;
            size_t room = s->head[0] == FRAME_INPUT ? sizeof s->pending : sizeof s->resize - s->resize_len;
            if (s->head[0] != FRAME_INPUT && s->head[0] != FRAME_RESIZE)
                to = s->pending, room = sizeof s->pending; /* unknown kinds are read and dropped */
            if (!room) {
                to = s->pending;
                room = sizeof s->pending;
                s->resize_len = sizeof s->resize + 1; /* too long for a window size */
            }
            n = body_read(c, to, room < s->left ? room : s->left, 1);
            if (n > 0) {
                s->left -= n;
                if (s->head[0] == FRAME_INPUT) {
                    s->pending_len = n;
                    s->pending_off = 0;
                } else if (s->head[0] == FRAME_RESIZE && s->resize_len <= sizeof s->resize && to != s->pending) {
                    s->resize_len += n;
                }
            }
        } else {
            n = 1;
        }
        if (n == -2)
            return 0;
        if (n < 0)
            return -1;
        if (n == 0)
            return c->body_done && s->head_got == 0 ? 0 : -1;
        if (s->head_got == 5 && !s->left) {
            if (s->head[0] == FRAME_RESIZE && s->resize_len <= sizeof s->resize)
                resize(master, s->resize, s->resize_len);
            s->head_got = 0;
        }
    }
}

void h_terminal(struct conn *c)
{
    c->duplex = 1;
    struct run_spec s = {0};
    struct identity as = {0};
    char *head = NULL, path[PATH_MAX], msg[PATH_MAX + 64];
    size_t len;
    if (read_head(c, &head, &len) < 0
            || spec_decode(head, len, SF_COMMAND | SF_ENV | SF_CWD | SF_USER | SF_COLS | SF_ROWS, &s) < 0
            || s.command.n == 0) {
        free(head);
        spec_free(&s);
        fail(c, 400, "invalid", "the terminal head needs a command");
        return;
    }
    free(head);
    resp_start(c, 200, "application/x-hearth-frames", -1);
    resp_flush(c);
    int master = -1, slave = -1, pid = -1;
    struct ended end = {0, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};
    struct steer *st = calloc(1, sizeof *st);
    char *buf = malloc(IO_CHUNK);
    int err = s.command.nul || s.env.nul ? EINVAL : run_as(&s, &as);
    if (!err)
        err = resolve(s.command.v[0], s.env.v, path, sizeof path);
    if (!err && (end.efd < 0 || !st || !buf))
        err = ENOMEM;
    if (!err)
        err = open_pty(&master, &slave);
    if (!err) {
        set_window(master, s.cols, s.rows);
        char *none[] = {NULL};
        struct spawn_spec sp = {path, s.command.v, s.env.v ? s.env.v : none, s.cwd, {slave, slave, slave}, 0, 1, &as};
        pid = spawn(&sp, on_exit_status, &end);
        close(slave);
        if (pid < 0) {
            err = -pid;
            close(master);
            master = -1;
        }
    }
    if (err) {
        snprintf(msg, sizeof msg, "hearth-agent: %s: %s\r\n", s.command.v[0], err_text(err));
        resp_frame(c, FRAME_STDOUT, msg, strlen(msg));
        exit_frame(c, start_failure(err), 0);
        goto out;
    }
    fcntl(master, F_SETFL, O_NONBLOCK);
    int ended = 0, gone = 0, master_open = 1;
    int64_t drain_until = 0;
    for (;;) {
        if (!gone && steer(c, st, master) < 0)
            gone = 1;
        if (gone) {
            kill_tree(pid);
            break;
        }
        if (ended && (!master_open || (now_ms() >= drain_until && !unread_bytes(master))))
            break;
        struct pollfd f[3];
        int n = 0;
        f[n++] = (struct pollfd){end.efd, POLLIN, 0};
        f[n++] = (struct pollfd){master_open ? master : -1, POLLIN, 0};
        short want = conn_watch(c);
        if (!c->body_done && st->pending_off >= st->pending_len)
            want |= POLLIN;
        if (st->pending_off < st->pending_len)
            f[1].events |= POLLOUT;
        f[n++] = (struct pollfd){c->fd, want, 0};
        int wait = ended ? 2 : -1;
        if (poll(f, n, wait) < 0 && errno != EINTR)
            continue;
        uint64_t v;
        if ((f[0].revents & POLLIN) && read(end.efd, &v, sizeof v) == sizeof v && !ended) {
            ended = 1;
            drain_until = now_ms() + DRAIN_AFTER_EXIT_MS;
        }
        if (master_open && (f[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t r = read(master, buf, IO_CHUNK);
            if (r > 0) {
                if (resp_frame(c, FRAME_STDOUT, buf, r) < 0)
                    gone = 1;
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                master_open = 0; /* EIO: every holder of the other side has closed it */
            }
        }
        if (c->body_done ? conn_hung_up(c, f[2].revents) : (f[2].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) {
            steer(c, st, master);
            gone = 1;
        }
    }
    if (gone) {
        uint64_t v;
        struct pollfd f = {end.efd, POLLIN, 0};
        while (!ended && poll(&f, 1, -1) >= 0) /* its end, collected by the reaper */
            if ((f.revents & POLLIN) && read(end.efd, &v, sizeof v) == sizeof v)
                ended = 1;
        c->broken = 1;
    } else {
        exit_frame(c, exit_code(end.status), 0);
    }
    close(master);
out:
    if (end.efd >= 0)
        close(end.efd);
    free(st);
    free(buf);
    spec_free(&s);
}
