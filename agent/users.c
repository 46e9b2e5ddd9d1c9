/* users.c: running a command as a user of the computer's image, as su does: the uid, gid and
 * supplementary groups of its /etc/passwd and /etc/group entries, and HOME, USER and LOGNAME. The
 * user is looked up before the fork; the child only makes the three system calls. */
#include "agent.h"
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name in /etc/passwd, or a uid ("1000") or uid:gid ("1000:1000") that may have no entry. */
int identity_of(const char *user, struct identity *id)
{
    memset(id, 0, sizeof *id);
    char buf[4096];
    struct passwd pw, *found = NULL;
    long uid, gid;
    char *colon = strchr(user, ':');
    if (!*user)
        return EINVAL;
    if (colon) {
        char *u = strndup(user, colon - user);
        int ok = u && parse_decimal(u, &uid) == 0 && parse_decimal(colon + 1, &gid) == 0;
        free(u);
        if (!ok)
            return EINVAL;
    } else if (parse_decimal(user, &uid) != 0) {
        if (getpwnam_r(user, &pw, buf, sizeof buf, &found) != 0 || !found)
            return ENOENT;
        uid = found->pw_uid;
        gid = found->pw_gid;
    } else {
        gid = uid;
    }
    if (!found && getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found && !colon)
        gid = found->pw_gid;
    id->uid = uid;
    id->gid = gid;
    snprintf(id->name, sizeof id->name, "%s", found ? found->pw_name : user);
    snprintf(id->home, sizeof id->home, "%s", found && found->pw_dir && *found->pw_dir ? found->pw_dir : "/");
    id->ngroups = sizeof id->groups / sizeof *id->groups;
    if (!found || getgrouplist(found->pw_name, id->gid, id->groups, &id->ngroups) < 0) {
        id->groups[0] = id->gid;
        id->ngroups = 1;
    }
    return 0;
}

/* env with HOME, USER and LOGNAME those of the user (replaced if there); a new strv. */
int env_as(struct strv *out, char *const *env, const struct identity *id)
{
    static const char *const names[] = {"HOME=", "USER=", "LOGNAME="};
    memset(out, 0, sizeof *out);
    for (size_t i = 0; env && env[i]; i++) {
        int ours = 0;
        for (size_t k = 0; k < 3; k++)
            ours |= !strncmp(env[i], names[k], strlen(names[k]));
        if (!ours && strv_pushz(out, env[i]) < 0)
            return -1;
    }
    char line[PATH_MAX + 16];
    const char *values[] = {id->home, id->name, id->name};
    for (size_t k = 0; k < 3; k++) {
        snprintf(line, sizeof line, "%s%s", names[k], values[k]);
        if (strv_pushz(out, line) < 0)
            return -1;
    }
    return 0;
}

/* What a run as spec->user needs before its fork: the identity (as->set: 0 for the agent's own),
 * the environment (spec->env, with the user's HOME, USER and LOGNAME), and the cwd (the user's
 * home unless given). 0, or an errno: ENOENT for a user the image does not have. */
int run_as(struct run_spec *spec, struct identity *as)
{
    memset(as, 0, sizeof *as);
    if (!spec->user)
        return 0;
    int err = identity_of(spec->user, as);
    if (err)
        return err;
    struct strv env;
    if (env_as(&env, spec->env.v, as) < 0)
        return ENOMEM;
    strv_free(&spec->env);
    spec->env = env;
    if (!spec->cwd || !*spec->cwd) {
        free(spec->cwd);
        spec->cwd = strdup(as->home);
    }
    as->set = 1;
    return 0;
}
