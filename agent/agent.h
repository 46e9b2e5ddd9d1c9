/* hearth-agent: PID 1 of every Hearth computer. Declarations shared by its files; each .c file
 * has one job (see the comment at its top). */
#ifndef HEARTH_AGENT_H
#define HEARTH_AGENT_H
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define AGENT_PORT 49983
#define SECRET_ENV "HEARTH_AGENT_SECRET"
#define SOCKET_ENV "HEARTH_AGENT_SOCKET"
#define STATE_ENV "HEARTH_AGENT_STATE"
#define LEGACY_MAIN_ENV "HEARTH_AGENT_MAIN"
#define MAIN_TAG "main"

/* Exec frames: a kind byte, 4 bytes of length (big-endian), the payload. */
#define FRAME_STDOUT 'o'
#define FRAME_STDERR 'e'
#define FRAME_EXIT 'x'
#define FRAME_INPUT 'i'
#define FRAME_RESIZE 'r'

/* What output a process may still write after it ended is read this long (ms), as runsc exec does. */
#define DRAIN_AFTER_EXIT_MS 100
/* How often an exec past its time limit kills its group again while its process lives. */
#define KILL_AGAIN_MS 100
#define IO_CHUNK (32 * 1024)

/* ---- util.c ---- */
struct strv { char **v; size_t n, cap; int nul; }; /* NULL-terminated; nul: a string held a NUL (cut there) */
int strv_push(struct strv *s, const char *str, size_t len);
int strv_pushz(struct strv *s, const char *str);
void strv_free(struct strv *s);
int strv_dup(struct strv *to, char *const *from);
int64_t now_ms(void); /* monotonic */
struct timespec now_real(void);
size_t format_time(char *out, struct timespec t); /* RFC 3339, UTC, nanoseconds trimmed (Go's RFC3339Nano) */
int parse_time(const char *s, size_t len, struct timespec *t);
void random_hex(char out[17]);
const char *err_text(int err); /* Go's text for an errno ("no such file or directory") */
size_t base64_encode(char *out, const unsigned char *in, size_t n);
long base64_decode(unsigned char *out, const char *in, size_t n); /* -1: not base64 */
int write_all(int fd, const void *buf, size_t n);
void log_err(const char *fmt, ...);
int parse_decimal(const char *s, long *out); /* canonical decimal only ("12", not "012") */

/* ---- env (main.c): the agent's own environment, kept here and not in libc's, under a lock ---- */
char *env_get(const char *name);           /* a copy, or NULL */
int env_set(const char *name, const char *value);
void env_unset(const char *name);
void env_clear(void);
char **env_for_child(void);                /* the agent's environment without its secret (strv) */
char **env_for_renewal(const char *extra); /* the whole environment, and extra ("K=V") */
extern char *const *reexec_args;           /* what a renewal executes */
int set_reexec_args(char **argv);
extern char boot_id[17];
extern atomic_bool pooled, claimed;

/* ---- secret (server.c) ---- */
int secret_matches(const char *given, size_t len);
void secret_set(const char *s, size_t len);

/* ---- threads and capabilities (caps.c) ---- */
int thread_start(void *(*fn)(void *), void *arg, size_t stack);
void thread_register(void);
void thread_unregister(void);
int drop_sys_admin(void);
void caps_init(void);
extern int sig_wake, sig_caps;

/* ---- spec.c: what a request asks the agent to run (exec, terminal, processes) ---- */
struct run_spec {
    struct strv command, env;
    char *cwd, *user, *tag, *restart, *hostname;
    long long timeout_ms, cols, rows;
    int stdin_pipe, pty;
};
enum { SF_COMMAND = 1, SF_ENV = 2, SF_CWD = 4, SF_USER = 8, SF_TAG = 16, SF_TIMEOUT = 32, SF_COLS = 64,
       SF_ROWS = 128, SF_STDIN = 256, SF_PTY = 512, SF_RESTART = 1024, SF_HOSTNAME = 2048 };
int spec_decode(const char *json, size_t len, unsigned taken, struct run_spec *s); /* 0, or -1 */
void spec_free(struct run_spec *s);

/* ---- users.c: running as a user of the image ---- */
struct identity { int set; uid_t uid; gid_t gid; gid_t groups[64]; int ngroups; char name[64]; char home[PATH_MAX]; };
int identity_of(const char *user, struct identity *id); /* 0 or errno */
int env_as(struct strv *out, char *const *env, const struct identity *id);
int run_as(struct run_spec *spec, struct identity *as);  /* 0 or errno */

/* ---- sudo.c ---- */
int sudo_main(int argc, char **argv); /* the agent run as `sudo`: a client of the one below */
void sudo_serve(void);                /* PID 1 runs commands as root for those sudoers allows */

/* ---- pty.c ---- */
int open_pty(int *master, int *slave); /* 0 or errno */
void set_window(int master, long long cols, long long rows);

/* ---- reaper.c ---- */
struct spawn_spec {
    const char *path;
    char *const *argv, *const *envp;
    const char *cwd;        /* NULL or "": the agent's own */
    int fds[3];             /* become 0, 1, 2 */
    int pgid;               /* a group of its own */
    int setsid_ctty;        /* a session of its own, fd 0 its controlling terminal */
    const struct identity *as; /* NULL, or the user it runs as */
};
typedef void (*exited_fn)(void *arg, int status);
int spawn(const struct spawn_spec *s, exited_fn exited, void *arg); /* pid, or -errno */
void reaper_watch(int pid, exited_fn exited, void *arg);
void reap(void);
void reaper_lock(void);
void reaper_unlock(void);
int exit_code(int status);
void kill_tree(int pid);
int kill_group(int pid);
int resolve(const char *name, char *const *env, char *out, size_t cap); /* 0 or errno */
int look_path(const char *name, const char *path, char *out, size_t cap);

/* ---- json_out.c, json_in.c ---- */
int utf8_len(const unsigned char *s, size_t n, uint32_t *cp); /* 1-4, or 0 if not valid UTF-8 */
struct jbuf { char *p; size_t len, cap; int failed; };
void jb_raw(struct jbuf *b, const char *s, size_t n);
void jb_lit(struct jbuf *b, const char *s);
void jb_str(struct jbuf *b, const char *s, size_t n);
void jb_strz(struct jbuf *b, const char *s);
void jb_int(struct jbuf *b, long long v);
void jb_strv(struct jbuf *b, char *const *v);
void jb_time(struct jbuf *b, struct timespec t);

struct jcur { const char *start, *p, *end; int depth; int err; };
#define JCUR(buf, len) {(buf), (buf), (buf) + (len), 0, 0}
int jc_ws(struct jcur *c);                /* next non-space byte, or -1 at the end */
int jc_object(struct jcur *c);            /* 1: an object begins, 0: null, -1: error */
int jc_key(struct jcur *c, char *key, size_t cap); /* 1: a key (lower-cased, cut at cap), 0: object end, -1 */
int jc_string(struct jcur *c, char **out, size_t *len); /* 1 string (malloc'd), 0 null, -1 */
int jc_int(struct jcur *c, long long *out); /* 1, 0 null, -1 */
int jc_bool(struct jcur *c, int *out);    /* 1, 0 null, -1 */
int jc_strings(struct jcur *c, struct strv *out); /* 1 array, 0 null, -1 */
int jc_array(struct jcur *c);             /* 1 array begins, 0 null, -1 */
int jc_next(struct jcur *c);              /* in an array: 1 another value follows, 0 end, -1 */
int jc_skip(struct jcur *c);              /* any value: 0, or -1 */
int jc_end(struct jcur *c);               /* 0 if only space is left */

/* ---- http.c (requests) and answer.c ---- */
struct iovec;
#define IN_CAP (32 * 1024)
#define OUT_CAP (16 * 1024)
struct conn {
    int fd;
    char in[IN_CAP];
    size_t in_off, in_len;
    /* the request */
    char method[8];
    char *target;           /* in `in`: path, then query after the first '?' cut */
    char *path, *query;
    int http10, keep_alive, expect_continue, sent_continue;
    const char *auth; size_t auth_len;
    size_t head_len;        /* bytes of in the head took */
    int body_kind;          /* 0 none, 1 length, 2 chunked */
    uint64_t body_left;     /* length left, or of the current chunk */
    int chunk_state, body_done, body_error;
    int duplex;             /* the handler reads the body while it answers */
    int pipelined;          /* the caller sent more after the body: its hanging up shows as RDHUP only */
    /* the answer */
    int status, started, chunked, ended, broken, close_after;
    const char *ctype;
    char out[OUT_CAP];
    size_t out_len;
};
int http_read_head(struct conn *c, int idle_ms); /* 1 a request, 0 closed, -1 bad (answered) */
ssize_t body_read(struct conn *c, void *buf, size_t n, int nonblocking); /* >0, 0 end, -1 error, -2 later */
int body_discard(struct conn *c, uint64_t limit); /* 1 if the body was read whole */
char *body_all(struct conn *c, size_t limit, size_t *len); /* NULL: too large, cut short, or no memory */
char *query_get(struct conn *c, const char *name); /* decoded copy, or NULL if absent */
void resp_start(struct conn *c, int status, const char *ctype, long long length); /* -1: unknown */
void resp_write(struct conn *c, const void *data, size_t n);
void resp_flush(struct conn *c);
void resp_end(struct conn *c);
int resp_frame(struct conn *c, char kind, const void *payload, size_t n); /* 0, or -1 if the caller is gone */
void answer_json(struct conn *c, int status, struct jbuf *b);
void fail(struct conn *c, int status, const char *code, const char *message);
void fail_file(struct conn *c, const char *path, int err);
void send_raw(struct conn *c, const char *s);
int send_iov(struct conn *c, struct iovec *iov, int n);
int send_buf(struct conn *c, const void *p, size_t n);
const char *status_text(int status);
ssize_t fill(struct conn *c, int nonblocking); /* more of the connection: >0, 0 closed, -1 error, -2 later */
int unhex(char ch);
enum { BODY_NONE, BODY_LENGTH, BODY_CHUNKED };
enum { CH_SIZE, CH_DATA, CH_DATA_END, CH_TRAILER };
short conn_watch(struct conn *c);              /* poll events that show the caller hanging up */
int conn_hung_up(struct conn *c, short revents); /* what poll said of them */

/* ---- routes ---- */
void serve_start(const char *secret);
void route(struct conn *c);
void h_exec(struct conn *c);
void h_terminal(struct conn *c);
void h_files(struct conn *c);
void h_archive_out(struct conn *c, const char *dir);
void h_archive_in(struct conn *c, const char *dir);
void h_processes(struct conn *c, const char *rest);
void h_claim(struct conn *c);
void h_health(struct conn *c);
void h_stats(struct conn *c);
void h_watch(struct conn *c);
void h_forward(struct conn *c);
int read_head(struct conn *c, char **head, size_t *len);
void exit_frame(struct conn *c, int code, int timed_out);
int unread_bytes(int fd);
int start_failure(int err); /* exec and terminal: 4 bytes of length, then JSON */

/* ---- fsutil.c ---- */
int check_path(const char *p);       /* 0 or -1 */
char *clean_path(const char *p);     /* filepath.Clean of an absolute path, malloc'd */
const char *base_name(const char *clean);
char *dir_name(const char *clean);   /* malloc'd */
char *join_path(const char *dir, const char *name);
int mkdir_all(const char *path, mode_t mode);  /* 0 or errno */
int mkdir_owned(const char *path, mode_t mode, const struct identity *owner); /* the same, made dirs chowned */
int remove_all(const char *path);               /* 0 or errno */
int remove_one(const char *path);               /* os.Remove: 0 or errno */
int copy_tree(const char *from, const char *to); /* 0 or errno */
void json_info(struct jbuf *b, const char *path, const struct stat *st);

/* ---- xattrs.c ---- */
struct meta { struct strv keys, values; };
int meta_parse(const char *json, struct meta *m); /* ?meta= of an upload: 0 (none is fine), -1 invalid */
int meta_apply(int fd, const struct meta *m);     /* 0 or errno */
void meta_free(struct meta *m);
void json_metadata(struct jbuf *b, const char *path);
void answer_info(struct conn *c, const char *path);
char *temp_beside(const char *path);
int copy_fd(int in, int out, char *buf, size_t cap, uint64_t limit, int *read_err); /* 0 or errno */

/* ---- procs.c ---- */
struct event { struct event *next; uint32_t len; char kind; char data[]; };
struct waiter { struct waiter *next; int efd; };
struct proc {
    int pid;
    char *tag;
    char **command;
    struct timespec started, ended_at;
    int ended, exit_code;
    struct event *head, *tail;
    uint64_t first, count;   /* sequence number of head, and how many are kept */
    size_t size;
    int in_fd, out_fd, err_fd; /* the agent's ends, -1: none */
    int open;                /* output pipes not at their end */
    int tee;                 /* the main process: its output goes to the agent's too */
    int pty;                 /* started on a pty: in_fd and out_fd are its master */
    int refs;
    uint64_t serial;
    struct waiter *waiters;
};
extern pthread_mutex_t tab_mu;
struct proc *proc_new(int pid, const char *tag, char **command, struct timespec started);
void proc_unref(struct proc *p);       /* takes tab_mu */
void proc_unref_locked(struct proc *p);
void proc_exited(void *p, int status); /* the reaper's callback */
void proc_end_locked(struct proc *p, int code, struct timespec at);
void table_add(struct proc *p);
struct proc *table_find(const char *selector); /* a reference, or NULL */
int table_running(void);
void table_each(void (*fn)(struct proc *, void *), void *arg); /* oldest first, under tab_mu */
void proc_notify_locked(struct proc *p);
void waiter_add_locked(struct proc *p, struct waiter *w);
void waiter_remove_locked(struct proc *p, struct waiter *w);
int await_pipes(struct proc *p, int limit_ms, struct conn *c);
void json_proc_locked(struct jbuf *b, struct proc *p);
int launch(const struct spawn_spec *s, const char *tag, char **argv, int tee, int mine[3], struct proc **out);
int open_pipes(int stdin_pipe, int mine[3], int theirs[3]);
void close3(int fds[3]);
void collector_start(void);
void collector_wake(void);
int event_append_locked(struct proc *p, char kind, const char *data, size_t n);
extern struct proc **table; extern size_t table_n; extern int table_main;

/* ---- handover.c ---- */
int take_over(void);   /* 1 if an earlier self handed over */
void renew(void);

/* ---- init.c ---- */
struct init_opts { char **command; const char *restart; int pool; };
int parse_init(int argc, char **argv, struct init_opts *o);
int run_init(struct init_opts *o);
extern atomic_int active;
extern pthread_t main_thread;
extern atomic_bool main_known; /* run_init has started the main process, or knows there is none */

/* ---- memguard.c ---- */
void memguard_start(void);
void memguard_json(struct jbuf *b);

/* ---- pool.c ---- */
struct claim;
struct claim *claim_take(void);
int claim_apply(struct claim *c, struct init_opts *o); /* 0, or errno */
void claim_report(struct claim *c, int refused, const char *message);
#endif
