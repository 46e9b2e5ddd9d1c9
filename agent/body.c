/* body.c: a request's body as its handler reads it: by its length, or chunked (sizes, extensions
 * and trailers read and dropped), whole or a piece at a time, waiting or not. A malformed or cut
 * body is an error the handler sees, and the connection is not used again. */
#include "agent.h"
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Where the chunked body's framing needs a whole line: >0 its length (without the line end). */
static long chunk_line(struct conn *c, int nonblocking)
{
    for (;;) {
        char *nl = memchr(c->in + c->in_off, '\n', c->in_len - c->in_off);
        if (nl)
            return nl - (c->in + c->in_off) + 1;
        if (c->in_len - c->in_off >= 4096)
            return -1;
        ssize_t n = fill(c, nonblocking);
        if (n == -2)
            return -2;
        if (n <= 0)
            return -1;
    }
}

static ssize_t body_fail(struct conn *c)
{
    c->body_error = 1;
    c->body_done = 1;
    c->keep_alive = 0;
    return -1;
}

ssize_t body_read(struct conn *c, void *buf, size_t n, int nonblocking)
{
    if (c->body_error)
        return -1;
    if (c->body_done)
        return 0;
    if (c->expect_continue && !c->sent_continue && !c->status) {
        c->sent_continue = 1;
        send_raw(c, "HTTP/1.1 100 Continue\r\n\r\n");
    }
    for (;;) {
        if (c->body_kind == BODY_CHUNKED && c->chunk_state != CH_DATA) {
            long line = chunk_line(c, nonblocking);
            if (line == -2)
                return -2;
            if (line < 0)
                return body_fail(c);
            char *s = c->in + c->in_off;
            c->in_off += line;
            if (c->chunk_state == CH_DATA_END) {
                if (!(line == 2 && s[0] == '\r') && line != 1)
                    return body_fail(c);
                c->chunk_state = CH_SIZE;
                continue;
            }
            if (c->chunk_state == CH_TRAILER) {
                if (line == 1 || (line == 2 && s[0] == '\r')) {
                    c->body_done = 1;
                    return 0;
                }
                continue;
            }
            uint64_t size = 0;
            int digits = 0;
            for (; unhex(*s) >= 0; s++, digits++) {
                if (size >> 56)
                    return body_fail(c);
                size = size << 4 | unhex(*s);
            }
            if (!digits || (*s != '\r' && *s != '\n' && *s != ';' && *s != ' ' && *s != '\t'))
                return body_fail(c);
            c->body_left = size;
            c->chunk_state = size ? CH_DATA : CH_TRAILER;
            continue;
        }
        size_t have = c->in_len - c->in_off;
        size_t want = n < c->body_left ? n : (size_t)c->body_left;
        ssize_t got;
        if (have) {
            got = want < have ? want : have;
            memcpy(buf, c->in + c->in_off, got);
            c->in_off += got;
        } else {
            /* Large pieces straight into the caller's buffer: no copy through `in`. */
            got = recv(c->fd, buf, want, nonblocking ? MSG_DONTWAIT : 0);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return -2;
            if (got <= 0)
                return body_fail(c);
        }
        c->body_left -= got;
        if (!c->body_left) {
            if (c->body_kind == BODY_CHUNKED)
                c->chunk_state = CH_DATA_END;
            else
                c->body_done = 1;
        }
        return got;
    }
}

int body_discard(struct conn *c, uint64_t limit)
{
    char buf[4096];
    while (!c->body_done && limit) {
        ssize_t n = body_read(c, buf, sizeof buf < limit ? sizeof buf : limit, 0);
        if (n <= 0)
            break;
        limit -= n;
    }
    return c->body_done && !c->body_error;
}

char *body_all(struct conn *c, size_t limit, size_t *len)
{
    size_t cap = 1024, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return NULL;
    for (;;) {
        if (n == cap) {
            if (cap >= limit) {
                free(buf);
                return NULL;
            }
            cap = cap * 2 > limit ? limit : cap * 2;
            char *more = realloc(buf, cap + 1);
            if (!more) {
                free(buf);
                return NULL;
            }
            buf = more;
        }
        ssize_t r = body_read(c, buf + n, cap - n, 0);
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += r;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}
