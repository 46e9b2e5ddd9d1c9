/* answer.c: the answers: buffered and sent with their length when small, chunked when they grow
 * or stream (exec frames); errors as {code, message}, file system errors by what they mean to the
 * caller; and whether the caller hung up. */
#include "agent.h"
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

static void send_head(struct conn *c, long long length)
{
    char head[256];
    int n = snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\n", c->status, status_text(c->status));
    if (c->ctype)
        n += snprintf(head + n, sizeof head - n, "Content-Type: %s\r\n", c->ctype);
    if (c->status == 204)
        ;
    else if (length >= 0)
        n += snprintf(head + n, sizeof head - n, "Content-Length: %lld\r\n", length);
    else if (!c->http10)
        n += snprintf(head + n, sizeof head - n, "Transfer-Encoding: chunked\r\n");
    else
        c->close_after = 1;
    c->chunked = length < 0 && !c->http10 && c->status != 204;
    if (!c->keep_alive)
        c->close_after = 1;
    if (c->close_after)
        n += snprintf(head + n, sizeof head - n, "Connection: close\r\n");
    n += snprintf(head + n, sizeof head - n, "\r\n");
    c->started = 1;
    send_buf(c, head, n);
}

void resp_start(struct conn *c, int status, const char *ctype, long long length)
{
    /* An answer that does not read the rest of the body leaves it to be read here (up to 256
     * KiB, as Go's server), or the connection cannot carry another request. */
    if (!c->duplex && !c->body_done && !body_discard(c, 256 * 1024))
        c->close_after = 1;
    c->status = status;
    c->ctype = ctype;
    c->out_len = 0;
    if (length >= 0 || status == 204)
        send_head(c, status == 204 ? -1 : length);
}

static void flush_out(struct conn *c)
{
    if (!c->started)
        send_head(c, -1);
    if (!c->out_len)
        return;
    if (c->chunked) {
        char size[24];
        int n = snprintf(size, sizeof size, "%zx\r\n", c->out_len);
        struct iovec v[3] = {{size, n}, {c->out, c->out_len}, {"\r\n", 2}};
        send_iov(c, v, 3);
    } else {
        send_buf(c, c->out, c->out_len);
    }
    c->out_len = 0;
}

void resp_write(struct conn *c, const void *data, size_t n)
{
    const char *p = data;
    if (c->started && !c->chunked) { /* length known: straight out */
        send_buf(c, p, n);
        return;
    }
    while (n) {
        if (c->out_len == OUT_CAP)
            flush_out(c);
        size_t take = OUT_CAP - c->out_len < n ? OUT_CAP - c->out_len : n;
        memcpy(c->out + c->out_len, p, take);
        c->out_len += take;
        p += take;
        n -= take;
    }
}

void resp_flush(struct conn *c) { flush_out(c); }

void resp_end(struct conn *c)
{
    if (c->ended || !c->status)
        return;
    c->ended = 1;
    if (!c->started) {
        send_head(c, (long long)c->out_len);
        send_buf(c, c->out, c->out_len);
        c->out_len = 0;
        return;
    }
    flush_out(c);
    if (c->chunked)
        send_raw(c, "0\r\n\r\n");
}

int resp_frame(struct conn *c, char kind, const void *payload, size_t n)
{
    flush_out(c);
    unsigned char head[5] = {(unsigned char)kind, n >> 24, n >> 16 & 255, n >> 8 & 255, n & 255};
    char size[24];
    int sn = snprintf(size, sizeof size, "%zx\r\n", n + 5);
    struct iovec v[4] = {{size, sn}, {head, 5}, {(void *)payload, n}, {"\r\n", 2}};
    if (c->chunked)
        return send_iov(c, v, 4);
    return send_iov(c, v + 1, 2);
}

void answer_json(struct conn *c, int status, struct jbuf *b)
{
    jb_raw(b, "\n", 1);
    if (b->failed) {
        free(b->p);
        memset(b, 0, sizeof *b);
        fail(c, 500, "failed", "the agent is out of memory");
        return;
    }
    resp_start(c, status, "application/json", (long long)b->len);
    send_buf(c, b->p, b->len);
    c->ended = 1;
    free(b->p);
    memset(b, 0, sizeof *b);
}

void fail(struct conn *c, int status, const char *code, const char *message)
{
    char small[512];
    struct jbuf b = {0};
    jb_lit(&b, "{\"code\":");
    jb_strz(&b, code);
    jb_lit(&b, ",\"message\":");
    jb_strz(&b, message);
    jb_lit(&b, "}\n");
    if (b.failed) { /* no memory even for this: a fixed answer */
        snprintf(small, sizeof small, "{\"code\":\"%s\",\"message\":\"out of memory\"}\n", code);
        resp_start(c, status, "application/json", (long long)strlen(small));
        send_raw(c, small);
    } else {
        resp_start(c, status, "application/json", (long long)b.len);
        send_buf(c, b.p, b.len);
    }
    c->ended = 1;
    free(b.p);
}

void fail_file(struct conn *c, const char *path, int err)
{
    size_t n = strlen(path) + 128;
    char *m = malloc(n);
    if (!m) {
        fail(c, 400, "failed", "out of memory");
        return;
    }
    switch (err) {
    case ENOENT:
        snprintf(m, n, "%s: no such file or directory", path);
        fail(c, 404, "not_found", m);
        break;
    case ENOSPC:
    case EDQUOT:
        snprintf(m, n, "%s: no space left on the computer's disk", path);
        fail(c, 507, "no_space", m);
        break;
    case EISDIR:
        snprintf(m, n, "%s is a directory", path);
        fail(c, 400, "is_dir", m);
        break;
    case ENOTDIR:
        snprintf(m, n, "%s: a part of the path is not a directory", path);
        fail(c, 400, "not_dir", m);
        break;
    case EEXIST:
    case ENOTEMPTY:
        snprintf(m, n, "%s: %s", path, err_text(err));
        fail(c, 409, "exists", m);
        break;
    case EACCES:
    case EPERM:
    case EROFS:
        snprintf(m, n, "%s: %s", path, err_text(err));
        fail(c, 403, "denied", m);
        break;
    default:
        snprintf(m, n, "%s: %s", path, err_text(err));
        fail(c, 400, "failed", m);
    }
    free(m);
}

short conn_watch(struct conn *c)
{
    return (short)(POLLRDHUP | (c->body_done && !c->pipelined ? POLLIN : 0));
}

/* gVisor's netstack does not always say RDHUP: a readable connection whose body is read whole
 * is peeked at, and its end (or a reset) is the caller gone, as Go's server notices. */
int conn_hung_up(struct conn *c, short revents)
{
    if (c->broken || (revents & (POLLRDHUP | POLLHUP | POLLERR)))
        return 1;
    if ((revents & POLLIN) && c->body_done && !c->pipelined) {
        char b;
        ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return 1;
        if (n > 0)
            c->pipelined = 1;
    }
    return 0;
}
