/*
 * The snapshot bench's main process: touches PROBE_MIB MiB of memory (argument 1), then wakes every
 * millisecond and keeps the longest gap between two wake-ups, so a pause is seen from inside the
 * computer. Every 20 ms it writes that gap in microseconds to /tmp/maxgap (whole, by rename); a file
 * /tmp/reset starts a new measurement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

int main(int argc, char **argv) {
    long mib = argc > 1 ? atol(argv[1]) : 0;
    if (mib > 0) {
        size_t n = (size_t) mib << 20;
        unsigned char *p = malloc(n);
        unsigned int x = 12345;
        for (size_t i = 0; i + 4 <= n; i += 4) {
            x = x * 1103515245u + 12345u;
            memcpy(p + i, &x, 4);
        }
    }
    long long last = now_us(), max = 0, written = last;
    for (;;) {
        usleep(1000);
        long long t = now_us();
        if (t - last > max) {
            max = t - last;
        }
        last = t;
        if (t - written >= 20000) {
            if (access("/tmp/reset", F_OK) == 0) {
                unlink("/tmp/reset");
                max = 0;
            }
            FILE *f = fopen("/tmp/maxgap.new", "w");
            if (f) {
                fprintf(f, "%lld\n", max);
                fclose(f);
                rename("/tmp/maxgap.new", "/tmp/maxgap");
            }
            written = last = now_us();
        }
    }
}
