/* util.c: small helpers every part uses: string lists, clocks and Go's time format, random
 * ids, Go's error texts, base64, and writes that finish. */
#include "agent.h"
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

int strv_push(struct strv *s, const char *str, size_t len)
{
    if (s->n + 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        char **v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, str, len);
    copy[len] = 0;
    s->v[s->n++] = copy;
    s->v[s->n] = NULL;
    return 0;
}

int strv_pushz(struct strv *s, const char *str) { return strv_push(s, str, strlen(str)); }

void strv_free(struct strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
    s->nul = 0;
}

int strv_dup(struct strv *to, char *const *from)
{
    memset(to, 0, sizeof *to);
    for (; from && *from; from++)
        if (strv_pushz(to, *from) < 0) {
            strv_free(to);
            return -1;
        }
    if (!to->v && strv_push(to, "", 0) == 0) { /* an empty list, still NULL-terminated */
        free(to->v[0]);
        to->v[0] = NULL;
        to->n = 0;
    }
    return to->v ? 0 : -1;
}

int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

struct timespec now_real(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t;
}

size_t format_time(char *out, struct timespec t)
{
    struct tm tm;
    time_t secs = t.tv_sec;
    gmtime_r(&secs, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    if (t.tv_nsec) {
        char frac[11];
        snprintf(frac, sizeof frac, ".%09ld", t.tv_nsec);
        size_t len = 10;
        while (frac[len - 1] == '0')
            len--;
        memcpy(out + n, frac, len);
        n += len;
    }
    out[n++] = 'Z';
    out[n] = 0;
    return n;
}

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* RFC 3339 as Go writes it (an earlier agent's hand-over): a fraction and any offset accepted. */
int parse_time(const char *s, size_t len, struct timespec *t)
{
    int y, mo, d, h, mi, sec;
    if (len < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
        return -1;
    if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) || digits(s + 11, 2, &h) ||
        digits(s + 14, 2, &mi) || digits(s + 17, 2, &sec))
        return -1;
    size_t i = 19;
    long nsec = 0;
    if (i < len && s[i] == '.') {
        long scale = 100000000;
        for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
            if (scale)
                nsec += (s[i] - '0') * scale;
    }
    long offset = 0;
    if (i < len && (s[i] == 'Z' || s[i] == 'z'))
        i++;
    else if (i + 6 == len && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
        int oh, om;
        if (digits(s + i + 1, 2, &oh) || digits(s + i + 4, 2, &om))
            return -1;
        offset = (oh * 60L + om) * 60 * (s[i] == '-' ? -1 : 1);
        i += 6;
    }
    if (i != len)
        return -1;
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = sec};
    t->tv_sec = timegm(&tm) - offset;
    t->tv_nsec = nsec;
    return 0;
}

void random_hex(char out[17])
{
    unsigned char b[8] = {0};
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n <= 0 && errno != EINTR)
            break;
        if (n > 0)
            got += n;
    }
    if (got < sizeof b) { /* no getrandom: the clock, which is only ever a name */
        struct timespec t = now_real();
        uint64_t v = (uint64_t)t.tv_sec * 1000000007u ^ (uint64_t)t.tv_nsec ^ ((uint64_t)getpid() << 40);
        memcpy(b, &v, sizeof b);
    }
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* The texts Go gives these errors: callers (and tests) read them in messages. */
const char *err_text(int err)
{
    switch (err) {
    case EPERM: return "operation not permitted";
    case ENOENT: return "no such file or directory";
    case ESRCH: return "no such process";
    case EINTR: return "interrupted system call";
    case EIO: return "input/output error";
    case E2BIG: return "argument list too long";
    case ENOEXEC: return "exec format error";
    case EBADF: return "bad file descriptor";
    case EAGAIN: return "resource temporarily unavailable";
    case ENOMEM: return "cannot allocate memory";
    case EACCES: return "permission denied";
    case EBUSY: return "device or resource busy";
    case EEXIST: return "file exists";
    case EXDEV: return "invalid cross-device link";
    case ENOTDIR: return "not a directory";
    case EISDIR: return "is a directory";
    case EINVAL: return "invalid argument";
    case ENFILE: return "too many open files in system";
    case EMFILE: return "too many open files";
    case ETXTBSY: return "text file busy";
    case EFBIG: return "file too large";
    case ENOSPC: return "no space left on device";
    case EROFS: return "read-only file system";
    case EMLINK: return "too many links";
    case EPIPE: return "broken pipe";
    case ENAMETOOLONG: return "file name too long";
    case ENOTEMPTY: return "directory not empty";
    case ELOOP: return "too many levels of symbolic links";
    case EDQUOT: return "disk quota exceeded";
    case ENOSYS: return "function not implemented";
    case EOVERFLOW: return "value too large for defined data type";
    case 0: return "unexpected EOF"; /* a body cut short */
    default: return strerror(err);
    }
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encode(char *out, const unsigned char *in, size_t n)
{
    size_t o = 0, i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64[v >> 18];
        out[o++] = b64[v >> 12 & 63];
        out[o++] = b64[v >> 6 & 63];
        out[o++] = b64[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
        out[o++] = b64[v >> 18];
        out[o++] = b64[v >> 12 & 63];
        out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        out[o++] = '=';
    }
    return o;
}

static int b64val(char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

long base64_decode(unsigned char *out, const char *in, size_t n)
{
    if (n % 4)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int pad = (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=');
        if (pad && i + 4 != n)
            return -1;
        int a = b64val(in[i]), b = b64val(in[i + 1]);
        int c = pad >= 2 ? 0 : b64val(in[i + 2]), d = pad >= 1 ? 0 : b64val(in[i + 3]);
        if (a < 0 || b < 0 || c < 0 || d < 0)
            return -1;
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        out[o++] = v >> 16;
        if (pad < 2)
            out[o++] = v >> 8 & 255;
        if (pad < 1)
            out[o++] = v & 255;
    }
    return (long)o;
}

int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) { /* a non-blocking descriptor (a pty's master is shared with its reader) */
                struct pollfd f = {fd, POLLOUT, 0};
                poll(&f, 1, 1000);
                continue;
            }
            return -1;
        }
        p += w;
        n -= w;
    }
    return 0;
}

void log_err(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    write_all(2, line, n);
}

int parse_decimal(const char *s, long *out)
{
    int neg = *s == '-';
    const char *d = s + neg;
    if (!*d || (d[0] == '0' && d[1]) || (neg && d[0] == '0') || strlen(d) > 18)
        return -1;
    long v = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9')
            return -1;
        v = v * 10 + (*d - '0');
    }
    *out = neg ? -v : v;
    return 0;
}
