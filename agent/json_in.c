/* json_in.c: a cursor over JSON, which decodes straight into the caller's fields: no tree, and
 * nothing kept that the caller does not ask for. Strings are checked and sized before they are
 * copied; containers are skipped with a bounded stack, never by recursion. */
#include "agent.h"
#include <stdlib.h>
#include <string.h>

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
