/* files.c: the files routes: read (streamed, sendfile for a regular file), write (streamed into
 * a new file renamed over the target once whole), info, list, delete, mkdir and move. */
#include "agent.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#define COPY_CHUNK (128 * 1024)

/* The path in the query, checked and cleaned; NULL once refused. */
static char *query_path(struct conn *c)
{
    char *p = query_get(c, "path");
    int bad = p ? check_path(p) : -1;
    if (bad) {
        fail(c, 400, "invalid", bad == -2 ? "the path must not hold . or .. parts"
                                          : "the path must be absolute, without NUL bytes");
        free(p);
        return NULL;
    }
    char *clean = clean_path(p);
    free(p);
    if (!clean)
        fail(c, 400, "failed", "out of memory");
    return clean;
}

static void read_file(struct conn *c, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail_file(c, path, errno);
        return;
    }
    struct stat st;
    int bad = fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    if (bad) {
        fail_file(c, path, bad);
        close(fd);
        return;
    }
    if (S_ISREG(st.st_mode)) {
        resp_start(c, 200, "application/octet-stream", st.st_size);
        off_t left = st.st_size;
        while (left > 0 && !c->broken) {
            ssize_t n = sendfile(c->fd, fd, NULL, left > (1 << 30) ? (1 << 30) : left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EINVAL || errno == ENOSYS) && left == st.st_size)
                break; /* no sendfile here: copied below */
            if (n <= 0) { /* shorter than it said: the connection cannot carry another answer */
                c->broken = 1;
                break;
            }
            left -= n;
        }
        char *buf = left > 0 && !c->broken ? malloc(COPY_CHUNK) : NULL;
        while (buf && left > 0 && !c->broken) {
            ssize_t n = read(fd, buf, left < COPY_CHUNK ? left : COPY_CHUNK);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                c->broken = 1;
                break;
            }
            resp_write(c, buf, n);
            left -= n;
        }
        if (left > 0)
            c->broken = 1;
        free(buf);
        c->ended = 1;
    } else { /* a device or a fifo: as long as it gives */
        resp_start(c, 200, "application/octet-stream", -1);
        char *buf = malloc(IO_CHUNK);
        while (buf && !c->broken) {
            ssize_t n = read(fd, buf, IO_CHUNK);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            resp_write(c, buf, n);
            resp_flush(c);
        }
        free(buf);
    }
    close(fd);
}

static int parse_mode(const char *s, mode_t *mode)
{
    if (!s || !*s) {
        *mode = 0644;
        return 0;
    }
    unsigned long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '7' || v > 07777)
            return -1;
        v = v * 8 + (*p - '0');
    }
    if (v > 07777)
        return -1;
    *mode = (mode_t)v;
    return 0;
}

/* ?owner=USER: who what the request makes belongs to (the agent's user, root, without it).
 * 1 when given and found (into *id), 0 when not given, -1 when refused (answered). */
static int query_owner(struct conn *c, struct identity *id)
{
    char *owner = query_get(c, "owner");
    memset(id, 0, sizeof *id);
    if (!owner)
        return 0;
    int err = identity_of(owner, id);
    if (err) {
        char msg[128];
        snprintf(msg, sizeof msg, "owner %.64s: %s", owner, err == ENOENT ? "not in this computer's /etc/passwd"
                 : err_text(err));
        fail(c, 400, "invalid", msg);
    }
    free(owner);
    id->set = !err;
    return err ? -1 : 1;
}

/* Streams the body into a new file beside the target and renames it over the target once
 * whole: a reader never sees half a file, and a failed upload leaves nothing under the name. */
static void write_file(struct conn *c, const char *path)
{
    struct identity owner;
    if (query_owner(c, &owner) < 0)
        return;
    char *m = query_get(c, "mode");
    mode_t mode;
    int bad = parse_mode(m, &mode);
    free(m);
    if (bad) {
        fail(c, 400, "invalid", "mode must be octal, 0 to 7777");
        return;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fail_file(c, path, EISDIR);
        return;
    }
    struct meta meta;
    char *mq = query_get(c, "meta");
    bad = meta_parse(mq, &meta) < 0;
    free(mq);
    if (bad) {
        fail(c, 400, "invalid", "meta is an object of keys (HTTP token characters) to printable ASCII values");
        return;
    }
    char *dir = dir_name(path), *temp = temp_beside(path), *buf = malloc(COPY_CHUNK);
    int err = dir && temp && buf ? 0 : ENOMEM;
    if (!err && (err = mkdir_owned(dir, 0755, &owner))) {
        fail_file(c, dir, err);
        goto out;
    }
    int fd = err ? -1 : open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (!err && fd < 0)
        err = errno;
    while (!err) {
        ssize_t n = body_read(c, buf, COPY_CHUNK, 0);
        if (n < 0)
            err = -1; /* the body was cut short */
        if (n <= 0)
            break;
        if (write_all(fd, buf, n) < 0)
            err = errno;
    }
    if (!err && fchmod(fd, mode) < 0)
        err = errno;
    if (!err && owner.set && fchown(fd, owner.uid, owner.gid) < 0)
        err = errno;
    if (!err)
        err = meta_apply(fd, &meta);
    if (!err && fsync(fd) < 0)
        err = errno;
    if (fd >= 0 && close(fd) < 0 && !err)
        err = errno;
    if (!err && rename(temp, path) < 0)
        err = errno;
    if (err) {
        if (fd >= 0)
            unlink(temp);
        fail_file(c, path, err < 0 ? 0 : err);
    } else {
        answer_info(c, path);
    }
out:
    meta_free(&meta);
    free(dir);
    free(temp);
    free(buf);
}

static void remove_file(struct conn *c, const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0) {
        fail_file(c, path, errno);
        return;
    }
    if (!strcmp(path, "/")) {
        fail(c, 400, "invalid", "/ cannot be deleted");
        return;
    }
    struct jbuf gone = {0};
    json_info(&gone, path, &st);
    char *r = query_get(c, "recursive");
    int err = S_ISDIR(st.st_mode) && r && !strcmp(r, "true") ? remove_all(path) : remove_one(path);
    free(r);
    if (err == ENOTEMPTY) {
        size_t n = strlen(path) + 100;
        char *m = malloc(n);
        if (m)
            snprintf(m, n, "%s is a directory that is not empty; recursive=true deletes it and all in it", path);
        fail(c, 409, "exists", m ? m : "the directory is not empty");
        free(m);
        free(gone.p);
    } else if (err) {
        fail_file(c, path, err);
        free(gone.p);
    } else {
        answer_json(c, 200, &gone);
    }
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void list_dir(struct conn *c, const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        fail_file(c, path, errno);
        return;
    }
    struct strv names = {0};
    struct dirent *e;
    int err = 0;
    errno = 0;
    while (!err && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            err = strv_pushz(&names, e->d_name) < 0 ? ENOMEM : 0;
    if (!err && errno)
        err = errno;
    if (err) {
        closedir(d);
        strv_free(&names);
        fail_file(c, path, err);
        return;
    }
    qsort(names.v, names.n, sizeof *names.v, by_name);
    resp_start(c, 200, "application/json", -1);
    resp_write(c, "[", 1);
    int first = 1;
    for (size_t i = 0; i < names.n; i++) {
        struct stat st;
        if (fstatat(dirfd(d), names.v[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        char *full = join_path(path, names.v[i]);
        if (!full)
            continue;
        struct jbuf b = {0};
        if (!first)
            jb_raw(&b, ",", 1);
        json_info(&b, full, &st);
        if (!b.failed) {
            resp_write(c, b.p, b.len);
            first = 0;
        }
        free(b.p);
        free(full);
    }
    resp_write(c, "]\n", 2);
    closedir(d);
    strv_free(&names);
}

/* A JSON body of path fields only ({path} or {from, to}); 0 when every field read is a string. */
static int path_body(struct conn *c, const char *k1, char **v1, const char *k2, char **v2)
{
    size_t len;
    char *body = body_all(c, 1 << 20, &len);
    if (!body)
        return -1;
    struct jcur j = JCUR(body, len);
    char key[8];
    int r = jc_object(&j), ok = r == 1;
    while (ok && (r = jc_key(&j, key, sizeof key)) == 1) {
        char **to = !strcmp(key, k1) ? v1 : k2 && !strcmp(key, k2) ? v2 : NULL;
        if (!to) {
            ok = jc_skip(&j) == 0;
            continue;
        }
        char *s = NULL;
        size_t n = 0;
        ok = jc_string(&j, &s, &n) >= 0;
        if (s && strlen(s) != n) { /* a NUL inside */
            free(s);
            s = strdup("");
        }
        if (s) {
            free(*to);
            *to = s;
        }
    }
    free(body);
    return ok && r == 0 ? 0 : -1;
}

static void make_dir(struct conn *c)
{
    char *p = NULL;
    struct identity owner;
    if (query_owner(c, &owner) < 0) {
        body_discard(c, 1 << 20);
    } else if (path_body(c, "path", &p, NULL, NULL) < 0 || !p || check_path(p)) {
        fail(c, 400, "invalid", "a body {path} with an absolute path is required");
    } else {
        int err = mkdir_owned(p, 0755, &owner);
        char *clean = err ? NULL : clean_path(p);
        if (err)
            fail_file(c, p, err);
        else if (clean)
            answer_info(c, clean);
        free(clean);
    }
    free(p);
}

static void move(struct conn *c)
{
    char *from = NULL, *to = NULL, *clean = NULL, *dir = NULL;
    struct stat st;
    if (path_body(c, "from", &from, "to", &to) < 0 || !from || !to || check_path(from) || check_path(to)) {
        fail(c, 400, "invalid", "a body {from, to} with absolute paths is required");
        goto out;
    }
    if (lstat(from, &st) < 0) {
        fail_file(c, from, errno);
        goto out;
    }
    clean = clean_path(to);
    dir = clean ? dir_name(clean) : NULL;
    int err = dir ? mkdir_all(dir, 0755) : ENOMEM;
    if (!err && rename(from, to) < 0) {
        err = errno;
        if (err == EXDEV) /* another file system (/data and the root are): copy, then remove, as mv(1) does */
            err = copy_tree(from, to);
        if (!err)
            err = remove_all(from);
    }
    if (err)
        fail_file(c, to, err);
    else
        answer_info(c, clean);
out:
    free(from);
    free(to);
    free(clean);
    free(dir);
}

void h_files(struct conn *c)
{
    const char *rest = c->path + 6, *m = c->method;
    if (!strcmp(rest, "/mkdir")) {
        make_dir(c);
        return;
    }
    if (!strcmp(rest, "/move")) {
        move(c);
        return;
    }
    char *path = query_path(c);
    if (!path)
        return;
    if (!*rest && !strcmp(m, "GET"))
        read_file(c, path);
    else if (!*rest && !strcmp(m, "PUT"))
        write_file(c, path);
    else if (!*rest)
        remove_file(c, path);
    else if (!strcmp(rest, "/info"))
        answer_info(c, path);
    else if (!strcmp(rest, "/list"))
        list_dir(c, path);
    else if (!strcmp(m, "GET"))
        h_archive_out(c, path);
    else
        h_archive_in(c, path);
    free(path);
}
