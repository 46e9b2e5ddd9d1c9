/* Tests of what the Java suites cannot reach: the JSON cursor and writer, the HTTP head and body
 * parsers over a socket pair, paths, a tar whose entries try to leave their directory, with edge cases and then random and mutated input (which
 * must be refused or read, never crash or overrun). scripts/build-agent runs it before building. */
#include "../agent.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); } } while (0)

/* The routes the HTTP code links to: unused here. */
void route(struct conn *c) { (void)c; }

/* The decoder the routes use (spec.c), with every field it knows. */
static const unsigned ALL = SF_COMMAND | SF_ENV | SF_CWD | SF_USER | SF_TAG | SF_TIMEOUT | SF_COLS | SF_ROWS | SF_STDIN
                            | SF_PTY | SF_RESTART | SF_HOSTNAME;

static int decodes(const char *s, struct run_spec *o)
{
    memset(o, 0, sizeof *o);
    return spec_decode(s, strlen(s), ALL, o);
}

static void json_cases(void)
{
    struct run_spec o;
    CHECK(decodes("{\"command\":[\"a\",\"b c\"],\"cwd\":\"/x\",\"timeout_ms\":5000}", &o) == 0 && o.command.n == 2 &&
          !strcmp(o.command.v[1], "b c") && !strcmp(o.cwd, "/x") && o.timeout_ms == 5000, "a plain head");
    spec_free(&o);
    CHECK(decodes(" { \"Command\" : [ ] , \"TIMEOUT_MS\":1 , \"x\":{\"y\":[1,2,{\"z\":null}],\"w\":-1.5e3}} ", &o) == 0 &&
          o.command.n == 0 && o.command.v && o.timeout_ms == 1, "keys match whatever their case; unknown ones are skipped");
    spec_free(&o);
    CHECK(decodes("{\"command\":[\"\\u00e9\\ud83d\\ude00\\n\\\"\\/\"]}", &o) == 0 &&
          !strcmp(o.command.v[0], "\xc3\xa9\xf0\x9f\x98\x80\n\"/"), "escapes and a surrogate pair");
    spec_free(&o);
    CHECK(decodes("{\"command\":[\"\\ud83d\", \"\xff\"]}", &o) == 0 && !strcmp(o.command.v[0], "\xef\xbf\xbd") &&
          !strcmp(o.command.v[1], "\xef\xbf\xbd"), "a lone surrogate and bad UTF-8 become U+FFFD, as in Go");
    spec_free(&o);
    CHECK(decodes("{\"command\":[\"a\\u0000b\"]}", &o) == 0 && o.command.nul && !strcmp(o.command.v[0], "a"),
          "a NUL inside an argument is noted: exec(2) cannot take it");
    spec_free(&o);
    CHECK(decodes("{\"command\":[\"a\\u0000b\"],\"command\":[\"c\"]}", &o) == 0 && !o.command.nul, "the last value counts");
    spec_free(&o);
    CHECK(decodes("{\"command\":null,\"cwd\":null,\"timeout_ms\":null}", &o) == 0 && !o.command.v && !o.cwd, "nulls");
    spec_free(&o);
    CHECK(decodes("{\"command\":[null,\"a\"]}", &o) == 0 && o.command.n == 2 && !strcmp(o.command.v[0], ""),
          "a null in a list of strings is \"\"");
    spec_free(&o);
    const char *bad[] = {"", "{", "}", "[]", "{\"command\":\"x\"}", "{\"timeout_ms\":1.5}", "{\"timeout_ms\":1e3}",
                         "{\"timeout_ms\":99999999999999999999}", "{\"timeout_ms\":01}", "{\"timeout_ms\":-}",
                         "{\"command\":[\"a\",]}", "{\"command\":[\"a\" \"b\"]}", "{\"a\":1,}", "{\"a\" 1}",
                         "{\"cwd\":\"\\x\"}", "{\"cwd\":\"\\u12\"}", "{\"cwd\":\"a\nb\"}", "{\"cwd\":\"abc",
                         "{\"stdin\":tru}", "{\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[}", "{} x", "{\"x\":nul}",
                         "{\"x\":[1,2}", "{\"x\":{\"a\"}}", "{\"x\":{1:2}}", "{\"x\":\"\\ud800\\u\"}", NULL};
    for (int i = 0; bad[i]; i++) {
        CHECK(decodes(bad[i], &o) < 0, "refused: %s", bad[i]);
        spec_free(&o);
    }
    char deep[3000];
    memset(deep, '[', sizeof deep);
    memcpy(deep, "{\"x\":", 5);
    deep[sizeof deep - 1] = 0;
    CHECK(decodes(deep, &o) < 0, "deep nesting is refused, not recursed into");
    spec_free(&o);
    CHECK(decodes("{\"timeout_ms\":-9223372036854775808}", &o) == 0 && o.timeout_ms == INT64_MIN, "the smallest int64");
    spec_free(&o);

    CHECK(decodes("{\"user\":\"root\",\"pty\":true,\"cols\":80,\"rows\":24,\"tag\":\"t\",\"stdin\":false}", &o) == 0
          && !strcmp(o.user, "root") && o.pty == 1 && o.cols == 80 && o.rows == 24 && !strcmp(o.tag, "t")
          && o.stdin_pipe == 0, "every field of the table");
    spec_free(&o);
    memset(&o, 0, sizeof o);
    const char *skipped = "{\"user\":5,\"command\":[\"a\"]}";
    CHECK(spec_decode(skipped, strlen(skipped), SF_COMMAND, &o) == 0 && !o.user
          && o.command.n == 1, "a field the route does not take is skipped, whatever it holds");
    spec_free(&o);
    CHECK(decodes("{\"user\":5}", &o) < 0 && decodes("{\"pty\":\"yes\"}", &o) < 0, "a field of the wrong type");
    spec_free(&o);
    CHECK(decodes("{\"user\":\"a\",\"user\":null}", &o) == 0 && !o.user, "null unsets a string");
    spec_free(&o);
    const char *claim = "{\"command\":[\"sh\"],\"env\":[\"A=1\"],\"restart\":\"never\",\"hostname\":\"web\"}";
    memset(&o, 0, sizeof o);
    CHECK(spec_decode(claim, strlen(claim), SF_COMMAND | SF_ENV | SF_RESTART | SF_HOSTNAME, &o) == 0
          && o.command.n == 1 && o.env.n == 1 && !strcmp(o.restart, "never") && !strcmp(o.hostname, "web"),
          "a pooled agent's claim");
    spec_free(&o);
    CHECK(decodes("{\"hostname\":\"a\\u0000b\"}", &o) < 0, "a hostname with a NUL is refused, not cut");
    spec_free(&o);

    struct jbuf b = {0};
    jb_str(&b, "a\"\\\n\t\x01<>&\xe2\x80\xa8\xff\xc3\xa9", 15);
    jb_raw(&b, "", 0);
    const char *want = "\"a\\\"\\\\\\n\\t\\u0001\\u003c\\u003e\\u0026\\u2028\\ufffd\xc3\xa9\"";
    CHECK(b.len == strlen(want) && !memcmp(b.p, want, b.len), "escaped as Go does: %.*s", (int)b.len, b.p);
    free(b.p);
}

static void misc_cases(void)
{
    char t[40];
    struct timespec ts = {1700000000, 120000000}, back;
    format_time(t, ts);
    CHECK(!strcmp(t, "2023-11-14T22:13:20.12Z"), "RFC 3339 with the fraction trimmed: %s", t);
    CHECK(parse_time(t, strlen(t), &back) == 0 && back.tv_sec == ts.tv_sec && back.tv_nsec == ts.tv_nsec, "read back");
    ts.tv_nsec = 0;
    format_time(t, ts);
    CHECK(!strcmp(t, "2023-11-14T22:13:20Z"), "no fraction: %s", t);
    CHECK(parse_time("2023-11-14T23:13:20+01:00", 25, &back) == 0 && back.tv_sec == 1700000000, "an offset");
    CHECK(parse_time("2023-11-14 22:13:20Z", 20, &back) < 0, "not RFC 3339");
    unsigned char raw[256], dec[256];
    char enc[400];
    for (int i = 0; i < 256; i++)
        raw[i] = (unsigned char)(i * 7);
    for (size_t n = 0; n < 10; n++) {
        size_t e = base64_encode(enc, raw, n);
        CHECK(base64_decode(dec, enc, e) == (long)n && !memcmp(dec, raw, n), "base64 of %zu bytes", n);
    }
    CHECK(base64_decode(dec, "a===", 4) < 0 && base64_decode(dec, "ab=c", 4) < 0 && base64_decode(dec, "abc", 3) < 0,
          "bad base64");
    long v;
    CHECK(parse_decimal("12", &v) == 0 && v == 12 && parse_decimal("012", &v) < 0 && parse_decimal("", &v) < 0 &&
          parse_decimal("+1", &v) < 0 && parse_decimal("1a", &v) < 0, "selectors are canonical decimals");
    CHECK(check_path("/a/b") == 0 && check_path("a") < 0 && check_path("/a/../b") < 0 && check_path("/a/.") < 0 &&
          check_path("/a/..b/.c") == 0, "paths");
    char *c = clean_path("//a///b//");
    CHECK(!strcmp(c, "/a/b"), "cleaned: %s", c);
    free(c);
    c = clean_path("/");
    CHECK(!strcmp(c, "/") && !strcmp(base_name(c), "/"), "the root");
    free(c);
}

/* Sends `raw` as a request on one end of a socket pair and reads it with the agent's parser. */
static int parse(const char *raw, size_t n, struct conn *c, char *body, size_t cap, long *body_len)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return -9;
    if (write_all(sv[1], raw, n) < 0) {
        close(sv[0]);
        close(sv[1]);
        return -9;
    }
    shutdown(sv[1], SHUT_WR);
    c->fd = sv[0];
    c->in_off = c->in_len = 0;
    c->broken = 0;
    int r = http_read_head(c, 1000);
    *body_len = 0;
    if (r == 1) {
        size_t got = 0;
        ssize_t k;
        while (got < cap && (k = body_read(c, body + got, cap - got, 0)) > 0)
            got += k;
        *body_len = c->body_error ? -1 : (long)got;
    }
    close(sv[0]);
    close(sv[1]);
    return r;
}

static struct conn conn;

static void http_cases(void)
{
    char body[4096];
    long len;
    const char *r1 = "POST /exec?x=1 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer k\r\nContent-Length: 5\r\n\r\nhello";
    CHECK(parse(r1, strlen(r1), &conn, body, sizeof body, &len) == 1 && !strcmp(conn.method, "POST") &&
          !strcmp(conn.path, "/exec") && !strcmp(conn.query, "x=1") && conn.auth_len == 8 && len == 5 &&
          !memcmp(body, "hello", 5), "a request with a length");
    const char *r2 = "PUT /files?path=%2Ftmp%2Fa+b&mode=644 HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n"
                     "3;ext=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nTrailer: x\r\n\r\n";
    int r = parse(r2, strlen(r2), &conn, body, sizeof body, &len);
    char *p = r == 1 ? query_get(&conn, "path") : NULL, *m = r == 1 ? query_get(&conn, "mode") : NULL;
    CHECK(r == 1 && len == 19 && !memcmp(body, "abc0123456789abcdef", 19) && p && !strcmp(p, "/tmp/a b") && m &&
          !strcmp(m, "644"), "chunked, with an extension and a trailer; the query decoded");
    free(p);
    free(m);
    const char *r3 = "GET /files?path=%2Fa%00b HTTP/1.1\r\nHost: a\r\n\r\n";
    r = parse(r3, strlen(r3), &conn, body, sizeof body, &len);
    p = r == 1 ? query_get(&conn, "path") : NULL;
    CHECK(p && check_path(p) < 0, "a NUL in the query never reaches a path");
    free(p);
    const char *cut = "POST /exec HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab";
    CHECK(parse(cut, strlen(cut), &conn, body, sizeof body, &len) == 1 && len == -1, "a body cut short is an error");
    const char *huge = "POST /exec HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n";
    CHECK(parse(huge, strlen(huge), &conn, body, sizeof body, &len) == 1 && len == -1, "a chunk size too large");
    const char *badreq[] = {"GET\r\n\r\n", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\n\r\n",
                            "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n",
                            "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                            "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
                            "GET / HTTP/1.1\r\nBad Header: a\r\n\r\n", "GET x HTTP/1.1\r\nHost: a\r\n\r\n",
                            "GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", NULL};
    for (int i = 0; badreq[i]; i++)
        CHECK(parse(badreq[i], strlen(badreq[i]), &conn, body, sizeof body, &len) == -1, "refused: %s", badreq[i]);
    static char big[IN_CAP + 100];
    memset(big, 'a', sizeof big);
    memcpy(big, "GET /", 5);
    CHECK(parse(big, sizeof big, &conn, body, sizeof body, &len) == -1, "a head larger than the buffer is refused");
}

/* ---- PUT /files/archive: a tar whose entries try to leave their directory */

/* Appends a USTAR header for `name` (type '0' with `data`, '2' a link to `data`, '5' a directory). */
static size_t tar_entry(char *tar, size_t at, const char *name, char type, const char *data)
{
    char *h = tar + at;
    size_t size = type == '0' ? strlen(data) : 0;
    memset(h, 0, 512);
    snprintf(h, 100, "%s", name);
    snprintf(h + 100, 8, "%07o", type == '5' ? 0755 : 0644);
    snprintf(h + 108, 8, "%07o", 0);
    snprintf(h + 116, 8, "%07o", 0);
    snprintf(h + 124, 12, "%011zo", size);
    snprintf(h + 136, 12, "%011o", 0);
    h[156] = type;
    if (type == '2')
        snprintf(h + 157, 100, "%s", data);
    memcpy(h + 257, "ustar\0" "00", 8);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum);
    at += 512;
    if (size) {
        memset(tar + at, 0, (size + 511) / 512 * 512);
        memcpy(tar + at, data, size);
        at += (size + 511) / 512 * 512;
    }
    return at;
}

/* Unpacks `tar` into `dir` as the route does, over a socket pair: the answer's status. */
static int unpack_into(const char *dir, char *tar, size_t n)
{
    memset(tar + n, 0, 1024);
    n += 1024;
    char head[256];
    int hn = snprintf(head, sizeof head, "PUT /files/archive HTTP/1.1\r\nHost: a\r\nContent-Length: %zu\r\n\r\n", n);
    int sv[2], status = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    static struct conn c;
    memset(&c, 0, sizeof c);
    if (write_all(sv[1], head, hn) == 0 && write_all(sv[1], tar, n) == 0) {
        shutdown(sv[1], SHUT_WR);
        c.fd = sv[0];
        if (http_read_head(&c, 1000) == 1) {
            h_archive_in(&c, dir);
            resp_end(&c);
            char answer[512] = {0};
            if (read(sv[1], answer, sizeof answer - 1) > 0)
                sscanf(answer, "HTTP/1.1 %d", &status);
        }
    }
    close(sv[0]);
    close(sv[1]);
    return status;
}

static int exists(const char *dir, const char *name)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0;
}

static void tar_cases(void)
{
    char root[] = "/tmp/hearth-agent-tar-XXXXXX", dir[600], outside[600], link[700];
    static char tar[64 * 1024];
    if (!mkdtemp(root)) {
        CHECK(0, "cannot make a directory under /tmp");
        return;
    }
    snprintf(dir, sizeof dir, "%s/into", root);
    snprintf(outside, sizeof outside, "%s/outside", root);
    mkdir(outside, 0755);
    size_t n = tar_entry(tar, 0, "a/b.txt", '0', "hello");
    CHECK(unpack_into(dir, tar, n) == 200 && exists(dir, "a/b.txt"), "a plain tar is unpacked");
    n = tar_entry(tar, 0, "../escaped", '0', "x");
    CHECK(unpack_into(dir, tar, n) == 400 && !exists(root, "escaped"), "a .. entry is refused");
    n = tar_entry(tar, 0, "l", '2', outside);
    n = tar_entry(tar, n, "l/planted", '0', "x");
    CHECK(unpack_into(dir, tar, n) == 400 && !exists(outside, "planted"), "no entry is written through a link it made");
    n = tar_entry(tar, 0, "up", '2', "..");
    n = tar_entry(tar, n, "up/planted", '0', "x");
    CHECK(unpack_into(dir, tar, n) == 400 && !exists(root, "planted"), "nor through a relative one");
    snprintf(link, sizeof link, "%s/victim", dir);
    char target[700];
    snprintf(target, sizeof target, "%s/kept", outside);
    FILE *f = fopen(target, "w");
    if (f) {
        fputs("kept", f);
        fclose(f);
    }
    CHECK(symlink(target, link) == 0, "a link that was there");
    n = tar_entry(tar, 0, "victim", '0', "overwritten");
    int status = unpack_into(dir, tar, n);
    char got[16] = {0};
    f = fopen(target, "r");
    if (f) {
        if (!fgets(got, sizeof got, f))
            got[0] = 0;
        fclose(f);
    }
    struct stat st;
    CHECK(status == 200 && !strcmp(got, "kept") && lstat(link, &st) == 0 && S_ISREG(st.st_mode),
          "a file in a link's place replaces the link; what it pointed to is untouched (%d, %s)", status, got);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0, "cleaned up");
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Random bytes and mutations of valid input: every parser must return, reading only its input. */
static void fuzz(int rounds)
{
    static const char *seeds[] = {
        "{\"command\":[\"a\",\"\\u00e9\"],\"cwd\":\"/x\",\"timeout_ms\":5000,\"stdin\":true,\"user\":\"u\",\"o\":{\"a\":[1,-2.5e3,null]}}",
        "POST /exec?a=%41&b=c+d HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n",
        "PUT /files HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc"};
    static const char alphabet[] = "{}[],:\"\\u0123456789abcdefnulltruefalse -+.eE\r\n %;=?/&";
    char buf[512], body[1024];
    for (int i = 0; i < rounds; i++) {
        size_t n;
        const char *seed = seeds[next() % 3];
        if (next() % 4 == 0) {
            n = next() % sizeof buf;
            for (size_t k = 0; k < n; k++)
                buf[k] = next() % 2 ? alphabet[next() % (sizeof alphabet - 1)] : (char)next();
        } else {
            n = strlen(seed);
            memcpy(buf, seed, n);
            for (int k = (int)(next() % 6); k >= 0; k--) {
                size_t at = next() % n;
                switch (next() % 3) {
                case 0: buf[at] = alphabet[next() % (sizeof alphabet - 1)]; break;
                case 1: buf[at] = (char)next(); break;
                default: n = at + 1; break;
                }
            }
        }
        /* The input alone in a buffer of its own size: a read past it is a bug the sanitizers see. */
        char *exact = malloc(n ? n : 1);
        memcpy(exact, buf, n);
        struct run_spec o = {0};
        spec_decode(exact, n, ALL, &o);
        spec_free(&o);
        struct jcur j = JCUR(exact, n);
        jc_skip(&j);
        free(exact);
        long len;
        if (parse(buf, n, &conn, body, sizeof body, &len) == 1) {
            char *q = query_get(&conn, "a");
            free(q);
        }
    }
}

int main(int argc, char **argv)
{
    json_cases();
    misc_cases();
    http_cases();
    tar_cases();
    fuzz(argc > 1 ? atoi(argv[1]) : 20000);
    if (failures) {
        fprintf(stderr, "%d failed\n", failures);
        return 1;
    }
    printf("agent parsers: all passed\n");
    return 0;
}
