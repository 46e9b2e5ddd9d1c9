/* main.c: the entry point, the init line's options, and the agent's own environment, which it
 * keeps itself (not in libc's, which threads must not change under each other): the main process
 * inherits it without the secret, and a renewal executes with it. */
#include "agent.h"
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
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

/* gVisor commits a private mapping in 2 MiB-aligned pieces once a page of it is touched, and maps
 * the main thread's stack as large as its limit (8 MiB): the few KiB the agent uses there held up
 * to 2 MiB. What lies more than 256 KiB below where the stack is now, which the main thread never
 * reaches, is given back (on Linux, where only touched pages count, this changes nothing). */
static void trim_stack(void)
{
    char here, line[256];
    uintptr_t sp = (uintptr_t)&here, keep = (sp - 256 * 1024) & ~(uintptr_t)4095;
    FILE *maps = fopen("/proc/self/maps", "re");
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        if (!strstr(line, "[stack]") || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
            continue;
        if (lo < keep && keep < hi)
            madvise((void *)lo, keep - lo, MADV_DONTNEED);
        break;
    }
    if (maps)
        fclose(maps);
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

static char **env_copy(const char *skip, const char *extra)
{
    struct strv out = {0};
    int failed = 0;
    pthread_mutex_lock(&env_mu);
    for (size_t i = 0; i < env.n && !failed; i++)
        if (!skip || strncmp(env.v[i], skip, strlen(skip)))
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

char **env_for_child(void) { return env_copy(SECRET_ENV "=", NULL); }
char **env_for_renewal(const char *extra) { return env_copy(NULL, extra); }

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
    const char *name = strrchr(argv[0], '/');
    if (!strcmp(name ? name + 1 : argv[0], "sudo"))
        return sudo_main(argc, argv);
    if (argc < 2 || strcmp(argv[1], "init")) {
        log_err("%s", usage);
        return 2;
    }
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
    trim_stack();
    random_hex(boot_id);
    reexec_args = argv;
    atomic_store(&pooled, opts.pool);
    main_thread = pthread_self(); /* before serving: a claim wakes it */
    caps_init();
    collector_start();
    if (getpid() == 1)
        memguard_start();
    char *secret = env_get(SECRET_ENV);
    if (secret && *secret)
        serve_start(secret);
    free(secret);
    sudo_serve();
    int code = run_init(&opts);
    /* Requests being answered finish first: an exec of `kill 1` gets its answer. */
    for (int64_t deadline = now_ms() + 1000; atomic_load(&active) > 0 && now_ms() < deadline;) {
        reap();
        struct timespec t = {0, 5000000};
        nanosleep(&t, NULL);
    }
    _exit(code);
}
