/* sudo.c: sudo for computers, where gVisor ignores setuid bits (google/gvisor#5299), so the real
 * sudo cannot become root. The agent binary run as `sudo` (the E2B base image links /usr/bin/sudo
 * to it) is a client: it hands its arguments, environment, working directory and stdio descriptors
 * to the agent (PID 1, root) over an abstract Unix socket, forwards the signals it gets, and exits
 * as the command did. The agent runs the command as the target user if the caller may: root, or a
 * user or group with a NOPASSWD rule in /etc/sudoers or /etc/sudoers.d (no password is ever
 * asked). The environment is reset as sudo's env_reset does, unless -E. */
#include "agent.h"
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define SUDO_SOCKET "\0hearth-sudo"
#define SECURE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define MAX_REQUEST (1 << 20)

static socklen_t address(struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path, SUDO_SOCKET, sizeof SUDO_SOCKET - 1);
    return offsetof(struct sockaddr_un, sun_path) + sizeof SUDO_SOCKET - 1;
}

/* ---- the client: `sudo [-u USER] [-E] [-i|-s] [--] COMMAND [ARGS]` ---- */

static const char *usage_text = "usage: sudo [-E] [-H] [-n] [-u user] [-i | -s] [--] command [args...]\n";

static volatile sig_atomic_t forwarded_sig;
static void on_signal(int sig) { forwarded_sig = sig; }

int sudo_main(int argc, char **argv)
{
    const char *user = "root";
    int keep_env = 0, login = 0, shell = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-u") && i + 1 < argc) {
            user = argv[++i];
        } else if (!strncmp(a, "-u", 2) && a[2]) {
            user = a + 2;
        } else if (!strncmp(a, "--user=", 7)) {
            user = a + 7;
        } else if (!strcmp(a, "-E") || !strcmp(a, "--preserve-env")) {
            keep_env = 1;
        } else if (!strcmp(a, "-i") || !strcmp(a, "--login")) {
            login = 1;
        } else if (!strcmp(a, "-s") || !strcmp(a, "--shell")) {
            shell = 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "-k") || !strcmp(a, "-K")) {
            return 0; /* nothing is cached: no password is ever asked */
        } else if (!strcmp(a, "-l")) {
            printf("User may run the following commands on this computer:\n    (ALL) NOPASSWD: ALL\n");
            return 0;
        } else if (strcmp(a, "-H") && strcmp(a, "-n") && strcmp(a, "-S") && strcmp(a, "-b") && strcmp(a, "-P")) {
            fprintf(stderr, "sudo: unknown option %s\n%s", a, usage_text);
            return 1;
        }
    }
    if (i >= argc && !login && !shell) {
        fprintf(stderr, "%s", usage_text);
        return 1;
    }
    struct jbuf b = {0};
    char cwd[PATH_MAX];
    jb_lit(&b, "{\"user\":");
    jb_strz(&b, user);
    jb_lit(&b, login ? ",\"login\":true" : ",\"login\":false");
    jb_lit(&b, shell ? ",\"shell\":true" : ",\"shell\":false");
    jb_lit(&b, keep_env ? ",\"keep_env\":true,\"cwd\":" : ",\"keep_env\":false,\"cwd\":");
    jb_strz(&b, getcwd(cwd, sizeof cwd) ? cwd : "/");
    jb_lit(&b, ",\"command\":");
    jb_strv(&b, argv + i);
    extern char **environ;
    jb_lit(&b, ",\"env\":");
    jb_strv(&b, environ);
    jb_lit(&b, "}");
    if (b.failed) {
        fprintf(stderr, "sudo: out of memory\n");
        return 1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a;
    socklen_t len = address(&a);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, len) < 0) {
        fprintf(stderr, "sudo: Hearth's agent does not answer: this sudo works only in a Hearth computer\n");
        return 1;
    }
    unsigned char head[4] = {b.len >> 24, b.len >> 16, b.len >> 8, b.len};
    struct iovec iov[2] = {{head, 4}, {b.p, b.len}};
    char control[CMSG_SPACE(3 * sizeof(int))] = {0};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(3 * sizeof(int));
    int stdio[3] = {0, 1, 2};
    memcpy(CMSG_DATA(c), stdio, sizeof stdio);
    if (sendmsg(fd, &m, 0) != (ssize_t)(4 + b.len)) {
        fprintf(stderr, "sudo: cannot hand the command to Hearth's agent\n");
        return 1;
    }
    free(b.p);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++)
        signal(sigs[k], on_signal);
    unsigned char status[4];
    size_t got = 0;
    while (got < 4) {
        struct pollfd f = {fd, POLLIN, 0};
        if (forwarded_sig) {
            unsigned char s = (unsigned char)forwarded_sig;
            forwarded_sig = 0;
            if (write(fd, &s, 1) < 0) {
                /* the agent went: the read below ends too */
            }
        }
        if (poll(&f, 1, 200) <= 0)
            continue;
        ssize_t n = read(fd, status + got, 4 - got);
        if (n <= 0)
            return 1;
        got += n;
    }
    return (int)((uint32_t)status[0] << 24 | (uint32_t)status[1] << 16 | (uint32_t)status[2] << 8 | status[3]);
}

/* ---- the agent's side ---- */

/* Whether a line of sudoers grants `who` (a user name, or %group) NOPASSWD. */
static int grants(const char *line, const char *user, const struct identity *id)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line == '#' || !strstr(line, "NOPASSWD"))
        return 0;
    size_t n = strcspn(line, " \t");
    if (n == strlen(user) && !strncmp(line, user, n))
        return 1;
    if (line[0] != '%')
        return 0;
    for (int g = 0; g < id->ngroups; g++) {
        char buf[1024];
        struct group gr, *found = NULL;
        if (getgrgid_r(id->groups[g], &gr, buf, sizeof buf, &found) == 0 && found
            && n - 1 == strlen(found->gr_name) && !strncmp(line + 1, found->gr_name, n - 1))
            return 1;
    }
    return 0;
}

static int file_grants(const char *path, const char *user, const struct identity *id)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[1024];
    int yes = 0;
    while (!yes && fgets(line, sizeof line, f))
        yes = grants(line, user, id);
    fclose(f);
    return yes;
}

/* Root, or a user a NOPASSWD rule names (by name or by a group of theirs). */
static int may_sudo(uid_t uid)
{
    if (uid == 0)
        return 1;
    char buf[1024];
    struct passwd pw, *found = NULL;
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) != 0 || !found)
        return 0;
    struct identity id;
    if (identity_of(found->pw_name, &id))
        return 0;
    if (file_grants("/etc/sudoers", found->pw_name, &id))
        return 1;
    DIR *d = opendir("/etc/sudoers.d");
    int yes = 0;
    for (struct dirent *e; d && !yes && (e = readdir(d));) {
        if (e->d_name[0] == '.' || strchr(e->d_name, '.') || e->d_name[strlen(e->d_name) - 1] == '~')
            continue; /* as sudo skips them */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "/etc/sudoers.d/%s", e->d_name);
        yes = file_grants(path, found->pw_name, &id);
    }
    if (d)
        closedir(d);
    return yes;
}

struct sudo_req { struct strv command, env; char *user, *cwd; int login, shell, keep_env; };

static int decode(const char *json, size_t len, struct sudo_req *r)
{
    struct jcur j = JCUR(json, len);
    char key[16];
    int k = jc_object(&j);
    if (k != 1)
        return -1;
    while ((k = jc_key(&j, key, sizeof key)) == 1) {
        int ok;
        if (!strcmp(key, "command") || !strcmp(key, "env"))
            ok = jc_strings(&j, key[0] == 'c' ? &r->command : &r->env) >= 0;
        else if (!strcmp(key, "user") || !strcmp(key, "cwd"))
            ok = jc_string(&j, key[0] == 'u' ? &r->user : &r->cwd, NULL) >= 0;
        else if (!strcmp(key, "login") || !strcmp(key, "shell") || !strcmp(key, "keep_env"))
            ok = jc_bool(&j, key[0] == 'l' ? &r->login : key[0] == 's' ? &r->shell : &r->keep_env) >= 0;
        else
            ok = jc_skip(&j) == 0;
        if (!ok)
            return -1;
    }
    return k == 0 ? 0 : -1;
}

/* The command's environment: sudo's env_reset (TERM, the locale, the target's HOME, USER, LOGNAME,
 * SHELL, a secure PATH, SUDO_*), or with -E the caller's with those set. */
static int command_env(struct strv *out, const struct sudo_req *r, const struct identity *to, uid_t from,
                       const char *shell)
{
    struct strv kept = {0};
    for (size_t i = 0; r->env.v && i < r->env.n; i++) {
        const char *e = r->env.v[i];
        if (r->keep_env ? strncmp(e, "PATH=", 5) : !strncmp(e, "TERM=", 5) || !strncmp(e, "LANG=", 5)
                                                    || !strncmp(e, "LC_", 3) || !strncmp(e, "COLORTERM=", 10))
            if (strv_pushz(&kept, e) < 0)
                return -1;
    }
    char line[PATH_MAX + 64], name[64] = "root";
    char buf[1024];
    struct passwd pw, *caller = NULL;
    if (getpwuid_r(from, &pw, buf, sizeof buf, &caller) == 0 && caller)
        snprintf(name, sizeof name, "%s", caller->pw_name);
    snprintf(line, sizeof line, "PATH=%s", SECURE_PATH);
    int err = strv_pushz(&kept, line) < 0;
    snprintf(line, sizeof line, "SHELL=%s", shell);
    err |= strv_pushz(&kept, line) < 0;
    snprintf(line, sizeof line, "SUDO_USER=%s", name);
    err |= strv_pushz(&kept, line) < 0;
    snprintf(line, sizeof line, "SUDO_UID=%u", (unsigned)from);
    err |= strv_pushz(&kept, line) < 0;
    snprintf(line, sizeof line, "SUDO_GID=%u", (unsigned)(caller ? caller->pw_gid : 0));
    err |= strv_pushz(&kept, line) < 0;
    if (!err)
        err = env_as(out, kept.v, to) < 0;
    strv_free(&kept);
    return err ? -1 : 0;
}

struct finished { int efd, status; };

static void on_exit_status(void *arg, int status)
{
    struct finished *f = arg;
    uint64_t one = 1;
    f->status = status;
    if (write(f->efd, &one, sizeof one) < 0) {
        /* the counter is set already */
    }
}

/* Runs one client's command: refuses what its caller may not, answers the exit status. */
static void *serve_one(void *arg)
{
    int fd = (int)(intptr_t)arg, fds[3] = {-1, -1, -1}, code = 1;
    struct sudo_req r = {0};
    char *json = NULL;
    struct ucred cred;
    socklen_t cl = sizeof cred;
    unsigned char head[4];
    char control[CMSG_SPACE(3 * sizeof(int))];
    struct iovec iov = {head, 4};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || recvmsg(fd, &m, MSG_WAITALL) != 4)
        goto out;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (c && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(3 * sizeof(int)))
        memcpy(fds, CMSG_DATA(c), sizeof fds);
    size_t len = (size_t)head[0] << 24 | (size_t)head[1] << 16 | (size_t)head[2] << 8 | head[3];
    json = len <= MAX_REQUEST ? malloc(len + 1) : NULL;
    if (!json || fds[2] < 0 || recv(fd, json, len, MSG_WAITALL) != (ssize_t)len || decode(json, len, &r) < 0)
        goto out;
    if (!may_sudo(cred.uid)) {
        dprintf(fds[2], "sudo: you may not run commands as another user here (no NOPASSWD rule names you in "
                "/etc/sudoers or /etc/sudoers.d; Hearth's sudo never asks for a password)\n");
        goto out;
    }
    struct identity to;
    int err = identity_of(r.user ? r.user : "root", &to);
    if (err) {
        dprintf(fds[2], "sudo: unknown user %s\n", r.user ? r.user : "root");
        goto out;
    }
    to.set = 1;
    char buf[1024], shell[PATH_MAX] = "/bin/sh", path[PATH_MAX];
    struct passwd pw, *target = NULL;
    if (getpwuid_r(to.uid, &pw, buf, sizeof buf, &target) == 0 && target && target->pw_shell && *target->pw_shell)
        snprintf(shell, sizeof shell, "%s", target->pw_shell);
    struct strv argv = {0}, env = {0};
    if (r.login || r.shell) { /* the target's shell: a login one for -i, with -c and the command if given */
        strv_pushz(&argv, shell);
        if (r.login)
            strv_pushz(&argv, "-l");
        if (r.command.n) {
            struct jbuf joined = {0};
            for (size_t i = 0; i < r.command.n; i++) {
                if (i)
                    jb_raw(&joined, " ", 1);
                jb_raw(&joined, r.command.v[i], strlen(r.command.v[i]));
            }
            jb_raw(&joined, "", 1);
            strv_pushz(&argv, "-c");
            strv_pushz(&argv, joined.p ? joined.p : "");
            free(joined.p);
        }
    } else {
        for (size_t i = 0; i < r.command.n; i++)
            strv_pushz(&argv, r.command.v[i]);
    }
    if (!argv.v || command_env(&env, &r, &to, cred.uid, shell) < 0) {
        dprintf(fds[2], "sudo: out of memory\n");
        goto done;
    }
    if ((err = resolve(argv.v[0], env.v, path, sizeof path))) {
        dprintf(fds[2], "sudo: %s: command not found\n", argv.v[0]);
        goto done;
    }
    struct finished f = {eventfd(0, EFD_CLOEXEC), 0};
    struct spawn_spec sp = {path, argv.v, env.v, r.login ? to.home : r.cwd, {fds[0], fds[1], fds[2]}, 1, 0, &to};
    int pid = f.efd < 0 ? -ENOMEM : spawn(&sp, on_exit_status, &f);
    if (pid < 0) {
        dprintf(fds[2], "sudo: %s: %s\n", argv.v[0], err_text(-pid));
        code = start_failure(-pid);
    } else {
        for (;;) { /* its end, and meanwhile the signals its client passes on */
            struct pollfd p[2] = {{f.efd, POLLIN, 0}, {fd, POLLIN, 0}};
            if (poll(p, 2, -1) < 0)
                continue;
            if (p[0].revents & POLLIN)
                break;
            unsigned char sig;
            if ((p[1].revents & POLLIN) && read(fd, &sig, 1) == 1)
                kill(-pid, sig);
            else if (p[1].revents & (POLLHUP | POLLERR))
                p[1].fd = -1;
        }
        code = exit_code(f.status);
    }
    if (f.efd >= 0)
        close(f.efd);
done:
    strv_free(&argv);
    strv_free(&env);
out:;
    unsigned char status[4] = {code >> 24, code >> 16, code >> 8, code};
    if (write(fd, status, 4) < 0) {
        /* the client went */
    }
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    strv_free(&r.command);
    strv_free(&r.env);
    free(r.user);
    free(r.cwd);
    free(json);
    close(fd);
    return NULL;
}

static void *accepting(void *arg)
{
    int listener = (int)(intptr_t)arg;
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            struct timespec t = {0, 50000000};
            nanosleep(&t, NULL);
            continue;
        }
        if (thread_start(serve_one, (void *)(intptr_t)fd, 128 * 1024) < 0)
            close(fd);
    }
    return NULL;
}

void sudo_serve(void)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a;
    socklen_t len = address(&a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) < 0 || listen(fd, 64) < 0
        || thread_start(accepting, (void *)(intptr_t)fd, 64 * 1024) < 0) {
        log_err("hearth-agent: no sudo in this computer: %s", err_text(errno));
        if (fd >= 0)
            close(fd);
    }
}
