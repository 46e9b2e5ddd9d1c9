/* json_out.c: JSON as Go's encoding writes it (HTML characters, U+2028/9 and bad UTF-8 escaped),
 * so that answers read the same as the Go agent's, into a growing buffer that notes a failed
 * allocation instead of failing each call. */
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
int utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
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
