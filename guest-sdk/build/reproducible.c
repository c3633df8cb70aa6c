/* Loaded (LD_PRELOAD) into componentize-py while it builds dixit's Python runtime, so the build
 * is reproducible where it matters. componentize-py pre-initialises CPython under wasmtime with
 * the host's randomness and clock, which bakes a random string-hash secret (set and dict order
 * of strings), a random `random` state and wall-clock times into the snapshot: two builds of the
 * same sources would then order sets differently and spend different fuel. Here the host's
 * randomness is a fixed stream and the real-time clock a fixed, slowly advancing time; monotonic
 * clocks stay real. File modification times, read through raw system calls, still differ, which
 * changes fuel by a few units on some failing runs (a replay on another machine compares
 * verdicts then, not fuel; see the journal's runtime digest). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

static uint64_t state = 0x6469786974ULL;

static uint64_t next(void) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void fill(void *buf, size_t len) {
    unsigned char *p = buf;
    while (len) {
        uint64_t v = next();
        for (int i = 0; i < 8 && len; i++, len--) *p++ = (unsigned char)(v >> (8 * i));
    }
}

ssize_t getrandom(void *buf, size_t len, unsigned int flags) {
    (void)flags;
    fill(buf, len);
    return (ssize_t)len;
}

int getentropy(void *buf, size_t len) {
    fill(buf, len);
    return 0;
}

/* 2026-01-01T00:00:00Z, advancing 1 µs per read. */
static uint64_t fake_ns = 1767225600ULL * 1000000000ULL;

int clock_gettime(clockid_t id, struct timespec *ts) {
    if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) {
        fake_ns += 1000;
        ts->tv_sec = (time_t)(fake_ns / 1000000000ULL);
        ts->tv_nsec = (long)(fake_ns % 1000000000ULL);
        return 0;
    }
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    return real(id, ts);
}

int gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t) *t = ts.tv_sec;
    return ts.tv_sec;
}
