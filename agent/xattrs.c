/* xattrs.c: a file's metadata as E2B's envd keeps it: extended attributes user.e2b.KEY = VALUE.
 * Uploads set them (?meta={"key": "value", ...}) on the new file before its rename, so a file
 * replaced by an upload never keeps its predecessor's; every file's info shows them. */
#include "agent.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#define PREFIX "user.e2b."
#define MAX_KEY 128
#define MAX_VALUE 4096

static int token_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static int valid(const char *key, const char *value)
{
    if (!*key)
        return 0;
    for (const char *p = key; *p; p++)
        if (!token_char(*p))
            return 0;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++)
        if (*p < 0x20 || *p > 0x7e)
            return 0;
    return strlen(value) <= MAX_VALUE;
}

int meta_parse(const char *json, struct meta *m)
{
    memset(m, 0, sizeof *m);
    if (!json)
        return 0;
    struct jcur j = JCUR(json, strlen(json));
    char key[MAX_KEY + 1];
    int k = jc_object(&j);
    if (k != 1)
        return k == 0 ? 0 : -1;
    while ((k = jc_key(&j, key, sizeof key)) == 1) {
        char *value = NULL;
        if (jc_string(&j, &value, NULL) != 1 || !valid(key, value) || strv_pushz(&m->keys, key) < 0
            || strv_pushz(&m->values, value) < 0) {
            free(value);
            meta_free(m);
            return -1;
        }
        free(value);
    }
    if (k < 0)
        meta_free(m);
    return k;
}

int meta_apply(int fd, const struct meta *m)
{
    for (size_t i = 0; i < m->keys.n; i++) {
        char name[sizeof PREFIX + MAX_KEY];
        snprintf(name, sizeof name, PREFIX "%s", m->keys.v[i]);
        if (fsetxattr(fd, name, m->values.v[i], strlen(m->values.v[i]), 0) < 0)
            return errno;
    }
    return 0;
}

void meta_free(struct meta *m)
{
    strv_free(&m->keys);
    strv_free(&m->values);
}

/* ,"metadata":{...}: the file's user.e2b.* attributes (none when it has none or cannot have them). */
void json_metadata(struct jbuf *b, const char *path)
{
    jb_lit(b, ",\"metadata\":{");
    char list[8192];
    ssize_t n = llistxattr(path, list, sizeof list);
    int first = 1;
    for (ssize_t at = 0; n > 0 && at < n; at += strlen(list + at) + 1) {
        const char *name = list + at;
        if (strncmp(name, PREFIX, sizeof PREFIX - 1) || !name[sizeof PREFIX - 1])
            continue;
        char value[MAX_VALUE];
        ssize_t len = lgetxattr(path, name, value, sizeof value);
        if (len < 0)
            continue;
        jb_lit(b, first ? "" : ",");
        jb_strz(b, name + sizeof PREFIX - 1);
        jb_lit(b, ":");
        jb_str(b, value, len);
        first = 0;
    }
    jb_lit(b, "}");
}
