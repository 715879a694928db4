/* common/progress.c — see progress.h. */
#define _POSIX_C_SOURCE 200809L
#include "common/progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ps_progress {
    char what[32];
    size_t total;
    uint64_t total_bytes;
    int active;
    double start, last;
    pthread_mutex_t lock;
};

ps_progress *ps_progress_new(const char *what, size_t total, int quiet)
{
    ps_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->what, sizeof p->what, "%s", what);
    p->total = total;
    p->active = !quiet && isatty(STDERR_FILENO);
    p->start = ps_clock(PS_CLOCK_WALL);
    p->last = p->start - 1.0; /* the first report draws at once */
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

void ps_progress_set_bytes(ps_progress *p, uint64_t total_bytes)
{
    if (p)
        p->total_bytes = total_bytes;
}

/* ", 1h02m left" / ", 3m07s left" for @p s seconds. */
static void time_left(char *out, size_t cap, double s)
{
    if (s >= 3600)
        snprintf(out, cap, ", %dh%02dm left", (int)(s / 3600), (int)(s / 60) % 60);
    else
        snprintf(out, cap, ", %dm%02ds left", (int)(s / 60), (int)s % 60);
}

/* The line for the current state (no "\r"). */
static void format_line(const ps_progress *p, char *line, size_t cap, size_t done, size_t failed,
                        int show_failed, uint64_t bytes, double el, const char *extra)
{
    double rate = el > 0 ? (double)done / el : 0;
    char left[48] = "", fail[48] = "";
    if (show_failed)
        snprintf(fail, sizeof fail, ", %zu failed", failed);
    if (p->total) {
        double frac = done <= p->total ? (double)done / (double)p->total : 1.0;
        if (rate > 0 && done <= p->total)
            time_left(left, sizeof left, (double)(p->total - done) / rate);
        snprintf(line, cap, "%zu/%zu %s %.1f%%, %.1f/s%s%s%s%s", done, p->total, p->what,
                 100.0 * frac, rate, left, fail, extra ? "  " : "", extra ? extra : "");
    } else if (p->total_bytes) {
        double frac = bytes <= p->total_bytes ? (double)bytes / (double)p->total_bytes : 1.0;
        if (frac > 0 && el > 0)
            time_left(left, sizeof left, el * (1.0 - frac) / frac);
        snprintf(line, cap, "%zu %s, %.1f/s, %.0f/%.0f MB %.1f%%%s%s%s%s", done, p->what, rate,
                 (double)bytes / 1e6, (double)p->total_bytes / 1e6, 100.0 * frac, left, fail,
                 extra ? "  " : "", extra ? extra : "");
    } else {
        snprintf(line, cap, "%zu %s, %.1f/s%s%s%s", done, p->what, rate, fail, extra ? "  " : "",
                 extra ? extra : "");
    }
}

static void draw(ps_progress *p, size_t done, size_t failed, int show_failed, uint64_t bytes,
                 const char *extra)
{
    if (!p || !p->active)
        return;
    pthread_mutex_lock(&p->lock);
    double t = ps_clock(PS_CLOCK_WALL);
    if (t - p->last >= 0.2) {
        p->last = t;
        char line[256];
        format_line(p, line, sizeof line, done, failed, show_failed, bytes, t - p->start, extra);
        fprintf(stderr, "\r\033[K%s", line);
        fflush(stderr);
    }
    pthread_mutex_unlock(&p->lock);
}

void ps_progress_update(ps_progress *p, size_t done, const char *extra)
{
    draw(p, done, 0, 0, 0, extra);
}

void ps_progress_report(ps_progress *p, size_t done, size_t failed, uint64_t bytes_done)
{
    if (p)
        draw(p, done, failed, p->total || p->total_bytes || failed, bytes_done, NULL);
}

void ps_progress_done(ps_progress *p)
{
    if (!p)
        return;
    if (p->active) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}
