/* http.c: the requests of the HTTP/1.1 the agent speaks to hearth serve's client (Jetty): one at
 * a time per connection, kept alive; bodies by length or chunked, read as the handler asks. Every
 * buffer is the connection's own, of fixed size: nothing a client sends makes the agent allocate
 * more (answer.c writes the answers). */
#include "agent.h"
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>


int send_iov(struct conn *c, struct iovec *iov, int n)
{
    if (c->broken)
        return -1;
    while (n > 0) {
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = n};
        ssize_t w = sendmsg(c->fd, &m, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            c->broken = 1;
            return -1;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= w;
        }
    }
    return 0;
}

int send_buf(struct conn *c, const void *p, size_t n)
{
    struct iovec v = {(void *)p, n};
    return send_iov(c, &v, 1);
}

void send_raw(struct conn *c, const char *s) { send_buf(c, s, strlen(s)); }

/* Reads more of the connection into `in`; >0 bytes, 0 closed, -1 error, -2 nothing yet. */
ssize_t fill(struct conn *c, int nonblocking)
{
    if (c->in_off && c->in_off == c->in_len)
        c->in_off = c->in_len = 0;
    if (c->in_len == IN_CAP) {
        if (!c->in_off)
            return -1;
        memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
        c->in_len -= c->in_off;
        c->in_off = 0;
    }
    for (;;) {
        ssize_t n = recv(c->fd, c->in + c->in_len, IN_CAP - c->in_len, nonblocking ? MSG_DONTWAIT : 0);
        if (n > 0) {
            c->in_len += n;
            return n;
        }
        if (n == 0)
            return 0;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? -2 : -1;
    }
}

const char *status_text(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 417: return "Expectation Failed";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 505: return "HTTP Version Not Supported";
    case 507: return "Insufficient Storage";
    default: return "Unknown";
    }
}

/* A request the agent cannot read: answered as Go's server does, and the connection closed. */
static int bad_request(struct conn *c, int status, const char *why)
{
    char head[256];
    snprintf(head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
             "Connection: close\r\n\r\n%d %s%s%s", status, status_text(status), status, status_text(status),
             why ? ": " : "", why ? why : "");
    send_raw(c, head);
    return -1;
}

static char *find_head_end(char *p, size_t n, size_t *len)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] != '\n')
            continue;
        if (p[i + 1] == '\n') {
            *len = i + 2;
            return p;
        }
        if (i + 2 < n && p[i + 1] == '\r' && p[i + 2] == '\n') {
            *len = i + 3;
            return p;
        }
    }
    return NULL;
}

int unhex(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* Percent-decodes in place; plus is a space in a query. -1 for a bad escape. */
static long unescape(char *s, size_t n, int query)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            if (i + 2 >= n)
                return -1;
            int h = unhex(s[i + 1]), l = unhex(s[i + 2]);
            if (h < 0 || l < 0)
                return -1;
            s[o++] = (char)(h << 4 | l);
            i += 2;
        } else {
            s[o++] = query && s[i] == '+' ? ' ' : s[i];
        }
    }
    return (long)o;
}

int http_read_head(struct conn *c, int idle_ms)
{
    if (c->in_off) {
        memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
        c->in_len -= c->in_off;
        c->in_off = 0;
    }
    memset(c->method, 0, sizeof c->method);
    c->target = c->path = c->query = NULL;
    c->http10 = c->expect_continue = c->sent_continue = 0;
    c->keep_alive = 1;
    c->auth = NULL;
    c->auth_len = 0;
    c->body_kind = BODY_NONE;
    c->body_left = 0;
    c->chunk_state = CH_SIZE;
    c->body_done = 1;
    c->body_error = 0;
    c->duplex = 0;
    c->pipelined = 0;
    c->status = c->started = c->chunked = c->ended = c->close_after = 0;
    c->out_len = 0;
    c->ctype = NULL;
    size_t len = 0;
    for (;;) {
        while (c->in_len >= 2 && c->in[0] == '\r' && c->in[1] == '\n') { /* empty lines before a request */
            memmove(c->in, c->in + 2, c->in_len - 2);
            c->in_len -= 2;
        }
        if (c->in_len && find_head_end(c->in, c->in_len, &len))
            break;
        if (c->in_len == IN_CAP)
            return bad_request(c, 431, NULL);
        struct pollfd p = {c->fd, POLLIN, 0};
        int r = poll(&p, 1, c->in_len ? 60000 : idle_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        ssize_t n = fill(c, 1);
        if (n == -2)
            continue;
        if (n <= 0)
            return 0;
    }
    c->head_len = len;
    char *line = c->in, *end = c->in + len;
    char *eol = memchr(line, '\n', end - line);
    *eol = 0;
    if (eol > line && eol[-1] == '\r')
        eol[-1] = 0;
    char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (!sp1 || !sp2 || sp1 - line >= (long)sizeof c->method || sp1 == line || strchr(sp2 + 1, ' '))
        return bad_request(c, 400, "malformed HTTP request");
    memcpy(c->method, line, sp1 - line);
    *sp2 = 0;
    c->target = sp1 + 1;
    if (!strcmp(sp2 + 1, "HTTP/1.0")) {
        c->http10 = 1;
        c->keep_alive = 0;
    } else if (strcmp(sp2 + 1, "HTTP/1.1")) {
        return bad_request(c, 505, "unsupported protocol version");
    }
    int host = 0, length_seen = 0;
    uint64_t length = 0;
    for (line = eol + 1; line < end; line = eol + 1) {
        eol = memchr(line, '\n', end - line);
        if (!eol)
            break;
        *eol = 0;
        if (eol > line && eol[-1] == '\r')
            eol[-1] = 0;
        if (!*line)
            break;
        char *colon = strchr(line, ':');
        char *blank = strpbrk(line, " \t");
        if (!colon || colon == line || (blank && blank < colon))
            return bad_request(c, 400, "malformed MIME header line");
        *colon = 0;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t vn = strlen(v);
        while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
            v[--vn] = 0;
        if (!strcasecmp(line, "host")) {
            host = 1;
        } else if (!strcasecmp(line, "authorization")) {
            if (!c->auth) {
                c->auth = v;
                c->auth_len = vn;
            }
        } else if (!strcasecmp(line, "content-length")) {
            uint64_t l = 0;
            if (!vn || vn > 18 || strspn(v, "0123456789") != vn)
                return bad_request(c, 400, "bad Content-Length");
            for (size_t i = 0; i < vn; i++)
                l = l * 10 + (v[i] - '0');
            if (length_seen && l != length)
                return bad_request(c, 400, "bad Content-Length");
            length = l;
            length_seen = 1;
        } else if (!strcasecmp(line, "transfer-encoding")) {
            if (strcasecmp(v, "chunked"))
                return bad_request(c, 501, "unsupported transfer encoding");
            c->body_kind = BODY_CHUNKED;
        } else if (!strcasecmp(line, "connection")) {
            if (strcasestr(v, "close"))
                c->keep_alive = 0;
            else if (c->http10 && strcasestr(v, "keep-alive"))
                c->keep_alive = 1;
        } else if (!strcasecmp(line, "expect")) {
            if (strcasecmp(v, "100-continue"))
                return bad_request(c, 417, NULL);
            c->expect_continue = !c->http10;
        }
    }
    if (!host && !c->http10)
        return bad_request(c, 400, "missing required Host header");
    if (c->body_kind == BODY_CHUNKED) {
        c->body_done = 0;
    } else if (length_seen && length) {
        c->body_kind = BODY_LENGTH;
        c->body_left = length;
        c->body_done = 0;
    }
    if (c->target[0] != '/')
        return bad_request(c, 400, "bad request target");
    c->path = c->target;
    char *q = strchr(c->target, '?');
    if (q) {
        *q = 0;
        c->query = q + 1;
    }
    long pn = unescape(c->path, strlen(c->path), 0);
    if (pn < 0)
        return bad_request(c, 400, "bad request target");
    c->path[pn] = 0;
    if (memchr(c->path, 0, pn))
        return bad_request(c, 400, "bad request target");
    c->in_off = len;
    return 1;
}

char *query_get(struct conn *c, const char *name)
{
    if (!c->query)
        return NULL;
    size_t nlen = strlen(name);
    for (const char *p = c->query; *p;) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);
        if (len && !memchr(p, ';', len)) {
            char *pair = malloc(len + 1);
            if (!pair)
                return NULL;
            memcpy(pair, p, len);
            pair[len] = 0;
            char *eq = strchr(pair, '=');
            char *value = eq ? eq + 1 : pair + len;
            long kn = unescape(pair, eq ? (size_t)(eq - pair) : len, 1);
            long vn = unescape(value, strlen(value), 1);
            if (kn >= 0 && vn >= 0 && (size_t)kn == nlen && !memcmp(pair, name, nlen)) {
                memmove(pair, value, vn);
                pair[vn] = 0;
                if (memchr(pair, 0, vn)) /* a NUL inside: a value no check accepts */
                    strcpy(pair, "\1");
                return pair;
            }
            free(pair);
        }
        if (!amp)
            break;
        p = amp + 1;
    }
    return NULL;
}
