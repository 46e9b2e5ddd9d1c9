/* pool.c: a pooled agent is started before anyone asked for its computer (hearth serve's warm
 * pool): it answers hearth serve but starts nothing until POST /claim, which says whose computer
 * it now is (hostname, the main process's environment, argv and restart policy). The claim is
 * handed to the init loop, which answers once the main process started. */
#include "agent.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct claim {
    struct run_spec spec; /* command, env, restart and hostname */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, refused;
    char *message;
};

static pthread_mutex_t slot_mu = PTHREAD_MUTEX_INITIALIZER;
static struct claim *slot;

static int valid_restart(const char *r)
{
    return r && (!strcmp(r, "always") || !strcmp(r, "on-failure") || !strcmp(r, "never"));
}

static int valid_hostname(const char *h)
{
    return h && *h && strlen(h) <= 64 && !strpbrk(h, "/ ");
}

void h_claim(struct conn *c)
{
    struct claim cl = {0};
    size_t len;
    char *body = body_all(c, 4 << 20, &len);
    if (!body || spec_decode(body, len, SF_COMMAND | SF_ENV | SF_RESTART | SF_HOSTNAME, &cl.spec) < 0
        || !valid_restart(cl.spec.restart) || !valid_hostname(cl.spec.hostname)) {
        fail(c, 400, "invalid", "a claim has a command, env, a restart policy and a hostname");
        goto out;
    }
    _Bool no = 0;
    if (!atomic_load(&pooled) || !atomic_compare_exchange_strong(&claimed, &no, 1)) {
        fail(c, 409, "exists", "this computer is claimed already");
        goto out;
    }
    pthread_mutex_init(&cl.mu, NULL);
    pthread_cond_init(&cl.cv, NULL);
    pthread_mutex_lock(&slot_mu);
    slot = &cl;
    pthread_mutex_unlock(&slot_mu);
    pthread_kill(main_thread, sig_wake);
    pthread_mutex_lock(&cl.mu);
    while (!cl.done)
        pthread_cond_wait(&cl.cv, &cl.mu);
    pthread_mutex_unlock(&cl.mu);
    if (cl.refused)
        fail(c, 500, "claim_failed", cl.message ? cl.message : "");
    else if (cl.message)
        fail(c, 400, "cannot_start", cl.message);
    else {
        resp_start(c, 204, NULL, -1);
        c->ended = 1;
    }
    pthread_mutex_destroy(&cl.mu);
    pthread_cond_destroy(&cl.cv);
out:
    free(cl.message);
    spec_free(&cl.spec);
    free(body);
}

struct claim *claim_take(void)
{
    pthread_mutex_lock(&slot_mu);
    struct claim *c = slot;
    slot = NULL;
    pthread_mutex_unlock(&slot_mu);
    return c;
}

void claim_report(struct claim *c, int refused, const char *message)
{
    pthread_mutex_lock(&c->mu);
    c->refused = refused;
    c->message = message ? strdup(message) : NULL;
    c->done = 1;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* Makes the agent what a computer started with these settings would have been: its hostname,
 * its environment (the secret kept) and the init line a renewal runs again. What the init loop
 * keeps is copied: the claim itself goes with its request. */
int claim_apply(struct claim *c, struct init_opts *o)
{
    if (sethostname(c->spec.hostname, strlen(c->spec.hostname)) < 0)
        return errno;
    int err = drop_sys_admin();
    if (err)
        return err;
    char *secret = env_get(SECRET_ENV);
    env_clear();
    for (size_t i = 0; i < c->spec.env.n; i++) {
        char *eq = strchr(c->spec.env.v[i], '=');
        if (!eq || eq == c->spec.env.v[i])
            continue;
        *eq = 0;
        env_set(c->spec.env.v[i], eq + 1);
        *eq = '=';
    }
    if (secret)
        env_set(SECRET_ENV, secret);
    free(secret);
    static struct strv line;
    strv_free(&line);
    if (strv_pushz(&line, reexec_args[0]) < 0 || strv_pushz(&line, "init") < 0 || strv_pushz(&line, "--restart") < 0 ||
        strv_pushz(&line, c->spec.restart) < 0 || strv_pushz(&line, "--") < 0)
        return ENOMEM;
    for (size_t i = 0; i < c->spec.command.n; i++)
        if (strv_pushz(&line, c->spec.command.v[i]) < 0)
            return ENOMEM;
    set_reexec_args(line.v);
    o->restart = line.v[3];
    o->command = line.v + 5;
    return 0;
}
