/* watch.c: GET /watch?path=&recursive= streams what happens in a directory, one JSON line an
 * event, from inotify, until the caller hangs up: first {"watching": PATH}, then
 * {"name": "sub/file", "type": "create|write|remove|rename|chmod", "dir": bool}, names relative
 * to the watched directory. Recursive watches follow directories made while it runs: what such a
 * directory already holds when its watch is added (made between its create and the watch) is
 * reported as made then, so `mkdir -p d && echo x > d/f` shows d/f however the two race. */
#include "agent.h"
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define MASK (IN_CREATE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF \
              | IN_MOVE_SELF | IN_ONLYDIR)
#define MAX_WATCHES 8192
#define MAX_SEEN 4096

struct watched { int wd; char *rel; }; /* rel: "" for the root */
/* seen: names reported by a scan of a new directory, whose create event may still be queued. */
struct watches { int fd; const char *root; struct watched *v; size_t n, cap; char **seen; size_t nseen; };

static int add_one(struct watches *w, const char *rel)
{
    if (w->n >= MAX_WATCHES)
        return ENOSPC;
    char *full = *rel ? join_path(w->root, rel) : strdup(w->root);
    int wd = full ? inotify_add_watch(w->fd, full, MASK) : -1;
    int err = full ? (wd < 0 ? errno : 0) : ENOMEM;
    free(full);
    if (err)
        return err;
    for (size_t i = 0; i < w->n; i++)
        if (w->v[i].wd == wd)
            return 0; /* watched already */
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        struct watched *v = realloc(w->v, cap * sizeof *v);
        if (!v)
            return ENOMEM;
        w->v = v;
        w->cap = cap;
    }
    char *copy = strdup(rel);
    if (!copy)
        return ENOMEM;
    w->v[w->n++] = (struct watched){wd, copy};
    return 0;
}

/* The directory rel and, recursively, every directory under it. */
static int add_tree(struct watches *w, const char *rel, int recursive)
{
    int err = add_one(w, rel);
    if (err || !recursive)
        return err;
    char *full = *rel ? join_path(w->root, rel) : strdup(w->root);
    DIR *d = full ? opendir(full) : NULL;
    free(full);
    if (!d)
        return 0; /* gone meanwhile */
    for (struct dirent *e; (e = readdir(d)) && !err;) {
        if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *sub = *rel ? join_path(rel, e->d_name) : strdup(e->d_name);
        err = sub ? add_tree(w, sub, 1) : ENOMEM;
        free(sub);
    }
    closedir(d);
    return err == ENOSPC ? 0 : err; /* past the limit, the rest goes unwatched */
}

static const char *rel_of(struct watches *w, int wd)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->v[i].wd == wd)
            return w->v[i].rel;
    return NULL;
}

static const char *type_of(uint32_t mask)
{
    if (mask & (IN_CREATE | IN_MOVED_TO))
        return "create";
    if (mask & IN_MODIFY)
        return "write";
    if (mask & (IN_DELETE | IN_DELETE_SELF))
        return "remove";
    if (mask & (IN_MOVED_FROM | IN_MOVE_SELF))
        return "rename";
    return (mask & IN_ATTRIB) ? "chmod" : NULL;
}

static int line(struct conn *c, struct jbuf *b)
{
    jb_raw(b, "\n", 1);
    int failed = b->failed;
    if (!failed) {
        resp_write(c, b->p, b->len);
        resp_flush(c);
    }
    b->len = 0;
    return failed || c->broken ? -1 : 0;
}

/* Whether a name is one of the agent's own files being written (temp_beside: ".NAME.hearth-HEX"). */
static int ours(const char *name)
{
    const char *at = strstr(name, ".hearth-");
    if (name[0] != '.' || !at || strlen(at) != 8 + 16)
        return 0;
    for (const char *h = at + 8; *h; h++)
        if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f')))
            return 0;
    return 1;
}

static int emit(struct conn *c, struct jbuf *b, const char *name, const char *type, int dir)
{
    jb_lit(b, "{\"name\":");
    jb_strz(b, name);
    jb_lit(b, ",\"type\":\"");
    jb_lit(b, type);
    jb_lit(b, dir ? "\",\"dir\":true}" : "\",\"dir\":false}");
    return line(c, b);
}

static int seen_take(struct watches *w, const char *name)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (!strcmp(w->seen[i], name)) {
            free(w->seen[i]);
            w->seen[i] = w->seen[--w->nseen];
            return 1;
        }
    return 0;
}

/* Reports what a directory just watched already holds, as creates (and a write for a file with
 * bytes), remembering the names so that their own queued create is not shown twice. */
static int report_tree(struct conn *c, struct watches *w, struct jbuf *b, const char *rel)
{
    char *full = join_path(w->root, rel);
    DIR *d = full ? opendir(full) : NULL;
    int r = 0;
    for (struct dirent *e; d && !r && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || ours(e->d_name))
            continue;
        char *name = join_path(rel, e->d_name);
        struct stat st;
        if (!name || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
            free(name);
            continue; /* gone meanwhile: its remove is queued */
        }
        if (w->nseen < MAX_SEEN && (w->seen || (w->seen = calloc(MAX_SEEN, sizeof *w->seen))))
            if ((w->seen[w->nseen] = strdup(name)))
                w->nseen++;
        int dir = S_ISDIR(st.st_mode);
        r = emit(c, b, name, "create", dir);
        if (!r && S_ISREG(st.st_mode) && st.st_size > 0)
            r = emit(c, b, name, "write", 0);
        if (!r && dir)
            r = report_tree(c, w, b, name);
        free(name);
    }
    if (d)
        closedir(d);
    free(full);
    return r;
}

/* One event: 0, -1 once the caller is gone, -2 once the watched directory went (the stream ends).
 * The agent writes a file whole under a temporary name and renames it over the target: the
 * temporary name's events are not shown, and the rename is shown as the target made and written,
 * as an in-place write would be. */
static int event(struct conn *c, struct watches *w, const struct inotify_event *e, int recursive, struct jbuf *b,
                 uint32_t *written)
{
    const char *rel = rel_of(w, e->wd);
    if (!rel)
        return 0;
    if (e->mask & IN_IGNORED)
        return *rel ? 0 : -2;
    if (e->len && ours(e->name)) {
        if (e->mask & IN_MOVED_FROM)
            *written = e->cookie;
        return 0;
    }
    int whole = (e->mask & IN_MOVED_TO) && e->cookie && e->cookie == *written;
    const char *type = type_of(e->mask);
    if (!type || ((e->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) && *rel))
        return 0; /* a subdirectory's own end shows as an event of its parent */
    char *name = e->len && *e->name ? (*rel ? join_path(rel, e->name) : strdup(e->name)) : strdup(rel);
    if (!name)
        return 0;
    if (e->mask & (IN_DELETE | IN_MOVED_FROM))
        seen_take(w, name);
    if ((e->mask & IN_CREATE) && seen_take(w, name)) {
        free(name);
        return 0; /* reported by the scan of its directory */
    }
    int r = emit(c, b, name, type, (e->mask & IN_ISDIR) != 0);
    if (r == 0 && whole)
        r = emit(c, b, name, "write", 0);
    if (r == 0 && recursive && (e->mask & IN_ISDIR) && (e->mask & (IN_CREATE | IN_MOVED_TO))) {
        add_tree(w, name, 1);
        r = report_tree(c, w, b, name);
    }
    free(name);
    return r;
}

void h_watch(struct conn *c)
{
    char *path = query_get(c, "path"), *rec = query_get(c, "recursive");
    int recursive = rec && !strcmp(rec, "true");
    free(rec);
    char *root = path && !check_path(path) ? clean_path(path) : NULL;
    free(path);
    if (!root) {
        fail(c, 400, "invalid", "path must be an absolute path, without . or .. parts");
        return;
    }
    struct watches w = {inotify_init1(IN_NONBLOCK | IN_CLOEXEC), root, NULL, 0, 0, NULL, 0};
    int err = w.fd < 0 ? errno : add_tree(&w, "", recursive);
    if (err) {
        fail_file(c, root, err);
    } else {
        resp_start(c, 200, "application/x-ndjson", -1);
        struct jbuf b = {0};
        jb_lit(&b, "{\"watching\":");
        jb_strz(&b, root);
        jb_lit(&b, "}");
        char *buf = malloc(64 * 1024);
        int end = !buf || line(c, &b) < 0 ? -1 : 0;
        uint32_t written = 0;
        while (!end) {
            struct pollfd f[2] = {{w.fd, POLLIN, 0}, {c->fd, conn_watch(c), 0}};
            if (poll(f, 2, -1) < 0)
                continue;
            if (conn_hung_up(c, f[1].revents)) {
                end = -1;
                break;
            }
            ssize_t n = read(w.fd, buf, 64 * 1024);
            for (ssize_t at = 0; at < n && !end;) {
                const struct inotify_event *e = (const void *)(buf + at);
                end = event(c, &w, e, recursive, &b, &written);
                at += sizeof *e + e->len;
            }
        }
        free(buf);
        free(b.p);
        if (end == -2)
            resp_end(c); /* the directory went: the stream ends */
        else
            c->broken = 1; /* the caller went: so does the connection */
    }
    for (size_t i = 0; i < w.n; i++)
        free(w.v[i].rel);
    free(w.v);
    for (size_t i = 0; i < w.nseen; i++)
        free(w.seen[i]);
    free(w.seen);
    if (w.fd >= 0)
        close(w.fd);
    free(root);
}
