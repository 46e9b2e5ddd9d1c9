/* memguard.c: gVisor has no out-of-memory killer (google/gvisor#1967) and the host's can only end
 * the whole sandbox, memory and all. The agent watches the computer's memory instead: gVisor's
 * /proc/meminfo counts what the computer's processes use against the size it booted with, and the
 * host's limit leaves room above that (SentryRoom). When less than a reserve is left, the process
 * with the largest resident set is ended with SIGKILL (never the agent, PID 1), as Linux's OOM
 * killer would, so the computer lives on. Each end is counted, shown by /stats and written to the
 * main process's log. */
#include "agent.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EVERY_MS 100 /* while more than half the memory is free */
#define NEAR_MS 20    /* past half: a computer that runs there steadily pays 50 reads a second, not 200 */
#define CLOSE_MS 5    /* past three quarters: a process can fill what is left in tens of milliseconds */
#define SETTLE_MS 10 /* after an end, time for the agent to reap it before looking again */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long long kills;
static struct { long pid; char command[32]; long long bytes; struct timespec at; } last;

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* MemTotal and MemAvailable in kB; 0 when /proc/meminfo cannot be read. */
static int meminfo(long long *total, long long *available)
{
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f)
        return 0;
    char line[128];
    int found = 0;
    while (fgets(line, sizeof line, f) && found < 2) {
        if (sscanf(line, "MemTotal: %lld kB", total) == 1 || sscanf(line, "MemAvailable: %lld kB", available) == 1)
            found++;
    }
    fclose(f);
    return found == 2;
}

static long long resident_bytes(long pid, long page)
{
    char path[64];
    long long size = 0, resident = 0;
    snprintf(path, sizeof path, "/proc/%ld/statm", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int ok = fscanf(f, "%lld %lld", &size, &resident) == 2;
    fclose(f);
    return ok ? resident * page : -1;
}

static void command_of(long pid, char *out, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "re");
    out[0] = 0;
    if (f) {
        if (fgets(out, (int)cap, f))
            out[strcspn(out, "\n")] = 0;
        fclose(f);
    }
}

/* The process using most memory, never PID 1 or the agent itself (0 when there is none), and the
 * resident bytes of all of them together. */
static long largest(long long *bytes, long long *all)
{
    long page = sysconf(_SC_PAGESIZE), best = 0, self = getpid();
    *bytes = *all = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct dirent *e;
    long pid;
    while ((e = readdir(d)))
        if (parse_decimal(e->d_name, &pid) == 0 && pid > 1 && pid != self) {
            long long rss = resident_bytes(pid, page);
            if (rss > 0)
                *all += rss;
            if (rss > *bytes) {
                *bytes = rss;
                best = pid;
            }
        }
    closedir(d);
    return best;
}

/* Told where the computer's owner looks: the main process's log (and the agent's stderr). */
static void tell(long pid, const char *command, long long bytes)
{
    char line[256];
    int n = snprintf(line, sizeof line, "hearth: the computer was out of memory: ended process %ld (%s), "
                     "which used %lld MiB\n", pid, command, bytes >> 20);
    if (n <= 0)
        return;
    if (n >= (int)sizeof line)
        n = sizeof line - 1;
    struct proc *p = table_find(MAIN_TAG);
    if (p) {
        pthread_mutex_lock(&tab_mu);
        event_append_locked(p, FRAME_STDERR, line, (size_t)n);
        pthread_mutex_unlock(&tab_mu);
        proc_unref(p);
    }
    log_err("%.*s", n - 1, line);
}

/* used_kb: what meminfo says is in use. gVisor counts a process's memory as used for a moment
 * after it ended; unless processes hold at least half of it, nothing is ended. */
static void end_largest(long long used_kb)
{
    long long bytes, all;
    long pid = largest(&bytes, &all);
    if (!pid || all < (used_kb << 10) / 2 || kill((pid_t)pid, SIGKILL) < 0)
        return;
    char command[32];
    command_of(pid, command, sizeof command);
    pthread_mutex_lock(&mu);
    kills++;
    last.pid = pid;
    memcpy(last.command, command, sizeof last.command);
    last.bytes = bytes;
    clock_gettime(CLOCK_REALTIME, &last.at);
    pthread_mutex_unlock(&mu);
    tell(pid, command, bytes);
    pause_ms(SETTLE_MS);
}

static void *guard(void *arg)
{
    (void)arg;
    long wait = EVERY_MS;
    for (;;) {
        pause_ms(wait);
        long long total = 0, available = 0;
        if (!meminfo(&total, &available) || total <= 0)
            continue;
        long long reserve = total / 16 > 16384 ? total / 16 : 16384; /* kB: 1/16, at least 16 MiB */
        if (available < reserve)
            end_largest(total - available);
        wait = available > total / 2 ? EVERY_MS : available > total / 4 ? NEAR_MS : CLOSE_MS;
    }
    return NULL;
}

void memguard_start(void)
{
    if (thread_start(guard, NULL, 32 * 1024) < 0)
        log_err("hearth-agent: cannot watch memory: a computer out of memory would be ended whole");
}

/* ,"memory_kills":N[,"last_memory_kill":{pid, command, bytes, at}] for /stats */
void memguard_json(struct jbuf *b)
{
    pthread_mutex_lock(&mu);
    jb_lit(b, ",\"memory_kills\":");
    jb_int(b, kills);
    if (kills) {
        jb_lit(b, ",\"last_memory_kill\":{\"pid\":");
        jb_int(b, last.pid);
        jb_lit(b, ",\"command\":");
        jb_strz(b, last.command);
        jb_lit(b, ",\"bytes\":");
        jb_int(b, last.bytes);
        jb_lit(b, ",\"at\":");
        jb_time(b, last.at);
        jb_lit(b, "}");
    }
    pthread_mutex_unlock(&mu);
}
