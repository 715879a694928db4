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
    p->start = p->last = ps_clock(PS_CLOCK_WALL);
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

void ps_progress_update(ps_progress *p, size_t done, const char *extra)
{
    if (!p || !p->active)
        return;
    pthread_mutex_lock(&p->lock);
    double t = ps_clock(PS_CLOCK_WALL);
    if (t - p->last >= 0.2) {
        p->last = t;
        double el = t - p->start, rate = el > 0 ? (double)done / el : 0;
        char left[48] = "";
        if (p->total && rate > 0 && done <= p->total) {
            double s = (double)(p->total - done) / rate;
            snprintf(left, sizeof left, ", %dm%02ds left", (int)(s / 60), (int)s % 60);
        }
        if (p->total)
            fprintf(stderr, "\r\033[K%zu/%zu %s, %.1f/s%s%s%s", done, p->total, p->what, rate, left,
                    extra ? "  " : "", extra ? extra : "");
        else
            fprintf(stderr, "\r\033[K%zu %s, %.1f/s%s%s", done, p->what, rate, extra ? "  " : "",
                    extra ? extra : "");
        fflush(stderr);
    }
    pthread_mutex_unlock(&p->lock);
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
