/* tar_in.c: PUT /files/archive, a tar unpacked into a directory (made if missing): USTAR, PAX and
 * GNU long names. Entries that would land outside the directory are refused, not skipped: the
 * caller learns the tar was not what it meant. That is a `..` part, and a symbolic link on the
 * way (one the tar made a moment before, `l -> /etc` then `l/passwd`, or one that was there): an
 * entry is never written through a link, and a link in its own place is replaced, not followed. Blocks go through a fixed buffer; special headers
 * are bounded at 1 MiB, as in Go. */
#include "agent.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPECIAL_LIMIT (1 << 20)
#define COPY_CHUNK (128 * 1024)

/* filepath.Clean: lexical, .. resolved. */
static char *lexical_clean(const char *p)
{
    size_t n = strlen(p);
    char *out = malloc(n + 2);
    if (!out)
        return NULL;
    size_t o = 0;
    int rooted = p[0] == '/';
    if (rooted)
        out[o++] = '/';
    size_t floor = o;
    for (size_t i = 0; i < n;) {
        if (p[i] == '/') { i++; continue; }
        size_t j = i;
        while (j < n && p[j] != '/')
            j++;
        if (j - i == 1 && p[i] == '.') {
        } else if (j - i == 2 && p[i] == '.' && p[i + 1] == '.') {
            if (o > floor) {
                while (o > floor && out[o - 1] != '/')
                    o--;
                if (o > floor)
                    o--;
            } else if (!rooted) {
                if (o) out[o++] = '/';
                out[o++] = '.';
                out[o++] = '.';
                floor = o;
            }
        } else {
            if (o > (size_t)rooted || (o && !rooted))
                out[o++] = '/';
            memcpy(out + o, p + i, j - i);
            o += j - i;
        }
        i = j;
    }
    if (!o)
        out[o++] = '.';
    out[o] = 0;
    return out;
}

static char *joined(const char *dir, const char *name)
{
    char *j = join_path(dir, name), *c = j ? lexical_clean(j) : NULL;
    free(j);
    return c;
}

struct in { struct conn *c; char block[512]; char *buf; };

/* Reads exactly n bytes of the body: 0, or -1 if it ends first (1: it ended before any). */
static int read_full(struct conn *c, char *to, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = body_read(c, to + got, n - got, 0);
        if (r <= 0)
            return got == 0 && r == 0 ? 1 : -1;
        got += r;
    }
    return 0;
}

static long long parse_number(const char *f, size_t n, int *bad)
{
    if ((unsigned char)f[0] & 0x80) { /* base-256 */
        unsigned long long v = (unsigned char)f[0] & 0x7f;
        for (size_t i = 1; i < n; i++) {
            if (v >> 55)
                *bad = 1;
            v = v << 8 | (unsigned char)f[i];
        }
        return (long long)v;
    }
    size_t i = 0;
    while (i < n && (f[i] == ' ' || f[i] == 0))
        i++;
    unsigned long long v = 0;
    for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 60)
            *bad = 1;
        v = v * 8 + (f[i] - '0');
    }
    for (; i < n; i++)
        if (f[i] != ' ' && f[i] != 0)
            *bad = 1;
    return (long long)v;
}

static int checksum_ok(const char *h)
{
    unsigned u = 0;
    int s = 0, bad = 0;
    for (int i = 0; i < 512; i++) {
        char ch = i >= 148 && i < 156 ? ' ' : h[i];
        u += (unsigned char)ch;
        s += (signed char)ch;
    }
    long long want = parse_number(h + 148, 8, &bad);
    return !bad && (want == u || want == s);
}

/* Skips n bytes of the body. */
static int skip(struct in *in, unsigned long long n)
{
    while (n) {
        size_t k = n < COPY_CHUNK ? n : COPY_CHUNK;
        if (read_full(in->c, in->buf, k))
            return -1;
        n -= k;
    }
    return 0;
}

static char *read_special(struct in *in, long long size)
{
    if (size < 0 || size > SPECIAL_LIMIT)
        return NULL;
    char *s = malloc(size + 1);
    if (!s || read_full(in->c, s, size) || skip(in, (512 - size % 512) % 512)) {
        free(s);
        return NULL;
    }
    s[size] = 0;
    return s;
}

static void pax_apply(const char *recs, char **path, char **link, long long *size)
{
    for (const char *p = recs; *p;) {
        char *end;
        long len = strtol(p, &end, 10);
        if (len <= 0 || *end != ' ' || (size_t)len > strlen(p))
            return;
        const char *kv = end + 1, *eq = memchr(kv, '=', p + len - kv);
        if (eq && p[len - 1] == '\n') {
            size_t kn = eq - kv, vn = p + len - 1 - (eq + 1);
            char **to = kn == 4 && !memcmp(kv, "path", 4) ? path : kn == 8 && !memcmp(kv, "linkpath", 8) ? link : NULL;
            if (to) {
                free(*to);
                *to = strndup(eq + 1, vn);
            } else if (kn == 4 && !memcmp(kv, "size", 4)) {
                *size = strtoll(eq + 1, NULL, 10);
            }
        }
        p += len;
    }
}

/* Whether a directory between dir and target (both clean) is a symbolic link. */
static int through_link(const char *dir, const char *target)
{
    char *p = strdup(target);
    if (!p)
        return 1;
    int found = 0;
    for (char *s = p + strlen(dir); !found && *s && (s = strchr(s + 1, '/'));) {
        struct stat st;
        *s = 0;
        found = lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
        *s = '/';
    }
    free(p);
    return found;
}

static int unpack(struct in *in, char type, const char *target, long long mode, long long size)
{
    char *parent = dir_name(target);
    if (!parent)
        return ENOMEM;
    int err = 0;
    if (type == '5') {
        err = mkdir_all(target, (mode & 0777) | 0700);
    } else if (type == '0' || type == '7') {
        mkdir_all(parent, 0755);
        struct stat st;
        if (lstat(target, &st) == 0 && S_ISLNK(st.st_mode))
            unlink(target);
        int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode & 0777);
        if (fd < 0)
            err = errno;
        for (long long left = size; !err && left > 0;) {
            size_t k = left < COPY_CHUNK ? left : COPY_CHUNK;
            if (read_full(in->c, in->buf, k)) {
                err = -1;
                break;
            }
            if (write_all(fd, in->buf, k) < 0)
                err = errno;
            left -= k;
        }
        if (fd >= 0 && close(fd) < 0 && !err)
            err = errno;
    }
    free(parent);
    return err;
}

void h_archive_in(struct conn *c, const char *dir)
{
    int err = mkdir_all(dir, 0755);
    if (err) {
        fail_file(c, dir, err);
        return;
    }
    struct in in = {c, {0}, malloc(COPY_CHUNK)};
    char *path = NULL, *link = NULL;
    long long pax_size = -1;
    const char *why = NULL;
    if (!in.buf) {
        fail(c, 400, "failed", "out of memory");
        return;
    }
    for (;;) {
        int r = read_full(c, in.block, 512);
        if (r == 1)
            break; /* no more entries */
        if (r < 0) {
            why = "unexpected EOF";
            break;
        }
        static const char zero[512];
        if (!memcmp(in.block, zero, 512)) {
            r = read_full(c, in.block, 512);
            if (r == 1 || (r == 0 && !memcmp(in.block, zero, 512)))
                break;
            why = r < 0 ? "unexpected EOF" : "archive/tar: invalid tar header";
            break;
        }
        int bad = 0;
        char *h = in.block, type = h[156];
        long long size = parse_number(h + 124, 12, &bad), mode = parse_number(h + 100, 8, &bad);
        if (!checksum_ok(h) || bad || size < 0) {
            why = "archive/tar: invalid tar header";
            break;
        }
        if (type == 'x' || type == 'L' || type == 'K') { /* what the next header holds, or names it */
            char *s = read_special(&in, size);
            if (!s) {
                why = "archive/tar: invalid tar header";
                break;
            }
            if (type == 'x') {
                pax_apply(s, &path, &link, &pax_size);
                free(s);
            } else {
                char **to = type == 'L' ? &path : &link;
                free(*to);
                *to = s;
            }
            continue;
        }
        char name[257];
        if (!memcmp(h + 257, "ustar\0", 6) && h[345]) /* USTAR and PAX: a prefix before the name */
            snprintf(name, sizeof name, "%.155s/%.100s", h + 345, h);
        else
            snprintf(name, sizeof name, "%.100s", h);
        if (pax_size >= 0)
            size = pax_size;
        char *entry = path ? path : name;
        if (type == 0)
            type = entry[0] && entry[strlen(entry) - 1] == '/' ? '5' : '0';
        char lname[101];
        snprintf(lname, sizeof lname, "%.100s", h + 157);
        if (type == 'g') { /* a global PAX header: nothing to unpack */
            char *s = read_special(&in, size);
            free(s);
            if (!s) {
                why = "archive/tar: invalid tar header";
                break;
            }
            continue;
        }
        int outside = 0;
        for (const char *p = entry; *p;) {
            const char *slash = strchr(p, '/');
            size_t n = slash ? (size_t)(slash - p) : strlen(p);
            outside |= n == 2 && p[0] == '.' && p[1] == '.';
            if (!slash)
                break;
            p = slash + 1;
        }
        char *rooted = malloc(strlen(entry) + 2), *clean = NULL, *target = NULL;
        if (rooted) {
            rooted[0] = '/';
            strcpy(rooted + 1, entry);
            clean = lexical_clean(rooted);
        }
        target = clean ? (strcmp(clean, "/") ? joined(dir, clean) : strdup(dir)) : NULL;
        if (!target)
            err = ENOMEM;
        else if (outside)
            err = -2;
        else if (through_link(dir, target))
            err = -3;
        else if (type == '2') {
            char *parent = dir_name(target);
            if (parent)
                mkdir_all(parent, 0755);
            free(parent);
            remove_one(target);
            err = symlink(link ? link : lname, target) < 0 ? errno : 0;
        } else {
            err = unpack(&in, type, target, mode, size);
        }
        int content_taken = !err && (type == '0' || type == '7');
        free(rooted);
        free(clean);
        free(target);
        if (err) {
            char *shown = joined(dir, entry);
            size_t n = (shown ? strlen(shown) : 0) + 64;
            char *m = malloc(n);
            if (err == -2 && m) {
                snprintf(m, n, "%s: a .. part would leave the directory", shown ? shown : entry);
                fail(c, 400, "failed", m);
            } else if (err == -3 && m) {
                snprintf(m, n, "%s: a symbolic link on its way could leave the directory", shown ? shown : entry);
                fail(c, 400, "failed", m);
            } else {
                fail_file(c, shown ? shown : entry, err == -1 ? 0 : err);
            }
            free(m);
            free(shown);
            break;
        }
        if ((!content_taken && skip(&in, size)) || skip(&in, (512 - size % 512) % 512)) {
            why = "unexpected EOF";
            break;
        }
        free(path);
        free(link);
        path = link = NULL;
        pax_size = -1;
    }
    free(path);
    free(link);
    free(in.buf);
    if (why) {
        char m[128];
        snprintf(m, sizeof m, "the body is not a tar: %s", why);
        fail(c, 400, "invalid", m);
    } else if (!c->status) {
        answer_info(c, dir);
    }
}
