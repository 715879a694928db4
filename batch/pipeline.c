/* batch/pipeline.c — the threaded batch engine of pagesift/pipeline.h:
 * a reader thread, N workers, the writer in the calling thread, a fixed pool
 * of jobs passed between them through three small index queues under one
 * mutex (held only to move an index, never while a page is read, extracted
 * or written). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"
#include "pagesift/pipeline.h"

typedef struct pipe_state {
    const ps_pipeline_ops *ops;
    int ordered;
    size_t cap;
    unsigned char *mem;
    size_t *seq_of;      /* read order of each job */
    size_t *free_idx;    /* stack of unused jobs */
    size_t free_n;
    size_t refill;       /* the writer wakes a waiting reader when this many are free */
    size_t *work_q;      /* FIFO ring of read jobs */
    size_t work_head, work_n;
    size_t *bytes_of;    /* job_bytes of each job when it was read */
    size_t queued, queued_max; /* bytes of the jobs in work_q; its bound (0: none) */
    size_t working, working_max; /* bytes of the jobs being worked; its bound (0: none) */
    size_t *done_q;      /* unordered: FIFO ring; ordered: slot seq % cap */
    size_t done_head, done_n;
    unsigned char *done_set; /* ordered: slot filled */
    size_t n_read, n_written;
    int eof, stop;
    const volatile sig_atomic_t *interrupt;
    int intr;            /* the interrupt was seen (under the mutex) */
    unsigned busy;       /* workers inside work() */
    ps_error err;
    pthread_mutex_t m;
    pthread_cond_t c_free, c_work, c_done;
    unsigned next_worker;
} pipe_state;

static void *job_at(pipe_state *s, size_t i)
{
    return s->mem + i * s->ops->job_size;
}

static void fail_locked(pipe_state *s, const ps_error *e)
{
    if (!s->stop) {
        s->stop = 1;
        s->err = *e;
    }
    pthread_cond_broadcast(&s->c_free);
    pthread_cond_broadcast(&s->c_work);
    pthread_cond_broadcast(&s->c_done);
}

static int interrupted(const pipe_state *s)
{
    return s->intr || (s->interrupt && *s->interrupt);
}

/* The interrupt flag was seen set: every thread stops taking new work. */
static void interrupt_locked(pipe_state *s)
{
    if (s->intr)
        return;
    s->intr = 1;
    pthread_cond_broadcast(&s->c_free);
    pthread_cond_broadcast(&s->c_work);
    pthread_cond_broadcast(&s->c_done);
}

static void *reader_main(void *arg)
{
    pipe_state *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->m);
        while (!s->stop && !interrupted(s) &&
               (s->free_n == 0 || (s->queued_max && s->work_n > 0 && s->queued >= s->queued_max)))
            pthread_cond_wait(&s->c_free, &s->m);
        if (s->stop || interrupted(s)) {
            s->eof = 1;
            pthread_cond_broadcast(&s->c_work);
            pthread_cond_broadcast(&s->c_done);
            pthread_mutex_unlock(&s->m);
            return NULL;
        }
        size_t j = s->free_idx[--s->free_n];
        pthread_mutex_unlock(&s->m);

        void *job = job_at(s, j);
        memset(job, 0, s->ops->job_size);
        ps_error e = {0};
        int r = s->ops->read(s->ops->ctx, job, &e);

        size_t nb = r == 1 && s->ops->job_bytes ? s->ops->job_bytes(s->ops->ctx, job) : 0;
        pthread_mutex_lock(&s->m);
        if (r == 1) {
            s->bytes_of[j] = nb;
            s->queued += nb;
            s->seq_of[j] = s->n_read++;
            s->work_q[(s->work_head + s->work_n++) % s->cap] = j;
            pthread_cond_signal(&s->c_work);
            pthread_mutex_unlock(&s->m);
            continue;
        }
        s->free_idx[s->free_n++] = j;
        if (r < 0)
            fail_locked(s, &e);
        s->eof = 1;
        pthread_cond_broadcast(&s->c_work);
        pthread_cond_broadcast(&s->c_done);
        pthread_mutex_unlock(&s->m);
        return NULL;
    }
}

/* May a worker take the job at the head of work_q: the bytes being worked
 * with it stay within working_max, or no job is being worked. */
static int admitted(const pipe_state *s)
{
    return !s->working_max || s->busy == 0 ||
           s->working + s->bytes_of[s->work_q[s->work_head]] <= s->working_max;
}

static void *worker_main(void *arg)
{
    pipe_state *s = arg;
    pthread_mutex_lock(&s->m);
    unsigned me = s->next_worker++;
    for (;;) {
        while (!s->stop && !interrupted(s) && (s->work_n == 0 ? !s->eof : !admitted(s)))
            pthread_cond_wait(&s->c_work, &s->m);
        if (s->stop || interrupted(s) || s->work_n == 0)
            break;
        size_t j = s->work_q[s->work_head];
        s->work_head = (s->work_head + 1) % s->cap;
        s->work_n--;
        s->busy++;
        s->working += s->bytes_of[j];
        if (s->queued_max) {
            s->queued -= s->bytes_of[j];
            if (s->queued < s->queued_max) /* the reader may wait on the bytes */
                pthread_cond_signal(&s->c_free);
        }
        pthread_mutex_unlock(&s->m);

        s->ops->work(s->ops->ctx, me, job_at(s, j));

        pthread_mutex_lock(&s->m);
        s->busy--;
        s->working -= s->bytes_of[j];
        if (s->working_max && s->work_n > 0) /* a worker may wait to be admitted */
            pthread_cond_broadcast(&s->c_work);
        if (s->ordered) {
            size_t slot = s->seq_of[j] % s->cap;
            s->done_q[slot] = j;
            s->done_set[slot] = 1;
        } else {
            s->done_q[(s->done_head + s->done_n) % s->cap] = j;
        }
        s->done_n++;
        pthread_cond_signal(&s->c_done);
    }
    pthread_mutex_unlock(&s->m);
    return NULL;
}

/* Wait on c_done; with an interrupt flag, at most 100 ms (a signal handler
 * cannot signal a condition variable). */
static void wait_done(pipe_state *s)
{
    if (!s->interrupt) {
        pthread_cond_wait(&s->c_done, &s->m);
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += 100 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&s->c_done, &s->m, &ts);
}

/* Writer loop in the calling thread.  After an interrupt it writes what is
 * finished (ordered: the finished jobs that follow the last one written
 * without a gap) once no worker is busy, then stops. */
static void write_all(pipe_state *s)
{
    pthread_mutex_lock(&s->m);
    for (;;) {
        size_t j = (size_t)-1;
        while (!s->stop) {
            if (!s->intr && s->interrupt && *s->interrupt)
                interrupt_locked(s);
            if (s->ordered) {
                size_t slot = s->n_written % s->cap;
                if (s->done_set[slot]) {
                    j = s->done_q[slot];
                    s->done_set[slot] = 0;
                    s->done_n--;
                    break;
                }
            } else if (s->done_n > 0) {
                j = s->done_q[s->done_head];
                s->done_head = (s->done_head + 1) % s->cap;
                s->done_n--;
                break;
            }
            if (s->eof && s->n_written == s->n_read)
                break;
            if (s->intr && s->busy == 0)
                break; /* nothing more will finish */
            wait_done(s);
        }
        if (j == (size_t)-1)
            break;
        pthread_mutex_unlock(&s->m);
        ps_error e = {0};
        int r = s->ops->write(s->ops->ctx, job_at(s, j), &e);
        pthread_mutex_lock(&s->m);
        s->n_written++;
        s->free_idx[s->free_n++] = j;
        /* The reader waits only with no free job: waking it for every job
         * written costs a context switch per page; with half the pool free
         * it reads several pages in a row. */
        if (s->free_n >= s->refill)
            pthread_cond_signal(&s->c_free);
        if (r < 0)
            fail_locked(s, &e);
    }
    pthread_mutex_unlock(&s->m);
}

int ps_pipeline_run(const ps_pipeline_ops *ops, const ps_pipeline_opts *opts,
                    void (*discard)(void *ctx, void *job), ps_error *err)
{
    unsigned nw = opts->workers ? opts->workers : 1;
    size_t cap = opts->in_flight ? opts->in_flight : 4 * (size_t)nw + 2;
    pipe_state s;
    memset(&s, 0, sizeof s);
    s.ops = ops;
    s.ordered = opts->ordered;
    s.cap = cap;
    s.mem = calloc(cap, ops->job_size);
    s.seq_of = calloc(cap, sizeof *s.seq_of);
    s.free_idx = calloc(cap, sizeof *s.free_idx);
    s.work_q = calloc(cap, sizeof *s.work_q);
    s.done_q = calloc(cap, sizeof *s.done_q);
    s.done_set = calloc(cap, 1);
    s.bytes_of = calloc(cap, sizeof *s.bytes_of);
    s.queued_max = ops->job_bytes ? opts->queued_bytes : 0;
    s.working_max = ops->job_bytes ? opts->working_bytes : 0;
    pthread_t *workers = calloc(nw, sizeof *workers);
    int rc = 0;
    if (!s.mem || !s.seq_of || !s.free_idx || !s.work_q || !s.done_q || !s.done_set || !s.bytes_of || !workers) {
        rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < cap; i++)
        s.free_idx[s.free_n++] = cap - 1 - i;
    s.refill = cap / 2 ? cap / 2 : 1;
    s.interrupt = opts->interrupt;
    pthread_mutex_init(&s.m, NULL);
    pthread_cond_init(&s.c_free, NULL);
    pthread_cond_init(&s.c_work, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s.c_done, &ca);
    pthread_condattr_destroy(&ca);

    /* The threads start with every signal blocked (they inherit the mask):
     * SIGINT/SIGTERM reach the caller's thread, which can stop the run. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* The workers first: once the reader runs, its reads of big inputs take
     * address space a worker's stack then may not get (under ulimit -v a
     * run failed "cannot start threads" or not, by timing). */
    unsigned started = 0;
    for (; started < nw; started++)
        if (pthread_create(&workers[started], NULL, worker_main, &s) != 0)
            break;
    pthread_t reader;
    int reader_ok = started > 0 && pthread_create(&reader, NULL, reader_main, &s) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!reader_ok || started == 0) {
        ps_error e;
        ps_set_error(&e, PS_ERR_NOMEM, "cannot start threads");
        pthread_mutex_lock(&s.m);
        fail_locked(&s, &e);
        pthread_mutex_unlock(&s.m);
    } else {
        write_all(&s);
    }
    if (reader_ok)
        pthread_join(reader, NULL);
    pthread_mutex_lock(&s.m);
    pthread_cond_broadcast(&s.c_work);
    pthread_mutex_unlock(&s.m);
    for (unsigned i = 0; i < started; i++)
        pthread_join(workers[i], NULL);

    /* After a fatal error or an interrupt: jobs read but never written. */
    if (discard) {
        for (size_t k = 0; k < s.work_n; k++)
            discard(ops->ctx, job_at(&s, s.work_q[(s.work_head + k) % cap]));
        if (s.ordered) {
            for (size_t k = 0; k < cap; k++)
                if (s.done_set[k])
                    discard(ops->ctx, job_at(&s, s.done_q[k]));
        } else {
            for (size_t k = 0; k < s.done_n; k++)
                discard(ops->ctx, job_at(&s, s.done_q[(s.done_head + k) % cap]));
        }
    }
    if (s.stop) {
        if (err)
            *err = s.err;
        rc = -1;
    } else if (s.intr) {
        rc = 1;
    }
    pthread_cond_destroy(&s.c_free);
    pthread_cond_destroy(&s.c_work);
    pthread_cond_destroy(&s.c_done);
    pthread_mutex_destroy(&s.m);
out:
    free(s.mem);
    free(s.seq_of);
    free(s.free_idx);
    free(s.work_q);
    free(s.done_q);
    free(s.done_set);
    free(s.bytes_of);
    free(workers);
    return rc;
}
