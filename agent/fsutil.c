/* fsutil.c: file system helpers with Go's semantics, so that the files API answers as it did:
 * path checks and cleaning, MkdirAll, Remove, RemoveAll, a copy across file systems, and a
 * file's description as JSON. */
#include "agent.h"
#include <grp.h>
#include <pwd.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int check_path(const char *p)
{
    if (p[0] != '/')
        return -1;
    for (const char *s = p; *s;) {
        const char *slash = strchr(s, '/');
        size_t n = slash ? (size_t)(slash - s) : strlen(s);
        if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return -2;
        if (!slash)
            break;
        s = slash + 1;
    }
    return 0;
}

char *clean_path(const char *p)
{
    size_t n = strlen(p);
    char *out = malloc(n + 2);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] != '/' || !o || out[o - 1] != '/')
            out[o++] = p[i];
    if (o > 1 && out[o - 1] == '/')
        o--;
    if (!o)
        out[o++] = '/';
    out[o] = 0;
    return out;
}

const char *base_name(const char *clean)
{
    const char *slash = strrchr(clean, '/');
    return slash && slash[1] ? slash + 1 : clean;
}

char *dir_name(const char *clean)
{
    const char *slash = strrchr(clean, '/');
    size_t n = slash && slash != clean ? (size_t)(slash - clean) : 1;
    return strndup(clean, n);
}

char *join_path(const char *dir, const char *name)
{
    size_t d = strlen(dir), n = strlen(name);
    char *out = malloc(d + n + 2);
    if (!out)
        return NULL;
    memcpy(out, dir, d);
    size_t o = d;
    if (!d || dir[d - 1] != '/')
        out[o++] = '/';
    memcpy(out + o, name, n + 1);
    return out;
}

/* os.MkdirAll, without recursion (a path may have thousands of parts; a thread's stack is small):
 * the parents that are missing are found going up, then made going down. */
int mkdir_all(const char *path, mode_t mode)
{
    return mkdir_owned(path, mode, NULL);
}

/* mkdir -p, the directories it makes owned by owner (NULL: the agent's). */
int mkdir_owned(const char *path, mode_t mode, const struct identity *owner)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    size_t n = strlen(path), nends = 0;
    char *p = strdup(path);
    size_t *ends = malloc((n / 2 + 2) * sizeof *ends); /* a part takes a byte and a slash at least */
    int err = p && ends ? 0 : ENOMEM;
    for (size_t i = n; !err;) {
        while (i > 0 && p[i - 1] == '/')
            i--;
        size_t j = i;
        while (j > 0 && p[j - 1] != '/')
            j--;
        if (j <= 1)
            break;
        p[j - 1] = 0;
        int exists = stat(p, &st) == 0;
        p[j - 1] = '/';
        if (exists) {
            err = S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
            break;
        }
        ends[nends++] = j - 1;
        i = j - 1;
    }
    for (int last = 0; !err && !last;) {
        size_t at = nends ? ends[--nends] : n;
        last = at == n;
        char saved = p[at];
        p[at] = 0;
        if (mkdir(p, mode) < 0) { /* one made meanwhile by another is as good */
            err = errno;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
                err = 0;
        } else if (owner && owner->set && lchown(p, owner->uid, owner->gid) < 0) {
            err = errno;
        }
        p[at] = saved;
    }
    free(p);
    free(ends);
    return err;
}

int remove_one(const char *path)
{
    if (unlink(path) == 0)
        return 0;
    int err = errno;
    if (rmdir(path) == 0)
        return 0;
    /* rmdir of a file says ENOTDIR: then unlink's error is the one that means something */
    return errno == ENOTDIR ? err : errno;
}

static int remove_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    int err = errno;
    if (err != EISDIR && err != EPERM && err != EACCES)
        return err;
    if (depth > 256)
        return ENAMETOOLONG;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : (errno == ENOTDIR || errno == ELOOP) ? err : errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return errno;
    }
    int first = 0;
    struct dirent *e;
    /* Entries are removed while the directory is read: read it again until nothing is left. */
    for (int removed = 1; removed;) {
        removed = 0;
        rewinddir(d);
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            int r = remove_at(fd, e->d_name, depth + 1);
            if (r && !first)
                first = r;
            removed += !r;
        }
        if (first)
            break;
    }
    closedir(d);
    if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
        return 0;
    return first ? first : errno;
}

int remove_all(const char *path)
{
    int err = remove_one(path);
    if (!err || err == ENOENT)
        return 0;
    char *clean = clean_path(path);
    char *dir = clean ? dir_name(clean) : NULL;
    if (!dir) {
        free(clean);
        return ENOMEM;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    err = fd < 0 ? (errno == ENOENT ? 0 : errno) : remove_at(fd, base_name(clean), 0);
    if (fd >= 0)
        close(fd);
    free(dir);
    free(clean);
    return err;
}

char *temp_beside(const char *path)
{
    char hex[17];
    random_hex(hex);
    char *clean = clean_path(path);
    char *dir = clean ? dir_name(clean) : NULL;
    char *out = NULL;
    if (dir) {
        size_t n = strlen(dir) + strlen(base_name(clean)) + 32;
        out = malloc(n);
        if (out)
            snprintf(out, n, "%s%s.%s.hearth-%s", dir, strcmp(dir, "/") ? "/" : "", base_name(clean), hex);
    }
    free(dir);
    free(clean);
    return out;
}

int copy_fd(int in, int out, char *buf, size_t cap, uint64_t limit, int *read_err)
{
    while (limit) {
        ssize_t n = read(in, buf, cap < limit ? cap : limit);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *read_err = 1;
            return errno;
        }
        if (n == 0)
            break;
        if (write_all(out, buf, n) < 0)
            return errno;
        limit -= n;
    }
    return 0;
}

/* Writes a new file beside `to` and renames it over: a reader never sees half of it. */
static int copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return errno;
    char *temp = temp_beside(to), *buf = malloc(128 * 1024);
    int err = temp && buf ? 0 : ENOMEM, out = -1, read_err = 0;
    if (!err && (out = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)) < 0)
        err = errno;
    if (!err)
        err = copy_fd(in, out, buf, 128 * 1024, UINT64_MAX, &read_err);
    if (!err && fchmod(out, mode) < 0)
        err = errno;
    if (!err && fsync(out) < 0)
        err = errno;
    if (out >= 0 && close(out) < 0 && !err)
        err = errno;
    if (!err && rename(temp, to) < 0)
        err = errno;
    if (err && out >= 0)
        unlink(temp);
    close(in);
    free(temp);
    free(buf);
    return err;
}

/* Out of copy_tree's frame: its buffer is not on the stack once per level of a deep tree. */
static __attribute__((noinline)) int copy_link(const char *from, const char *to)
{
    char link[4096];
    ssize_t n = readlink(from, link, sizeof link - 1);
    if (n < 0)
        return errno;
    link[n] = 0;
    return symlink(link, to) < 0 ? errno : 0;
}

static int copy_at(const char *from, const char *to, int depth)
{
    struct stat st;
    if (lstat(from, &st) < 0)
        return errno;
    if (S_ISLNK(st.st_mode))
        return copy_link(from, to);
    if (depth > 256)
        return ENAMETOOLONG;
    if (!S_ISDIR(st.st_mode))
        return copy_file(from, to, st.st_mode & 0777);
    if (mkdir(to, st.st_mode & 0777) < 0 && errno != EEXIST)
        return errno;
    DIR *d = opendir(from);
    if (!d)
        return errno;
    int err = 0;
    struct dirent *e;
    while (!err && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *f = join_path(from, e->d_name), *t = join_path(to, e->d_name);
        err = f && t ? copy_at(f, t, depth + 1) : ENOMEM;
        free(f);
        free(t);
    }
    closedir(d);
    return err;
}

int copy_tree(const char *from, const char *to) { return copy_at(from, to, 0); }

/* The names of the last uid and gid asked, per thread: a listing asks the same ones again and again,
 * and each lookup reads /etc/passwd or /etc/group. A number without an entry is its decimal. */
static _Thread_local struct { int known; uid_t id; char name[64]; } last_user, last_group;

static const char *user_name(uid_t uid)
{
    if (!last_user.known || last_user.id != uid) {
        char buf[1024];
        struct passwd pw, *u = NULL;
        getpwuid_r(uid, &pw, buf, sizeof buf, &u);
        if (u)
            snprintf(last_user.name, sizeof last_user.name, "%s", u->pw_name);
        else
            snprintf(last_user.name, sizeof last_user.name, "%u", (unsigned)uid);
        last_user.id = uid;
        last_user.known = 1;
    }
    return last_user.name;
}

static const char *group_name(gid_t gid)
{
    if (!last_group.known || last_group.id != gid) {
        char buf[1024];
        struct group gr, *g = NULL;
        getgrgid_r(gid, &gr, buf, sizeof buf, &g);
        if (g)
            snprintf(last_group.name, sizeof last_group.name, "%s", g->gr_name);
        else
            snprintf(last_group.name, sizeof last_group.name, "%u", (unsigned)gid);
        last_group.id = gid;
        last_group.known = 1;
    }
    return last_group.name;
}

/* ls -l's ten characters: the type, then rwx for owner, group and others (s and t included). */
static const char *permissions(mode_t m, char out[11])
{
    out[0] = S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' : S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : S_ISFIFO(m) ? 'p'
             : S_ISSOCK(m) ? 's' : '-';
    const char *rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; i++)
        out[1 + i] = m & (0400 >> i) ? rwx[i] : '-';
    if (m & S_ISUID)
        out[3] = out[3] == 'x' ? 's' : 'S';
    if (m & S_ISGID)
        out[6] = out[6] == 'x' ? 's' : 'S';
    if (m & S_ISVTX)
        out[9] = out[9] == 'x' ? 't' : 'T';
    out[10] = 0;
    return out;
}

void json_info(struct jbuf *b, const char *path, const struct stat *st)
{
    const char *type = S_ISLNK(st->st_mode) ? "symlink" : S_ISDIR(st->st_mode) ? "dir"
                     : !S_ISREG(st->st_mode) ? "other" : "file";
    char mode[16];
    snprintf(mode, sizeof mode, "0%o", (unsigned)(st->st_mode & 0777));
    jb_lit(b, "{\"path\":");
    jb_strz(b, path);
    jb_lit(b, ",\"name\":");
    jb_strz(b, base_name(path));
    jb_lit(b, ",\"type\":\"");
    jb_lit(b, type);
    jb_lit(b, "\",\"size\":");
    jb_int(b, st->st_size);
    jb_lit(b, ",\"mode\":\"");
    jb_lit(b, mode);
    jb_lit(b, "\",\"modified_at\":");
    jb_time(b, st->st_mtim);
    jb_lit(b, ",\"uid\":");
    jb_int(b, st->st_uid);
    jb_lit(b, ",\"gid\":");
    jb_int(b, st->st_gid);
    char buf[1024], name[64];
    jb_lit(b, ",\"owner\":");
    jb_strz(b, user_name(st->st_uid));
    jb_lit(b, ",\"group\":");
    jb_strz(b, group_name(st->st_gid));
    jb_lit(b, ",\"permissions\":");
    jb_strz(b, permissions(st->st_mode, name));
    jb_lit(b, ",\"symlink_target\":");
    ssize_t n = S_ISLNK(st->st_mode) ? readlink(path, buf, sizeof buf - 1) : -1;
    if (n >= 0)
        jb_str(b, buf, n);
    else
        jb_lit(b, "null");
    json_metadata(b, path);
    jb_lit(b, "}");
}

void answer_info(struct conn *c, const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0) {
        fail_file(c, path, errno);
        return;
    }
    struct jbuf b = {0};
    json_info(&b, path, &st);
    answer_json(c, 200, &b);
}
