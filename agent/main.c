/* main.c: the entry point, the init line's options, and the agent's own environment, which it
 * keeps itself (not in libc's, which threads must not change under each other): the main process
 * inherits it without the secret, and a renewal executes with it. */
#include "agent.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] = "usage: hearth-agent init [--pool] [--restart always|on-failure|never] [--] [COMMAND ARGS...]";

extern char **environ;
static pthread_mutex_t env_mu = PTHREAD_MUTEX_INITIALIZER;
static struct strv env;
char *const *reexec_args;
char boot_id[17];
atomic_bool pooled, claimed;
struct rlimit child_stack;
int child_stack_known;

#define SMALL_STACK (256 * 1024)

void stack_limit(const struct rlimit *r) { syscall(SYS_prlimit64, 0, RLIMIT_STACK, r, NULL); }

/* gVisor commits a private mapping in 2 MiB-aligned pieces once touched, and the main thread's
 * stack is mapped as large as its limit (8 MiB): the agent would hold up to 2 MiB of it for a
 * few KiB used. So it executes itself once with a small limit; the limit it was given is kept
 * (HEARTH_AGENT_STACK) for its children and a renewal. */
static void small_stack(char **argv)
{
    const char *saved = getenv(STACK_ENV);
    unsigned long long cur, max;
    if (saved) {
        if (sscanf(saved, "%llu %llu", &cur, &max) == 2) {
            child_stack.rlim_cur = cur;
            child_stack.rlim_max = max;
            child_stack_known = 1;
        }
        return;
    }
    struct rlimit given;
    if (getrlimit(RLIMIT_STACK, &given) < 0 || given.rlim_cur <= SMALL_STACK)
        return;
    char v[64];
    snprintf(v, sizeof v, "%llu %llu", (unsigned long long)given.rlim_cur, (unsigned long long)given.rlim_max);
    struct rlimit small = {SMALL_STACK, given.rlim_max};
    if (setenv(STACK_ENV, v, 1) == 0 && setrlimit(RLIMIT_STACK, &small) == 0) {
        execv("/proc/self/exe", argv);
        setrlimit(RLIMIT_STACK, &given); /* an environment too large for a small stack: as given */
    }
    unsetenv(STACK_ENV);
}

static ssize_t env_find(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < env.n; i++)
        if (!strncmp(env.v[i], name, n) && env.v[i][n] == '=')
            return (ssize_t)i;
    return -1;
}

char *env_get(const char *name)
{
    pthread_mutex_lock(&env_mu);
    ssize_t i = env_find(name);
    char *v = i < 0 ? NULL : strdup(env.v[i] + strlen(name) + 1);
    pthread_mutex_unlock(&env_mu);
    return v;
}

int env_set(const char *name, const char *value)
{
    size_t nn = strlen(name), vn = strlen(value);
    char *kv = malloc(nn + vn + 2);
    if (!kv)
        return -1;
    memcpy(kv, name, nn);
    kv[nn] = '=';
    memcpy(kv + nn + 1, value, vn + 1);
    pthread_mutex_lock(&env_mu);
    ssize_t i = env_find(name);
    int r = 0;
    if (i >= 0) {
        free(env.v[i]);
        env.v[i] = kv;
    } else {
        r = strv_pushz(&env, kv);
        free(kv);
    }
    pthread_mutex_unlock(&env_mu);
    return r;
}

void env_unset(const char *name)
{
    pthread_mutex_lock(&env_mu);
    ssize_t i = env_find(name);
    if (i >= 0) {
        free(env.v[i]);
        memmove(env.v + i, env.v + i + 1, (env.n - i) * sizeof *env.v); /* the NULL too */
        env.n--;
    }
    pthread_mutex_unlock(&env_mu);
}

void env_clear(void)
{
    pthread_mutex_lock(&env_mu);
    for (size_t i = 0; i < env.n; i++)
        free(env.v[i]);
    env.n = 0;
    if (env.v)
        env.v[0] = NULL;
    pthread_mutex_unlock(&env_mu);
}

static char **env_copy(const char *skip, const char *skip2, const char *extra)
{
    struct strv out = {0};
    int failed = 0;
    pthread_mutex_lock(&env_mu);
    for (size_t i = 0; i < env.n && !failed; i++)
        if ((!skip || strncmp(env.v[i], skip, strlen(skip))) && (!skip2 || strncmp(env.v[i], skip2, strlen(skip2))))
            failed = strv_pushz(&out, env.v[i]) < 0;
    pthread_mutex_unlock(&env_mu);
    if (!failed && extra)
        failed = strv_pushz(&out, extra) < 0;
    if (!failed && !out.v)
        failed = strv_push(&out, "", 0) < 0 || (free(out.v[0]), out.v[0] = NULL, out.n = 0);
    if (failed) {
        strv_free(&out);
        return NULL;
    }
    return out.v;
}

char **env_for_child(void) { return env_copy(SECRET_ENV "=", STACK_ENV "=", NULL); }
char **env_for_renewal(const char *extra) { return env_copy(STACK_ENV "=", NULL, extra); }

int set_reexec_args(char **argv)
{
    reexec_args = argv;
    return 0;
}

int parse_init(int argc, char **argv, struct init_opts *o)
{
    static char *none[] = {NULL};
    o->command = none;
    o->restart = "on-failure";
    o->pool = 0;
    for (int i = 0; i < argc;) {
        if (!strcmp(argv[i], "--")) {
            o->command = argv + i + 1;
            return 0;
        } else if (!strcmp(argv[i], "--pool")) {
            o->pool = 1;
            i++;
        } else if (!strcmp(argv[i], "--restart")) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "always") && strcmp(argv[i + 1], "on-failure") &&
                                  strcmp(argv[i + 1], "never")))
                return -1;
            o->restart = argv[i + 1];
            i += 2;
        } else {
            o->command = argv + i;
            return 0;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "init")) {
        log_err("%s", usage);
        return 2;
    }
    small_stack(argv);
    struct init_opts opts;
    if (parse_init(argc - 2, argv + 2, &opts) < 0) {
        log_err("hearth-agent: --restart is always, on-failure or never\n%s", usage);
        return 2;
    }
    /* 0, 1 and 2 open, so that no pipe or socket of the agent's ever takes a stdio number. */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) < 0)
            return 1;
    if (strv_dup(&env, environ) < 0) {
        log_err("hearth-agent: out of memory");
        return 1;
    }
    random_hex(boot_id);
    reexec_args = argv;
    atomic_store(&pooled, opts.pool);
    main_thread = pthread_self(); /* before serving: a claim wakes it */
    caps_init();
    collector_start();
    char *secret = env_get(SECRET_ENV);
    if (secret && *secret)
        serve_start(secret);
    free(secret);
    int code = run_init(&opts);
    /* Requests being answered finish first: an exec of `kill 1` gets its answer. */
    for (int64_t deadline = now_ms() + 1000; atomic_load(&active) > 0 && now_ms() < deadline;) {
        reap();
        struct timespec t = {0, 5000000};
        nanosleep(&t, NULL);
    }
    _exit(code);
}
