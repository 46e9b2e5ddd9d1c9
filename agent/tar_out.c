/* tar_out.c: GET /files/archive, a directory as a tar stream: USTAR, with PAX records only for
 * what USTAR cannot hold, as Go's archive/tar writes; entries in lexical order, symlinks not
 * followed, names relative to the directory. */
#include "agent.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define COPY_CHUNK (128 * 1024)

struct names { unsigned id; int known; char name[33]; };

/* The user or group name of an id, from /etc/passwd or /etc/group, the last one remembered. */
static const char *name_of(const char *file, unsigned id, struct names *cache)
{
    if (cache->known && cache->id == id)
        return cache->name;
    cache->known = 1;
    cache->id = id;
    cache->name[0] = 0;
    FILE *f = fopen(file, "re");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2 || (unsigned)strtoul(c2 + 1, NULL, 10) != id || c2[1] < '0' || c2[1] > '9')
            continue;
        size_t n = c1 - line;
        if (n < sizeof cache->name) {
            memcpy(cache->name, line, n);
            cache->name[n] = 0;
        }
        break;
    }
    if (f)
        fclose(f);
    return cache->name;
}

static int ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return 0;
    return 1;
}

/* Octal, zero-padded with a NUL after, or base-256 when it does not fit (the PAX record has it). */
static void numeric(char *field, size_t n, unsigned long long v)
{
    unsigned long long max = 1;
    for (size_t i = 0; i < n - 1; i++)
        max *= 8;
    if (v < max) {
        snprintf(field, n, "%0*llo", (int)(n - 1), v);
        return;
    }
    memset(field, 0, n);
    field[0] = (char)0x80;
    for (size_t i = n - 1; i > 0 && v; i--, v >>= 8)
        field[i] = (char)(v & 255);
}

struct out { struct conn *c; char *buf; struct names users, groups; };

static void pax_record(struct jbuf *b, const char *key, const char *value)
{
    size_t base = strlen(key) + strlen(value) + 3, len = base;
    char num[24];
    for (;;) { /* the length counts its own digits */
        int d = snprintf(num, sizeof num, "%zu", len);
        if (base + d == len)
            break;
        len = base + d;
    }
    jb_lit(b, num);
    jb_raw(b, " ", 1);
    jb_lit(b, key);
    jb_raw(b, "=", 1);
    jb_lit(b, value);
    jb_raw(b, "\n", 1);
}

static void header(char *h, const char *name, const char *prefix, unsigned long long mode, unsigned uid,
                   unsigned gid, unsigned long long size, long long mtime, char type, const char *link,
                   const char *uname, const char *gname, unsigned major, unsigned minor)
{
    memset(h, 0, 512);
    strncpy(h, name, 100);
    numeric(h + 100, 8, mode);
    numeric(h + 108, 8, uid);
    numeric(h + 116, 8, gid);
    numeric(h + 124, 12, size);
    numeric(h + 136, 12, mtime < 0 ? 0 : (unsigned long long)mtime);
    h[156] = type;
    strncpy(h + 157, link, 100);
    memcpy(h + 257, "ustar\0" "00", 8);
    strncpy(h + 265, uname, 32);
    strncpy(h + 297, gname, 32);
    numeric(h + 329, 8, major);
    numeric(h + 337, 8, minor);
    strncpy(h + 345, prefix, 155);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum);
    h[155] = ' ';
}

static __attribute__((noinline)) int add_entry(struct out *o, const char *full, const char *rel)
{
    struct stat st;
    if (lstat(full, &st) < 0)
        return 0;
    char type, link[4096] = "";
    if (S_ISREG(st.st_mode)) type = '0';
    else if (S_ISDIR(st.st_mode)) type = '5';
    else if (S_ISLNK(st.st_mode)) type = '2';
    else if (S_ISCHR(st.st_mode)) type = '3';
    else if (S_ISBLK(st.st_mode)) type = '4';
    else if (S_ISFIFO(st.st_mode)) type = '6';
    else return 0; /* sockets and the like have no place in a tar */
    if (type == '2') {
        ssize_t n = readlink(full, link, sizeof link - 1);
        link[n < 0 ? 0 : n] = 0;
    }
    size_t rn = strlen(rel);
    char *name = malloc(rn + 2);
    if (!name)
        return -1;
    memcpy(name, rel, rn + 1);
    if (type == '5')
        strcpy(name + rn++, "/");
    unsigned long long size = type == '0' ? (unsigned long long)st.st_size : 0;
    long long mtime = st.st_mtim.tv_sec + (st.st_mtim.tv_nsec >= 500000000);
    const char *uname = name_of("/etc/passwd", st.st_uid, &o->users);
    const char *gname = name_of("/etc/group", st.st_gid, &o->groups);
    /* USTAR holds a name of 100 bytes, or 155 more split at a slash before them. */
    const char *short_name = name, *prefix = "";
    char pre[156] = "";
    if (rn > 100) {
        short_name = NULL;
        for (size_t i = rn > 101 ? rn - 101 : 0; i < rn && i <= 155; i++)
            if (name[i] == '/' && i > 0 && rn - i - 1 <= 100 && rn - i - 1 > 0) {
                memcpy(pre, name, i);
                pre[i] = 0;
                prefix = pre;
                short_name = name + i + 1;
                break;
            }
    }
    struct jbuf pax = {0};
    char num[32];
    if (!short_name || !ascii(name)) {
        pax_record(&pax, "path", name);
        short_name = name;
        prefix = "";
    }
    if (strlen(link) > 100 || !ascii(link))
        pax_record(&pax, "linkpath", link);
    if (size > 077777777777ULL) {
        snprintf(num, sizeof num, "%llu", size);
        pax_record(&pax, "size", num);
    }
    if (st.st_uid > 07777777) {
        snprintf(num, sizeof num, "%u", (unsigned)st.st_uid);
        pax_record(&pax, "uid", num);
    }
    if (st.st_gid > 07777777) {
        snprintf(num, sizeof num, "%u", (unsigned)st.st_gid);
        pax_record(&pax, "gid", num);
    }
    if (!ascii(uname))
        pax_record(&pax, "uname", uname);
    if (!ascii(gname))
        pax_record(&pax, "gname", gname);
    char *h = o->buf;
    int err = pax.failed ? -1 : 0;
    if (!err && pax.len) {
        const char *base = strrchr(rn && name[rn - 1] == '/' ? "" : name, '/');
        char xname[101];
        snprintf(xname, sizeof xname, "PaxHeaders.0/%s", base ? base + 1 : name);
        for (char *p = xname; *p; p++)
            if ((unsigned char)*p >= 0x80)
                *p = '_';
        header(h, xname, "", 0, 0, 0, pax.len, mtime, 'x', "", "", "", 0, 0);
        resp_write(o->c, h, 512);
        resp_write(o->c, pax.p, pax.len);
        size_t pad = (512 - pax.len % 512) % 512;
        memset(h, 0, pad);
        resp_write(o->c, h, pad);
    }
    free(pax.p);
    if (!err) {
        char link_field[101];
        strncpy(link_field, link, 100);
        link_field[100] = 0;
        header(h, short_name, prefix, st.st_mode & 07777, st.st_uid, st.st_gid, size, mtime, type, link_field,
               ascii(uname) ? uname : "", ascii(gname) ? gname : "",
               type == '3' || type == '4' ? major(st.st_rdev) : 0, type == '3' || type == '4' ? minor(st.st_rdev) : 0);
        resp_write(o->c, h, 512);
    }
    free(name);
    if (err || type != '0' || !size)
        return err;
    int fd = open(full, O_RDONLY | O_CLOEXEC);
    unsigned long long left = size;
    while (fd >= 0 && left && !o->c->broken) {
        ssize_t n = read(fd, o->buf, left < COPY_CHUNK ? left : COPY_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        resp_write(o->c, o->buf, n);
        left -= n;
    }
    if (fd >= 0)
        close(fd);
    /* A file that shrank meanwhile is padded with zeros: the stream stays a tar. */
    size_t pad = (512 - size % 512) % 512;
    memset(o->buf, 0, COPY_CHUNK);
    while (left && !o->c->broken) {
        size_t n = left < COPY_CHUNK ? left : COPY_CHUNK;
        resp_write(o->c, o->buf, n);
        left -= n;
    }
    resp_write(o->c, o->buf, pad);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every entry under dir in lexical order, as filepath.WalkDir: symlinks are not followed. */
static void walk(struct out *o, const char *full, const char *rel, int depth)
{
    DIR *d = depth < 256 ? opendir(full) : NULL;
    if (!d)
        return;
    struct strv names = {0};
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strv_pushz(&names, e->d_name) < 0)
            break;
    closedir(d);
    if (names.n)
        qsort(names.v, names.n, sizeof *names.v, by_name);
    for (size_t i = 0; i < names.n && !o->c->broken; i++) {
        char *f = join_path(full, names.v[i]);
        char *r = *rel ? join_path(rel, names.v[i]) : strdup(names.v[i]);
        struct stat st;
        if (f && r && add_entry(o, f, r) == 0 && lstat(f, &st) == 0 && S_ISDIR(st.st_mode))
            walk(o, f, r, depth + 1);
        free(f);
        free(r);
    }
    strv_free(&names);
}

void h_archive_out(struct conn *c, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
        size_t n = strlen(dir) + 32;
        char *m = malloc(n);
        if (m)
            snprintf(m, n, "%s is not a directory", dir);
        fail(c, 400, "not_dir", m ? m : "not a directory");
        free(m);
        return;
    }
    if (stat(dir, &st) < 0) {
        fail_file(c, dir, errno);
        return;
    }
    struct out o = {c, malloc(COPY_CHUNK), {0, 0, ""}, {0, 0, ""}};
    if (!o.buf) {
        fail(c, 400, "failed", "out of memory");
        return;
    }
    resp_start(c, 200, "application/x-tar", -1);
    struct stat root;
    if (lstat(dir, &root) == 0 && S_ISDIR(root.st_mode)) /* a symlink to a directory is not walked */
        walk(&o, dir, "", 0);
    memset(o.buf, 0, 1024);
    resp_write(c, o.buf, 1024);
    free(o.buf);
}
