/* json.c: JSON out (Go's encoding: HTML characters, U+2028/9 and bad UTF-8 escaped, so answers
 * read the same as the Go agent's) and a cursor over JSON in, which decodes straight into the
 * caller's fields: no tree, and nothing kept that the caller does not ask for. */
#include "agent.h"
#include <stdlib.h>
#include <string.h>

static int jb_grow(struct jbuf *b, size_t more)
{
    if (b->failed)
        return -1;
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void jb_raw(struct jbuf *b, const char *s, size_t n)
{
    if (jb_grow(b, n) == 0) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

void jb_lit(struct jbuf *b, const char *s) { jb_raw(b, s, strlen(s)); }

/* The length of the UTF-8 sequence at s (1-4), or 0 if it is not valid. */
static int utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    int len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (!len || c > 0xf4 || (size_t)len > n)
        return 0;
    uint32_t v = c & (0x3f >> (len - 1));
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

void jb_str(struct jbuf *b, const char *str, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    jb_raw(b, "\"", 1);
    size_t i = 0, run = 0;
    while (i < n) {
        unsigned c = s[i];
        uint32_t cp;
        int len = utf8_len(s + i, n - i, &cp);
        int plain = len == 1 ? (c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&')
                             : len > 1 && cp != 0x2028 && cp != 0x2029;
        if (plain) {
            i += len;
            run += len;
            continue;
        }
        jb_raw(b, (const char *)s + i - run, run);
        run = 0;
        char esc[8] = "\\u00";
        if (!len) {
            jb_lit(b, "\\ufffd");
            i++;
            continue;
        }
        if (len > 1) {
            jb_lit(b, cp == 0x2028 ? "\\u2028" : "\\u2029");
        } else if (c == '"' || c == '\\') {
            esc[1] = c;
            jb_raw(b, esc, 2);
        } else if (c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f') {
            esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : c == '\b' ? 'b' : 'f';
            jb_raw(b, esc, 2);
        } else {
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            jb_raw(b, esc, 6);
        }
        i += len;
    }
    jb_raw(b, (const char *)s + i - run, run);
    jb_raw(b, "\"", 1);
}

void jb_strz(struct jbuf *b, const char *s) { jb_str(b, s, strlen(s)); }

void jb_int(struct jbuf *b, long long v)
{
    char n[24];
    int i = sizeof n;
    unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
    do n[--i] = '0' + u % 10; while (u /= 10);
    if (v < 0)
        n[--i] = '-';
    jb_raw(b, n + i, sizeof n - i);
}

void jb_strv(struct jbuf *b, char *const *v)
{
    if (!v) {
        jb_lit(b, "null");
        return;
    }
    jb_raw(b, "[", 1);
    for (size_t i = 0; v[i]; i++) {
        if (i)
            jb_raw(b, ",", 1);
        jb_strz(b, v[i]);
    }
    jb_raw(b, "]", 1);
}

void jb_time(struct jbuf *b, struct timespec t)
{
    char s[40];
    size_t n = format_time(s, t);
    jb_str(b, s, n);
}

/* ---- in ---- */

int jc_ws(struct jcur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
    return c->p < c->end ? (unsigned char)*c->p : -1;
}

static int fail_at(struct jcur *c)
{
    c->err = 1;
    return -1;
}

static int word(struct jcur *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n))
        return 0;
    c->p += n;
    return 1;
}

/* The significant byte before the cursor: '{' or '[' right after a container opened. */
static char before(struct jcur *c)
{
    const char *q = c->p;
    while (q > c->start && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r'))
        q--;
    return q > c->start ? q[-1] : 0;
}

int jc_object(struct jcur *c)
{
    int ch = jc_ws(c);
    if (ch == 'n' && word(c, "null"))
        return 0;
    if (ch != '{' || c->depth > 512)
        return fail_at(c);
    c->p++;
    c->depth++;
    return 1;
}

int jc_array(struct jcur *c)
{
    int ch = jc_ws(c);
    if (ch == 'n' && word(c, "null"))
        return 0;
    if (ch != '[' || c->depth > 512)
        return fail_at(c);
    c->p++;
    c->depth++;
    return 1;
}

/* Two passes over a string: the first (out NULL) checks it and sizes it. Bad UTF-8 and lone
 * surrogates become U+FFFD, as Go decodes them. */
static long string_body(struct jcur *c, char *out)
{
    const unsigned char *s = (const unsigned char *)c->p + 1, *end = (const unsigned char *)c->end;
    long n = 0;
#define PUT(ch) do { if (out) out[n] = (char)(ch); n++; } while (0)
    while (s < end && *s != '"') {
        if (*s < 0x20)
            return -1;
        if (*s != '\\') {
            uint32_t cp;
            int len = utf8_len(s, end - s, &cp);
            if (!len) {
                PUT(0xef); PUT(0xbf); PUT(0xbd);
                s++;
                continue;
            }
            for (int i = 0; i < len; i++)
                PUT(s[i]);
            s += len;
            continue;
        }
        if (++s >= end)
            return -1;
        uint32_t cp;
        switch (*s) {
        case '"': case '\\': case '/': PUT(*s); s++; continue;
        case 'b': PUT('\b'); s++; continue;
        case 'f': PUT('\f'); s++; continue;
        case 'n': PUT('\n'); s++; continue;
        case 'r': PUT('\r'); s++; continue;
        case 't': PUT('\t'); s++; continue;
        case 'u': break;
        default: return -1;
        }
        cp = 0;
        for (int i = 1; i <= 4; i++) {
            if (s + i >= end)
                return -1;
            unsigned h = s[i];
            int v = h >= '0' && h <= '9' ? (int)h - '0' : h >= 'a' && h <= 'f' ? (int)h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? (int)h - 'A' + 10 : -1;
            if (v < 0)
                return -1;
            cp = cp << 4 | v;
        }
        s += 5;
        if (cp >= 0xd800 && cp < 0xdc00 && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
            uint32_t lo = 0;
            int ok = 1;
            for (int i = 2; i < 6; i++) {
                unsigned h = s[i];
                int v = h >= '0' && h <= '9' ? (int)h - '0' : h >= 'a' && h <= 'f' ? (int)h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? (int)h - 'A' + 10 : -1;
                if (v < 0)
                    ok = 0;
                lo = lo << 4 | (v & 15);
            }
            if (ok && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                s += 6;
            }
        }
        if (cp >= 0xd800 && cp < 0xe000)
            cp = 0xfffd;
        if (cp < 0x80) {
            PUT(cp);
        } else if (cp < 0x800) {
            PUT(0xc0 | cp >> 6); PUT(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            PUT(0xe0 | cp >> 12); PUT(0x80 | (cp >> 6 & 0x3f)); PUT(0x80 | (cp & 0x3f));
        } else {
            PUT(0xf0 | cp >> 18); PUT(0x80 | (cp >> 12 & 0x3f)); PUT(0x80 | (cp >> 6 & 0x3f)); PUT(0x80 | (cp & 0x3f));
        }
    }
#undef PUT
    if (s >= end)
        return -1;
    if (out)
        c->p = (const char *)s + 1;
    return n;
}

int jc_string(struct jcur *c, char **out, size_t *len)
{
    int ch = jc_ws(c);
    if (ch == 'n' && word(c, "null"))
        return 0;
    if (ch != '"')
        return fail_at(c);
    long n = string_body(c, NULL);
    if (n < 0)
        return fail_at(c);
    char *s = malloc(n + 1);
    if (!s)
        return fail_at(c);
    string_body(c, s);
    s[n] = 0;
    *out = s;
    if (len)
        *len = n;
    return 1;
}

int jc_key(struct jcur *c, char *key, size_t cap)
{
    int ch = jc_ws(c);
    if (ch == '}') {
        c->p++;
        c->depth--;
        return 0;
    }
    if (before(c) != '{') {
        if (ch != ',')
            return fail_at(c);
        c->p++;
        jc_ws(c);
    }
    char *s;
    size_t n;
    if (jc_string(c, &s, &n) != 1)
        return fail_at(c);
    size_t i = 0;
    for (; i < n && i + 1 < cap; i++)
        key[i] = s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i];
    key[i] = 0;
    if (n >= cap) /* too long for any field: match none */
        key[0] = '\1';
    free(s);
    if (jc_ws(c) != ':')
        return fail_at(c);
    c->p++;
    return 1;
}

int jc_next(struct jcur *c)
{
    int ch = jc_ws(c);
    if (ch == ']') {
        c->p++;
        c->depth--;
        return 0;
    }
    if (before(c) == '[')
        return ch < 0 ? fail_at(c) : 1;
    if (ch != ',')
        return fail_at(c);
    c->p++;
    return 1;
}

static int number(struct jcur *c, int integer_only, long long *out)
{
    const char *p = c->p, *end = c->end;
    int neg = p < end && *p == '-';
    p += neg;
    if (p >= end || *p < '0' || *p > '9')
        return fail_at(c);
    unsigned long long v = 0;
    int overflow = 0;
    if (*p == '0')
        p++;
    else
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (v > (unsigned long long)INT64_MAX / 10 + 1)
                overflow = 1;
            v = v * 10 + (*p - '0');
        }
    int fraction = 0;
    if (p < end && *p == '.') {
        fraction = 1;
        if (++p >= end || *p < '0' || *p > '9')
            return fail_at(c);
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        fraction = 1;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return fail_at(c);
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    c->p = p;
    if (integer_only && (fraction || overflow || v > (unsigned long long)INT64_MAX + neg))
        return fail_at(c);
    if (out)
        *out = neg ? (long long)(0 - v) : (long long)v;
    return 1;
}

int jc_int(struct jcur *c, long long *out)
{
    int ch = jc_ws(c);
    if (ch == 'n' && word(c, "null"))
        return 0;
    if (ch != '-' && (ch < '0' || ch > '9'))
        return fail_at(c);
    return number(c, 1, out);
}

int jc_bool(struct jcur *c, int *out)
{
    jc_ws(c);
    if (word(c, "null"))
        return 0;
    if (word(c, "true")) {
        *out = 1;
        return 1;
    }
    if (word(c, "false")) {
        *out = 0;
        return 1;
    }
    return fail_at(c);
}

int jc_strings(struct jcur *c, struct strv *out)
{
    strv_free(out);
    int r = jc_array(c);
    if (r <= 0)
        return r;
    while ((r = jc_next(c)) == 1) {
        char *s = NULL;
        size_t n = 0;
        int got = jc_string(c, &s, &n);
        if (got < 0)
            return -1;
        if (got && strlen(s) != n) /* exec(2) cannot take it: the start fails, as Go's did */
            out->nul = 1;
        int pushed = strv_push(out, got ? s : "", got ? n : 0);
        free(s);
        if (pushed < 0)
            return fail_at(c);
    }
    if (r < 0)
        return -1;
    if (!out->v) { /* [] is an empty list, not null */
        out->v = calloc(1, sizeof *out->v);
        if (!out->v)
            return fail_at(c);
        out->cap = 1;
    }
    return 1;
}

/* Any value, checked; containers are followed on a small stack, not by recursion. */
int jc_skip(struct jcur *c)
{
    char stack[512];
    int top = 0;
    for (;;) {
        int ch = jc_ws(c);
        if (ch == '{' || ch == '[') {
            if (top == (int)sizeof stack)
                return fail_at(c);
            stack[top++] = (char)ch;
            c->p++;
            if (jc_ws(c) == (ch == '{' ? '}' : ']')) {
                c->p++;
                top--;
                goto after_value;
            }
            if (ch == '{')
                goto key;
            continue;
        }
        if (ch == '"') {
            long n = string_body(c, NULL);
            if (n < 0)
                return fail_at(c);
            const char *q = c->p + 1; /* past the string without decoding it */
            while (*q != '"')
                q += *q == '\\' ? 2 : 1;
            c->p = q + 1;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            if (number(c, 0, NULL) < 0)
                return -1;
        } else if (!word(c, "true") && !word(c, "false") && !word(c, "null")) {
            return fail_at(c);
        }
    after_value:
        for (;;) {
            if (!top)
                return 0;
            ch = jc_ws(c);
            char open = stack[top - 1];
            if (ch == (open == '{' ? '}' : ']')) {
                c->p++;
                top--;
                continue;
            }
            if (ch != ',')
                return fail_at(c);
            c->p++;
            if (open == '[')
                break;
        key:
            if (jc_ws(c) != '"')
                return fail_at(c);
            if (string_body(c, NULL) < 0)
                return fail_at(c);
            const char *q = c->p + 1;
            while (*q != '"')
                q += *q == '\\' ? 2 : 1;
            c->p = q + 1;
            if (jc_ws(c) != ':')
                return fail_at(c);
            c->p++;
            break;
        }
    }
}

int jc_end(struct jcur *c) { return jc_ws(c) < 0 ? 0 : -1; }
