/* reaper.c: PID 1's single wait loop, and starting processes. Every child ends up here (orphans
 * are re-parented to PID 1), so a process the agent started gets its exit status through the
 * reaper rather than its own wait, which would race the loop for it. spawn registers a child
 * under the lock the loop takes, so a status is never collected before someone waits for it;
 * holding the lock (see handover) keeps every status where it is. */
#include "agent.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct waitent { int pid; exited_fn fn; void *arg; };
static pthread_mutex_t reap_mu = PTHREAD_MUTEX_INITIALIZER;
static struct waitent *waits;
static size_t nwaits, capwaits;

void reaper_lock(void) { pthread_mutex_lock(&reap_mu); }
void reaper_unlock(void) { pthread_mutex_unlock(&reap_mu); }

static int room(void)
{
    if (nwaits < capwaits)
        return 0;
    size_t cap = capwaits ? capwaits * 2 : 32;
    struct waitent *w = realloc(waits, cap * sizeof *w);
    if (!w)
        return -1;
    waits = w;
    capwaits = cap;
    return 0;
}

struct ksigaction { void *handler; unsigned long flags; void *restorer; uint64_t mask; };

/* The child of vfork: it shares the parent's memory until exec, so it only makes system calls
 * (no libc state: raw sigaction and sigprocmask), and reports a failure through *err. */
static void child(const struct spawn_spec *s, volatile int *err)
{
    static const int handled[] = {SIGCHLD, SIGPWR, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
                                  SIGWINCH, SIGPIPE};
    struct ksigaction dfl = {SIG_DFL, 0, NULL, 0};
    for (size_t i = 0; i < sizeof handled / sizeof *handled; i++)
        syscall(SYS_rt_sigaction, handled[i], &dfl, NULL, 8);
    syscall(SYS_rt_sigaction, sig_wake, &dfl, NULL, 8);
    syscall(SYS_rt_sigaction, sig_caps, &dfl, NULL, 8);
    if (s->setsid_ctty) {
        if (setsid() < 0)
            goto failed;
    } else if (s->pgid && setpgid(0, 0) < 0) {
        goto failed;
    }
    /* The raw calls change this process alone: libc's would signal every thread of the agent,
     * whose memory this vfork child shares. Groups and gid first: after setuid they are refused. */
    if (s->as && s->as->set && (syscall(SYS_setgroups, s->as->ngroups, s->as->groups) < 0
            || syscall(SYS_setgid, s->as->gid) < 0 || syscall(SYS_setuid, s->as->uid) < 0))
        goto failed;
    if (s->cwd && *s->cwd && chdir(s->cwd) < 0)
        goto failed;
    for (int i = 0; i < 3; i++)
        if (dup2(s->fds[i], i) < 0)
            goto failed;
    if (s->setsid_ctty && ioctl(0, TIOCSCTTY, 1) < 0)
        goto failed;
    uint64_t none = 0;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, 8);
    execve(s->path, s->argv, s->envp);
failed:
    *err = errno ? errno : EINVAL;
    _exit(127);
}

static int spawn_once(const struct spawn_spec *s, exited_fn exited, void *arg)
{
    pthread_mutex_lock(&reap_mu);
    if (room() < 0) {
        pthread_mutex_unlock(&reap_mu);
        return -ENOMEM;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    volatile int err = 0;
    pid_t pid = vfork();
    if (pid == 0)
        child(s, &err);
    int fork_err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        pthread_mutex_unlock(&reap_mu);
        return -fork_err;
    }
    if (err) { /* it never ran: collect it here, not in the loop */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        pthread_mutex_unlock(&reap_mu);
        return -err;
    }
    waits[nwaits++] = (struct waitent){pid, exited, arg};
    pthread_mutex_unlock(&reap_mu);
    return pid;
}

/* A fork refused for want of room (EAGAIN: the process limit) right after a fork bomb was ended
 * succeeds once PID 1 has reaped the killed: wait for that a while, outside reap_mu so that the
 * reaping goes on, rather than answer the caller's next command with "resource temporarily
 * unavailable". A bomb still running still gets the refusal, a moment later. */
#define SPAWN_WAIT_MS 5000

int spawn(const struct spawn_spec *s, exited_fn exited, void *arg)
{
    for (int64_t until = now_ms() + SPAWN_WAIT_MS;;) {
        int pid = spawn_once(s, exited, arg);
        if (pid != -EAGAIN || now_ms() >= until)
            return pid;
        struct timespec t = {0, 5000000};
        nanosleep(&t, NULL);
    }
}

void reaper_watch(int pid, exited_fn exited, void *arg)
{
    pthread_mutex_lock(&reap_mu);
    if (room() == 0)
        waits[nwaits++] = (struct waitent){pid, exited, arg};
    pthread_mutex_unlock(&reap_mu);
}

void reap(void)
{
    pthread_mutex_lock(&reap_mu);
    for (;;) {
        int status;
        pid_t pid = wait4(-1, &status, WNOHANG, NULL);
        if (pid <= 0)
            break;
        for (size_t i = 0; i < nwaits; i++)
            if (waits[i].pid == pid) {
                struct waitent w = waits[i];
                waits[i] = waits[--nwaits];
                w.fn(w.arg, status);
                break;
            }
    }
    pthread_mutex_unlock(&reap_mu);
}

int exit_code(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

struct pp { int pid, ppid; };

/* Every process's parent, from /proc; the command name in parentheses may hold anything, so
 * the fields are read after its last ')'. */
static struct pp *parents(size_t *n)
{
    DIR *d = opendir("/proc");
    if (!d)
        return NULL;
    size_t cap = 64;
    struct pp *all = malloc(cap * sizeof *all);
    struct dirent *e;
    *n = 0;
    while (all && (e = readdir(d))) {
        long pid;
        if (parse_decimal(e->d_name, &pid) < 0 || pid <= 0)
            continue;
        char path[64], stat[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, stat, sizeof stat - 1);
        close(fd);
        if (len <= 0)
            continue;
        stat[len] = 0;
        char *close_paren = strrchr(stat, ')');
        int ppid;
        char state;
        if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2)
            continue;
        if (*n == cap) {
            struct pp *more = realloc(all, cap * 2 * sizeof *all);
            if (!more)
                break;
            all = more;
            cap *= 2;
        }
        all[(*n)++] = (struct pp){(int)pid, ppid};
    }
    closedir(d);
    return all;
}

/* Stops a process's group, then stops and kills every descendant found in /proc (a child that left
 * the group would otherwise keep running and keep its output pipes open), then kills the group until
 * it is empty. The group is stopped first, in one system call: under a fork bomb hundreds of processes
 * are runnable and gVisor schedules each of the agent's system calls behind them, so a /proc walk
 * while they ran took minutes; stopped, they neither fork nor take the CPU, and their parent links
 * still lead to what left the group. */
void kill_tree(int pid)
{
    kill(-pid, SIGSTOP);
    size_t n = 0;
    struct pp *all = parents(&n);
    int *tree = malloc((n + 1) * sizeof *tree);
    size_t found = 0;
    if (tree) {
        tree[found++] = pid;
        for (size_t at = 0; at < found; at++) /* breadth first: found grows as children are found */
            for (size_t i = 0; i < n; i++)
                if (all[i].ppid == tree[at] && all[i].pid != pid && found <= n)
                    tree[found++] = all[i].pid;
        for (size_t i = 0; i < found; i++)
            kill(tree[i], SIGSTOP);
        for (size_t i = 0; i < found; i++)
            kill(tree[i], SIGKILL);
    }
    kill_group(pid);
    free(tree);
    free(all);
}

/* Kills the group again until it is empty: a member in the middle of a fork when the signal went out
 * can leave a child that did not get it. Bounded, so a group that cannot be emptied does not hold the
 * caller; its next kill_group (exec's loop calls it again while the process lives) goes on. */
int kill_group(int pid)
{
    for (int round = 0; round < 64; round++)
        if (kill(-pid, SIGKILL) < 0 && errno == ESRCH)
            return 0;
    return kill(pid, SIGKILL) < 0 && errno == ESRCH ? 0 : -1;
}

int look_path(const char *name, const char *path, char *out, size_t cap)
{
    if (!path || !*path)
        path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    for (const char *p = path;;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        int n = len ? snprintf(out, cap, "%.*s/%s", (int)len, p, name) : snprintf(out, cap, "./%s", name);
        struct stat st;
        if (n > 0 && (size_t)n < cap && stat(out, &st) == 0 && !S_ISDIR(st.st_mode) && (st.st_mode & 0111))
            return 0;
        if (!colon)
            return ENOENT;
        p = colon + 1;
    }
}

int resolve(const char *name, char *const *env, char *out, size_t cap)
{
    if (strchr(name, '/')) {
        struct stat st;
        if (stat(name, &st) < 0)
            return errno;
        if (strlen(name) >= cap)
            return ENAMETOOLONG;
        strcpy(out, name);
        return 0;
    }
    const char *path = "";
    for (; env && *env; env++)
        if (!strncmp(*env, "PATH=", 5))
            path = *env + 5;
    return look_path(name, path, out, cap);
}
