/* init.c: PID 1's loop. It starts the main process and reaps every child (orphans of execs are
 * re-parented to PID 1). When the main process ends, the agent ends with its exit code (128+N
 * for signal N), which ends the sandbox and has Hearth start it again, unless the restart policy
 * keeps the computer up: then it waits for execs, as with no main process. A computer being
 * stopped (SIGTERM or SIGINT to PID 1) ends with its main process whatever the policy. Signals
 * come through sigtimedwait; once a second it reaps anyway, so a lost SIGCHLD never leaves a
 * command's caller waiting. */
#include "agent.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pthread_t main_thread;
atomic_bool main_known;
static sigset_t waited;
static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};

static int next_signal(void)
{
    struct timespec t = {1, 0};
    int sig = sigtimedwait(&waited, NULL, &t);
    return sig < 0 ? SIGCHLD : sig;
}

static int proc_ended(struct proc *p)
{
    pthread_mutex_lock(&tab_mu);
    int e = p->ended;
    pthread_mutex_unlock(&tab_mu);
    return e;
}

/* PID 1 of a computer with no main process: it reaps, and ends on SIGTERM or SIGINT. */
static int idle(void)
{
    for (;;) {
        int sig = next_signal();
        if (sig == SIGCHLD)
            reap();
        else if (sig == SIGTERM || sig == SIGINT)
            return 0;
        else if (sig == SIGPWR)
            renew();
    }
}

/* The claim, once it comes; NULL when the computer is stopped first. */
static struct claim *await_claim(void)
{
    for (;;) {
        struct claim *c = claim_take();
        if (c)
            return c;
        int sig = next_signal();
        if (sig == SIGCHLD)
            reap();
        else if (sig == SIGTERM || sig == SIGINT)
            return NULL;
    }
}

/* Starts the main process with the agent's environment (not its secret), its output kept. */
static int start_main(char **command, struct proc **out, char *msg, size_t cap)
{
    char path[PATH_MAX];
    const char *file = command[0];
    if (!strchr(file, '/')) {
        char *search = env_get("PATH");
        int err = look_path(file, search, path, sizeof path);
        free(search);
        if (err) {
            snprintf(msg, cap, "exec %s: %s", file, err_text(err));
            return err;
        }
        file = path;
    }
    int mine[3], theirs[3], err = -open_pipes(0, mine, theirs);
    if (err) {
        snprintf(msg, cap, "%s", err_text(err));
        return err;
    }
    char cwd[PATH_MAX], **env = env_for_child();
    char *none[] = {NULL};
    struct spawn_spec s = {file, command, env ? env : none, getcwd(cwd, sizeof cwd), {theirs[0], theirs[1], theirs[2]}, 0, 0, NULL};
    int pid = launch(&s, MAIN_TAG, command, 1, mine, out);
    close3(theirs);
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
    if (pid < 0) {
        close3(mine);
        snprintf(msg, cap, "%s", err_text(-pid));
        return -pid;
    }
    return 0;
}

int run_init(struct init_opts *o)
{
    sigemptyset(&waited);
    sigaddset(&waited, SIGCHLD);
    sigaddset(&waited, SIGPWR);
    sigaddset(&waited, sig_wake);
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++)
        sigaddset(&waited, forwarded[i]);
    int renewed = take_over();
    struct proc *main = table_find(MAIN_TAG);
    struct claim *pending = NULL;
    if (o->pool && !renewed) {
        if (!(pending = await_claim()))
            return 0;
        int err = claim_apply(pending, o);
        if (err) {
            claim_report(pending, 1, err_text(err));
            return 127;
        }
    }
    if ((renewed && (!main || proc_ended(main))) || (!renewed && !o->command[0])) {
        atomic_store(&main_known, 1);
        if (pending)
            claim_report(pending, 0, NULL);
        return idle();
    }
    if (!renewed) {
        char msg[PATH_MAX + 64];
        int err = start_main(o->command, &main, msg, sizeof msg);
        atomic_store(&main_known, 1);
        if (pending)
            claim_report(pending, 0, err ? msg : NULL);
        if (err) {
            size_t n = 0;
            for (char **a = o->command; *a; a++)
                n += strlen(*a) + 1;
            char *line = malloc(n + 1);
            if (line) {
                line[0] = 0;
                for (char **a = o->command; *a; a++) {
                    strcat(line, *a);
                    if (a[1])
                        strcat(line, " ");
                }
            }
            log_err("hearth-agent: cannot start %s: %s", line ? line : o->command[0], msg);
            free(line);
            return 127;
        }
    }
    atomic_store(&main_known, 1);
    int stopping = 0;
    for (;;) {
        int sig = next_signal();
        if (sig == SIGPWR)
            renew();
        else if (sig == SIGCHLD)
            reap();
        else if (sig != sig_wake) {
            stopping = stopping || sig == SIGTERM || sig == SIGINT;
            kill(main->pid, sig);
        }
        if (!proc_ended(main))
            continue;
        pthread_mutex_lock(&tab_mu);
        int code = main->exit_code;
        pthread_mutex_unlock(&tab_mu);
        if (stopping || !strcmp(o->restart, "always") || (!strcmp(o->restart, "on-failure") && code != 0)) {
            await_pipes(main, DRAIN_AFTER_EXIT_MS, NULL);
            return code;
        }
        log_err("hearth-agent: the main process exited with %d; the computer stays up (restart: %s)", code, o->restart);
        return idle();
    }
}
