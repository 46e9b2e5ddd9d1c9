/* http.c: the HTTP/1.1 the agent speaks to hearth serve's client (Jetty): one request at a time
 * per connection, kept alive; bodies by length or chunked, both ways; answers buffered and sent
 * with their length when small, chunked when they grow or stream. Every buffer is the
 * connection's own, of fixed size: nothing a client sends makes the agent allocate more. */
#include "agent.h"
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

enum { BODY_NONE, BODY_LENGTH, BODY_CHUNKED };
enum { CH_SIZE, CH_DATA, CH_DATA_END, CH_TRAILER };

static int send_iov(struct conn *c, struct iovec *iov, int n)
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

static int send_buf(struct conn *c, const void *p, size_t n)
{
    struct iovec v = {(void *)p, n};
    return send_iov(c, &v, 1);
}

void send_raw(struct conn *c, const char *s) { send_buf(c, s, strlen(s)); }

/* Reads more of the connection into `in`; >0 bytes, 0 closed, -1 error, -2 nothing yet. */
static ssize_t fill(struct conn *c, int nonblocking)
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

static const char *status_text(int status)
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

static int unhex(char ch)
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
