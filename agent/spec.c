/* spec.c: what a request asks the agent to run, decoded in one place from the JSON heads of exec,
 * terminal, processes and a pooled agent's claim. One table lists every field, its type and where it goes; a route names
 * the fields it takes. Unknown fields are skipped (a newer Hearth may send more), a field of the
 * wrong type refuses the head, and so does anything after the object. A string field given null
 * is unset; given twice, the last counts. */
#include "agent.h"
#include <stdlib.h>
#include <string.h>

enum kind { K_STRINGS, K_STRING, K_NAME, K_INT, K_BOOL }; /* K_NAME: a string without NUL */

static const struct field {
    const char *name;
    unsigned bit;
    enum kind kind;
    size_t at;
} fields[] = {
    {"command", SF_COMMAND, K_STRINGS, offsetof(struct run_spec, command)},
    {"env", SF_ENV, K_STRINGS, offsetof(struct run_spec, env)},
    {"cwd", SF_CWD, K_STRING, offsetof(struct run_spec, cwd)},
    {"user", SF_USER, K_STRING, offsetof(struct run_spec, user)},
    {"tag", SF_TAG, K_STRING, offsetof(struct run_spec, tag)},
    {"timeout_ms", SF_TIMEOUT, K_INT, offsetof(struct run_spec, timeout_ms)},
    {"cols", SF_COLS, K_INT, offsetof(struct run_spec, cols)},
    {"rows", SF_ROWS, K_INT, offsetof(struct run_spec, rows)},
    {"stdin", SF_STDIN, K_BOOL, offsetof(struct run_spec, stdin_pipe)},
    {"pty", SF_PTY, K_BOOL, offsetof(struct run_spec, pty)},
    {"restart", SF_RESTART, K_NAME, offsetof(struct run_spec, restart)},
    {"hostname", SF_HOSTNAME, K_NAME, offsetof(struct run_spec, hostname)},
};

static int decode_field(struct jcur *j, const struct field *f, struct run_spec *s)
{
    char *at = (char *)s + f->at;
    switch (f->kind) {
    case K_STRINGS:
        return jc_strings(j, (struct strv *)at) >= 0 ? 0 : -1;
    case K_STRING:
    case K_NAME: {
        char **field = (char **)at, *v = NULL;
        size_t n = 0;
        if (jc_string(j, &v, &n) < 0)
            return -1;
        if (f->kind == K_NAME && v && strlen(v) != n) {
            free(v);
            return -1;
        }
        free(*field);
        *field = v;
        return 0;
    }
    case K_INT:
        return jc_int(j, (long long *)at) >= 0 ? 0 : -1;
    case K_BOOL:
        return jc_bool(j, (int *)at) >= 0 ? 0 : -1;
    }
    return -1;
}

int spec_decode(const char *json, size_t len, unsigned taken, struct run_spec *s)
{
    struct jcur j = JCUR(json, len);
    char key[16];
    int r = jc_object(&j);
    if (r != 1)
        return -1;
    while ((r = jc_key(&j, key, sizeof key)) == 1) {
        const struct field *f = NULL;
        for (size_t i = 0; i < sizeof fields / sizeof *fields && !f; i++)
            if ((fields[i].bit & taken) && !strcmp(key, fields[i].name))
                f = &fields[i];
        if (f ? decode_field(&j, f, s) < 0 : jc_skip(&j) != 0)
            return -1;
    }
    return r == 0 && jc_end(&j) == 0 ? 0 : -1;
}

void spec_free(struct run_spec *s)
{
    strv_free(&s->command);
    strv_free(&s->env);
    free(s->cwd);
    free(s->user);
    free(s->tag);
    free(s->restart);
    free(s->hostname);
    memset(s, 0, sizeof *s);
}
