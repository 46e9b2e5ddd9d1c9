/* caps.c: the agent's threads, and taking CAP_SYS_ADMIN from all of them. A pooled sandbox's
 * PID 1 starts with it only to name its computer at the claim (sethostname); capabilities are
 * per thread, so every thread drops it (a signal makes each do it on itself) before the main
 * process or any command starts: nothing the agent starts ever has it, as with a cold start. */
#include "agent.h"
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CAP_SYS_ADMIN_BIT 21
#define CAP_VERSION_3 0x20080522

int sig_wake, sig_caps;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t *threads;
static size_t nthreads, cap_threads;
static int dropped;
static sem_t acks;
static atomic_int drop_error;

struct cap_header { uint32_t version; int pid; };
struct cap_data { uint32_t effective, permitted, inheritable; };

static int drop_self(void)
{
    if (syscall(SYS_prctl, PR_CAPBSET_DROP, CAP_SYS_ADMIN_BIT, 0, 0, 0) < 0)
        return errno;
    struct cap_header h = {CAP_VERSION_3, 0};
    struct cap_data d[2];
    if (syscall(SYS_capget, &h, d) < 0)
        return errno;
    d[0].effective &= ~(1u << CAP_SYS_ADMIN_BIT);
    d[0].permitted &= ~(1u << CAP_SYS_ADMIN_BIT);
    d[0].inheritable &= ~(1u << CAP_SYS_ADMIN_BIT);
    if (syscall(SYS_capset, &h, d) < 0)
        return errno;
    return 0;
}

static void on_caps(int sig)
{
    (void)sig;
    int saved = errno, err = drop_self();
    if (err)
        atomic_store(&drop_error, err);
    sem_post(&acks);
    errno = saved;
}

static void on_signal(int sig) { (void)sig; }

void caps_init(void)
{
    sig_wake = SIGRTMIN + 1;
    sig_caps = SIGRTMIN + 2;
    sem_init(&acks, 0, 0);
    /* Handled signals get a handler (PID 1 is never sent a signal it leaves at its default) and
     * are blocked in every thread: the init loop takes them with sigtimedwait. Children start
     * with handlers reset to the default by exec and an empty mask (see spawn). */
    int handled[] = {SIGCHLD, SIGPWR, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGPIPE, sig_wake};
    sigset_t set;
    sigemptyset(&set);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof handled / sizeof *handled; i++) {
        sigaction(handled[i], &sa, NULL);
        sigaddset(&set, handled[i]);
    }
    sa.sa_handler = on_caps;
    sigaction(sig_caps, &sa, NULL);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void thread_register(void)
{
    pthread_mutex_lock(&reg_mu);
    if (dropped) /* made by a thread that had not dropped it yet */
        drop_self();
    if (nthreads == cap_threads) {
        size_t cap = cap_threads ? cap_threads * 2 : 16;
        pthread_t *t = realloc(threads, cap * sizeof *t);
        if (t) {
            threads = t;
            cap_threads = cap;
        }
    }
    if (nthreads < cap_threads)
        threads[nthreads++] = pthread_self();
    pthread_mutex_unlock(&reg_mu);
}

void thread_unregister(void)
{
    pthread_t self = pthread_self();
    pthread_mutex_lock(&reg_mu);
    for (size_t i = 0; i < nthreads; i++)
        if (pthread_equal(threads[i], self)) {
            threads[i] = threads[--nthreads];
            break;
        }
    pthread_mutex_unlock(&reg_mu);
}

struct start { void *(*fn)(void *); void *arg; };

static void *trampoline(void *arg)
{
    struct start s = *(struct start *)arg;
    free(arg);
    thread_register();
    void *r = s.fn(s.arg);
    thread_unregister();
    return r;
}

int thread_start(void *(*fn)(void *), void *arg, size_t stack)
{
    struct start *s = malloc(sizeof *s);
    if (!s)
        return -1;
    s->fn = fn;
    s->arg = arg;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, stack);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int r = pthread_create(&t, &a, trampoline, s);
    pthread_attr_destroy(&a);
    if (r) {
        free(s);
        return -1;
    }
    return 0;
}

int drop_sys_admin(void)
{
    pthread_mutex_lock(&reg_mu);
    dropped = 1;
    int err = drop_self();
    pthread_t self = pthread_self();
    int sent = 0;
    for (size_t i = 0; i < nthreads; i++)
        if (!pthread_equal(threads[i], self) && pthread_kill(threads[i], sig_caps) == 0)
            sent++;
    for (; sent > 0; sent--) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_sec += 5;
        while (sem_timedwait(&acks, &t) < 0 && errno == EINTR)
            ;
    }
    pthread_mutex_unlock(&reg_mu);
    if (!err)
        err = atomic_load(&drop_error);
    return err;
}
