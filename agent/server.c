/* server.c: the agent answers hearth serve on TCP port 49983 of every address of the computer
 * (Hearth's firewall keeps other computers off it; the secret, compared in constant time, keeps
 * everyone else out), and on a Unix socket when HEARTH_AGENT_SOCKET asks. A thread per
 * connection, so that a command may block: each costs its whole stack in gVisor (which commits a
 * mapping whole once touched), hence small stacks and no stack-hungry recursion in handlers. */
#include "agent.h"
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <dirent.h>

#define MAX_CONNS 1024
#define IDLE_MS (10 * 60 * 1000)
#define CONN_STACK (128 * 1024) /* gVisor commits a thread's whole stack once it is touched */

atomic_int active;
static atomic_int conns;
static pthread_mutex_t secret_mu = PTHREAD_MUTEX_INITIALIZER;
static char *secret;
static size_t secret_len;

int secret_matches(const char *given, size_t len)
{
    pthread_mutex_lock(&secret_mu);
    unsigned char diff = len != secret_len;
    if (!diff)
        for (size_t i = 0; i < len; i++)
            diff |= (unsigned char)(given[i] ^ secret[i]);
    pthread_mutex_unlock(&secret_mu);
    return diff == 0;
}

void secret_set(const char *s, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, s, len);
    copy[len] = 0;
    pthread_mutex_lock(&secret_mu);
    if (secret) {
        explicit_bzero(secret, secret_len);
        free(secret);
    }
    secret = copy;
    secret_len = len;
    pthread_mutex_unlock(&secret_mu);
}

static void handle(struct conn *c)
{
    static const char bearer[] = "Bearer ";
    int ok = c->auth && c->auth_len >= sizeof bearer - 1 && !memcmp(c->auth, bearer, sizeof bearer - 1) &&
             secret_matches(c->auth + sizeof bearer - 1, c->auth_len - (sizeof bearer - 1));
    if (!ok) {
        fail(c, 401, "unauthorized", "this agent answers Hearth only");
        return;
    }
    atomic_fetch_add(&active, 1);
    route(c);
    if (!c->status)
        resp_start(c, 200, NULL, -1);
    resp_end(c);
    atomic_fetch_sub(&active, 1);
}

/* Closing a socket with bytes still unread sends a reset, and a client still sending the body an
 * answer refused (a file over the disk's space) may then lose the answer before reading it: stop
 * writing, drop what still comes for a moment (until the client closes, at most LINGER_MS), then
 * close, as Go's server did. */
#define LINGER_MS 2000

static void linger(int fd)
{
    char buf[16 * 1024];
    shutdown(fd, SHUT_WR);
    for (int64_t until = now_ms() + LINGER_MS, left; (left = until - now_ms()) > 0;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)left) <= 0 || read(fd, buf, sizeof buf) <= 0)
            break;
    }
}

static void *serve_conn(void *arg)
{
    struct conn *c = arg;
    while (http_read_head(c, IDLE_MS) > 0) {
        handle(c);
        if (c->broken || c->close_after || !c->keep_alive)
            break;
        if (!c->body_done && !body_discard(c, 256 * 1024))
            break;
    }
    if (!c->broken && !c->body_done)
        linger(c->fd);
    close(c->fd);
    free(c);
    atomic_fetch_sub(&conns, 1);
    return NULL;
}

/* A thread counts against the computer's process limit. Right after a fork bomb was ended the
 * limit stays reached until PID 1 (this agent) has reaped the killed, so wait for room a while rather
 * than drop a connection hearth serve just opened: it would read an answer that ended before it began
 * and call the agent deaf. Connections that come meanwhile wait in the listen backlog. */
#define THREAD_WAIT_MS 10000

static int start_conn(struct conn *c)
{
    for (int64_t until = now_ms() + THREAD_WAIT_MS;;) {
        if (thread_start(serve_conn, c, CONN_STACK) == 0)
            return 0;
        if (now_ms() >= until)
            return -1;
        struct timespec t = {0, 5000000};
        nanosleep(&t, NULL);
    }
}

/* No thread even then: say why, in the agent's own error form, instead of a bare close. */
static void refuse(int fd)
{
    static const char answer[] =
        "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nConnection: close\r\n"
        "Content-Length: 98\r\n\r\n"
        "{\"code\":\"too_many_processes\",\"message\":\"the computer is at its process limit: no room to answer\"}\n";
    if (write(fd, answer, sizeof answer - 1) == (ssize_t)(sizeof answer - 1))
        linger(fd);
    close(fd);
}

static void accepted(int fd, int tcp)
{
    if (atomic_fetch_add(&conns, 1) >= MAX_CONNS) {
        atomic_fetch_sub(&conns, 1);
        close(fd);
        return;
    }
    int one = 1;
    if (tcp) {
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    }
    /* Only the fields: the buffers are touched as they fill, so an idle connection costs little. */
    struct conn *c = malloc(sizeof *c);
    if (c) {
        c->fd = fd;
        c->in_off = c->in_len = 0;
        c->broken = 0;
    }
    if (!c || start_conn(c) < 0) {
        free(c);
        refuse(fd);
        atomic_fetch_sub(&conns, 1);
    }
}

static int listen_tcp(void)
{
    int one = 1, zero = 0;
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(AGENT_PORT), .sin6_addr = in6addr_any};
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4096) == 0)
            return fd;
        close(fd);
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(AGENT_PORT), .sin_addr.s_addr = INADDR_ANY};
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4096) == 0)
        return fd;
    int err = errno;
    close(fd);
    errno = err;
    return -1;
}

static int listen_unix(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(a.sun_path, path);
    unlink(path); /* an earlier self's (see renew) */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4096) == 0)
        return fd;
    int err = errno;
    close(fd);
    errno = err;
    return -1;
}

struct listeners { int fds[2]; int n; };

static void *accept_loop(void *arg)
{
    struct listeners *l = arg;
    struct pollfd p[2];
    for (int i = 0; i < l->n; i++)
        p[i] = (struct pollfd){l->fds[i], POLLIN, 0};
    for (;;) {
        if (poll(p, l->n, -1) < 0) {
            if (errno == EINTR)
                continue;
            log_err("hearth-agent: stopped serving: %s", err_text(errno));
            return NULL;
        }
        for (int i = 0; i < l->n; i++) {
            if (!(p[i].revents & POLLIN))
                continue;
            int fd = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0)
                accepted(fd, i == 0);
            else if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) {
                struct timespec t = {0, 10000000}; /* let connections end */
                nanosleep(&t, NULL);
            }
        }
    }
}

void serve_start(const char *s)
{
    static struct listeners l;
    secret_set(s, strlen(s));
    int tcp = listen_tcp();
    if (tcp < 0) {
        log_err("hearth-agent: cannot listen on %d: %s", AGENT_PORT, err_text(errno));
        return;
    }
    l.fds[l.n++] = tcp;
    char *path = env_get(SOCKET_ENV);
    if (path && *path) {
        int fd = listen_unix(path);
        if (fd >= 0)
            l.fds[l.n++] = fd;
        else
            log_err("hearth-agent: cannot listen on %s: %s", path, err_text(errno));
    }
    free(path);
    if (thread_start(accept_loop, &l, 32 * 1024) < 0)
        log_err("hearth-agent: cannot start serving");
}

void h_health(struct conn *c)
{
    struct jbuf b = {0};
    jb_lit(&b, "{\"boot\":");
    jb_strz(&b, boot_id);
    jb_lit(&b, atomic_load(&pooled) && !atomic_load(&claimed) ? ",\"unclaimed\":true}" : ",\"unclaimed\":false}");
    answer_json(c, 200, &b);
}

/* What the computer runs now: gVisor's /proc lists the sandbox's own processes; PID 1 left out. */
void h_stats(struct conn *c)
{
    long n = 0;
    DIR *d = opendir("/proc");
    if (d) {
        struct dirent *e;
        long pid;
        while ((e = readdir(d)))
            if (parse_decimal(e->d_name, &pid) == 0 && pid > 0 && pid != 1)
                n++;
        closedir(d);
    }
    struct jbuf b = {0};
    jb_lit(&b, "{\"processes\":");
    jb_int(&b, n);
    memguard_json(&b);
    jb_lit(&b, "}");
    answer_json(c, 200, &b);
}

static void h_rekey(struct conn *c)
{
    size_t len;
    char *body = body_all(c, 1 << 20, &len);
    char *s = NULL;
    size_t slen = 0;
    int ok = 0;
    if (body) {
        struct jcur j = JCUR(body, len);
        char key[16];
        int r = jc_object(&j);
        ok = r == 1;
        while (ok && (r = jc_key(&j, key, sizeof key)) == 1) {
            if (!strcmp(key, "secret")) {
                free(s);
                s = NULL;
                ok = jc_string(&j, &s, &slen) >= 0;
            } else {
                ok = jc_skip(&j) == 0;
            }
        }
        ok = ok && r == 0;
    }
    if (!ok || !s || slen < 32 || memchr(s, 0, slen)) {
        fail(c, 400, "invalid", "a secret of at least 32 characters is required");
    } else {
        secret_set(s, slen);
        env_set(SECRET_ENV, s); /* a renewal starts with the secret the agent answers to now */
        resp_start(c, 204, NULL, -1);
        c->ended = 1;
    }
    if (s)
        explicit_bzero(s, slen);
    free(s);
    free(body);
}

static void not_found(struct conn *c)
{
    resp_start(c, 404, "text/plain; charset=utf-8", 19);
    resp_write(c, "404 page not found\n", 19);
    c->ended = 1;
}

static void not_allowed(struct conn *c)
{
    resp_start(c, 405, "text/plain; charset=utf-8", 19);
    resp_write(c, "Method Not Allowed\n", 19);
    c->ended = 1;
}

void route(struct conn *c)
{
    const char *m = c->method, *p = c->path;
    int get = !strcmp(m, "GET"), post = !strcmp(m, "POST"), put = !strcmp(m, "PUT"), del = !strcmp(m, "DELETE");
    if (!strcmp(p, "/health"))
        get ? h_health(c) : not_allowed(c);
    else if (!strcmp(p, "/stats"))
        get ? h_stats(c) : not_allowed(c);
    else if (!strcmp(p, "/rekey"))
        post ? h_rekey(c) : not_allowed(c);
    else if (!strcmp(p, "/claim"))
        post ? h_claim(c) : not_allowed(c);
    else if (!strcmp(p, "/exec"))
        post ? h_exec(c) : not_allowed(c);
    else if (!strcmp(p, "/watch"))
        get ? h_watch(c) : not_allowed(c);
    else if (!strcmp(p, "/forward"))
        post ? h_forward(c) : not_allowed(c);
    else if (!strcmp(p, "/terminal"))
        post ? h_terminal(c) : not_allowed(c);
    else if (!strcmp(p, "/files") || !strncmp(p, "/files/", 7)) {
        const char *rest = p + 6;
        int known = !*rest ? (get || put || del)
                  : !strcmp(rest, "/info") || !strcmp(rest, "/list") ? get
                  : !strcmp(rest, "/mkdir") || !strcmp(rest, "/move") ? post
                  : !strcmp(rest, "/archive") ? (get || put) : -1;
        if (known < 0)
            not_found(c);
        else if (!known)
            not_allowed(c);
        else
            h_files(c);
    } else if (!strcmp(p, "/processes") || !strncmp(p, "/processes/", 11)) {
        h_processes(c, p + 10);
    } else {
        not_found(c);
    }
}
