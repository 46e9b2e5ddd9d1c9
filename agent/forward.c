/* forward.c: POST /forward?port=N&address=A makes a server that listens on 127.0.0.1:N (or ::1:N)
 * only, inside the computer, reachable at A:N (A: the computer's own address, which the host
 * reaches), as E2B's envd forwards localhost-bound ports. Which sockets listen is read from
 * /proc/net/tcp and tcp6, never by connecting to them: a probe would be a connection to the user's
 * server (one that serves a connection at a time would serve the probe). A server that listens on
 * every address needs nothing. Each connection accepted on A:N is relayed, both ways, to a new one
 * to the loopback address, on a thread of its own. A forwarder stays for the life of the agent. */
#include "agent.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FORWARDS 64

static pthread_mutex_t fw_mu = PTHREAD_MUTEX_INITIALIZER;
static int forwarded[MAX_FORWARDS];
static size_t nforwarded;

struct pair { int a, b; };

static int dial_local(int port, int v6)
{
    int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = {htonl(INADDR_LOOPBACK)}};
    struct sockaddr_in6 to6 = {.sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    if (fd >= 0 && (v6 ? connect(fd, (struct sockaddr *)&to6, sizeof to6) : connect(fd, (struct sockaddr *)&to, sizeof to)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

enum listening { NONE = 0, LOOPBACK4 = 1, LOOPBACK6 = 2, EVERYWHERE = 4 };

/* Who listens on the port, by the address they listen on: a line of /proc/net/tcp{,6} is "sl:
 * LOCAL REMOTE ST ...", LOCAL the address in hex as the kernel holds it and the port, ST 0A for LISTEN. */
static int listening(const char *table, int port, int v6)
{
    FILE *f = fopen(table, "re");
    char line[512], local[64];
    unsigned at, state;
    int found = NONE;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, " %*u: %63[0-9A-Fa-f]:%x %*s %x", local, &at, &state) != 3 || state != 0x0A
            || (int)at != port)
            continue;
        int any = strspn(local, "0") == strlen(local);
        int loop = v6 ? !strcmp(local, "00000000000000000000000001000000") : !strcmp(local, "0100007F");
        found |= any ? EVERYWHERE : loop ? (v6 ? LOOPBACK6 : LOOPBACK4) : 0;
    }
    if (f)
        fclose(f);
    return found;
}

/* Copies both ways until both sides ended; one side's end is passed on as a half close. */
static void *relay(void *arg)
{
    struct pair *p = arg;
    char *buf = malloc(64 * 1024);
    int open[2] = {1, 1}, fds[2] = {p->a, p->b};
    while (buf && (open[0] || open[1])) {
        struct pollfd f[2] = {{open[0] ? fds[0] : -1, POLLIN, 0}, {open[1] ? fds[1] : -1, POLLIN, 0}};
        if (poll(f, 2, -1) < 0)
            continue;
        for (int i = 0; i < 2; i++) {
            if (!open[i] || !(f[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(fds[i], buf, 64 * 1024);
            if (n > 0 && write_all(fds[1 - i], buf, n) == 0)
                continue;
            if (n < 0 && errno == EINTR)
                continue;
            open[i] = 0;
            shutdown(fds[1 - i], SHUT_WR);
            if (n != 0) /* an error, not an end: the other way is done too */
                open[1 - i] = 0;
        }
    }
    free(buf);
    close(p->a);
    close(p->b);
    free(p);
    return NULL;
}

struct listener { int fd, port, v6; };

static void *accepting(void *arg)
{
    struct listener *l = arg;
    for (;;) {
        int in = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
        if (in < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) {
                struct timespec t = {0, 10000000};
                nanosleep(&t, NULL);
                continue;
            }
            break;
        }
        int out = dial_local(l->port, l->v6);
        struct pair *p = out >= 0 ? malloc(sizeof *p) : NULL;
        if (p) /* before the thread starts: it reads the pair at once */
            *p = (struct pair){in, out};
        if (!p || thread_start(relay, p, 64 * 1024) < 0) {
            close(in);
            if (out >= 0)
                close(out);
            free(p);
        }
    }
    close(l->fd);
    free(l);
    return NULL;
}

static int already(int port)
{
    for (size_t i = 0; i < nforwarded; i++)
        if (forwarded[i] == port)
            return 1;
    return 0;
}

void h_forward(struct conn *c)
{
    char *port_q = query_get(c, "port"), *address = query_get(c, "address");
    long port = 0;
    struct in_addr at;
    int ok = port_q && parse_decimal(port_q, &port) == 0 && port > 0 && port < 65536 && address
             && inet_pton(AF_INET, address, &at) == 1;
    free(port_q);
    free(address);
    if (!ok) {
        fail(c, 400, "invalid", "port (1 to 65535) and address (IPv4) are required");
        return;
    }
    int who = listening("/proc/net/tcp", (int)port, 0) | listening("/proc/net/tcp6", (int)port, 1);
    if (!(who & (LOOPBACK4 | LOOPBACK6 | EVERYWHERE))) {
        fail(c, 404, "not_found", "nothing listens on that port in this computer");
        return;
    }
    if (who & EVERYWHERE) { /* reached at A:N already */
        struct jbuf b = {0};
        jb_lit(&b, "{\"port\":");
        jb_int(&b, port);
        jb_lit(&b, "}");
        answer_json(c, 200, &b);
        return;
    }
    pthread_mutex_lock(&fw_mu);
    int err = already((int)port) ? 0 : nforwarded >= MAX_FORWARDS ? ENOSPC : -1;
    if (err < 0) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
        struct sockaddr_in on = {.sin_family = AF_INET, .sin_port = htons((int)port), .sin_addr = at};
        struct listener *l = malloc(sizeof *l);
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        err = fd < 0 || !l ? ENOMEM : bind(fd, (struct sockaddr *)&on, sizeof on) < 0 || listen(fd, 128) < 0 ? errno : 0;
        if (!err) {
            *l = (struct listener){fd, (int)port, !(who & LOOPBACK4)};
            err = thread_start(accepting, l, 64 * 1024) < 0 ? ENOMEM : 0;
        }
        if (err) {
            if (fd >= 0)
                close(fd);
            free(l);
        } else {
            forwarded[nforwarded++] = (int)port;
        }
    }
    pthread_mutex_unlock(&fw_mu);
    if (err && err != EADDRINUSE) {
        fail(c, 409, "failed", err_text(err));
        return;
    }
    struct jbuf b = {0};
    jb_lit(&b, "{\"port\":");
    jb_int(&b, port);
    jb_lit(&b, "}");
    answer_json(c, 200, &b);
}
