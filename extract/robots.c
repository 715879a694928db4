/* extract/robots.c — robots.txt (RFC 9309) for the fetcher (fetch.c): the
 * rules of the group that names our product token (or of the '*' groups
 * when none does), matched by the longest pattern ('*' wildcards, '$' end
 * anchor), Allow winning a tie; Crawl-delay of that group.  Hand-written:
 * Debian packages no C library that parses robots.txt (Google's robotstxt is
 * C++ and not packaged), and the format is a few line types. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "extract/inputs_internal.h"

typedef struct robots_rule {
    char *pattern;
    size_t len;   /* strlen(pattern) */
    int allow;
} robots_rule;

struct ps_robots {
    robots_rule *rules;
    size_t n, cap;
    double crawl_delay; /* -1: none given */
    int disallow_all;   /* ps_robots_new_all(0) */
};

ps_robots *ps_robots_new_all(int allow)
{
    ps_robots *r = calloc(1, sizeof *r);
    if (r) {
        r->crawl_delay = -1;
        r->disallow_all = !allow;
    }
    return r;
}

void ps_robots_free(ps_robots *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->rules[i].pattern);
    free(r->rules);
    free(r);
}

static int add_rule(ps_robots *r, const char *p, size_t n, int allow)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        robots_rule *t = realloc(r->rules, cap * sizeof *t);
        if (!t)
            return -1;
        r->rules = t;
        r->cap = cap;
    }
    char *s = strndup(p, n);
    if (!s)
        return -1;
    /* a NUL byte in the line ends the pattern: its length is the string's */
    r->rules[r->n++] = (robots_rule){s, strlen(s), allow};
    return 0;
}

/* Does the user-agent value @p v (n bytes) name @p token?  RFC 9309: the
 * product token, case-insensitively; we also take "pagesift/1.0" and
 * "pagesift*" for "pagesift". */
static int agent_matches(const char *v, size_t n, const char *token)
{
    size_t t = strlen(token);
    if (n < t || ps_ascii_ncasecmp(v, token, t))
        return 0;
    return n == t || v[t] == '/' || v[t] == ' ' || v[t] == '*';
}

/* A key of a line: "name: value # comment".  Returns 1 with the spans, 0 for
 * no key. */
static int split_line(const char *p, const char *end, const char **key, size_t *klen,
                      const char **val, size_t *vlen)
{
    const char *hash = memchr(p, '#', (size_t)(end - p));
    if (hash)
        end = hash;
    const char *colon = memchr(p, ':', (size_t)(end - p));
    if (!colon)
        return 0;
    const char *k = p, *ke = colon;
    while (k < ke && (*k == ' ' || *k == '\t'))
        k++;
    while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
        ke--;
    const char *v = colon + 1, *ve = end;
    while (v < ve && (*v == ' ' || *v == '\t'))
        v++;
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
        ve--;
    *key = k;
    *klen = (size_t)(ke - k);
    *val = v;
    *vlen = (size_t)(ve - v);
    return 1;
}

static int key_is(const char *k, size_t n, const char *name)
{
    return n == strlen(name) && !ps_ascii_ncasecmp(k, name, n);
}

/* Two passes over the lines: the first finds whether some group names the
 * token (else the '*' groups apply), the second collects those groups'
 * rules.  A group is a run of user-agent lines and the rules after it. */
ps_robots *ps_robots_parse(const char *text, size_t len, const char *token)
{
    ps_robots *r = ps_robots_new_all(1);
    if (!r)
        return NULL;
    int named = 0;
    for (int pass = 0; pass < 2; pass++) {
        int in_agents = 0, applies = 0;
        const char *p = text, *end = text + len;
        while (p < end) {
            const char *eol = memchr(p, '\n', (size_t)(end - p));
            if (!eol)
                eol = end;
            const char *k, *v;
            size_t kn, vn;
            if (split_line(p, eol, &k, &kn, &v, &vn)) {
                if (key_is(k, kn, "user-agent")) {
                    if (!in_agents)
                        applies = 0; /* a new group starts */
                    in_agents = 1;
                    int mine = agent_matches(v, vn, token);
                    if (pass == 0)
                        named |= mine;
                    else if (named ? mine : vn == 1 && v[0] == '*')
                        applies = 1;
                } else if (key_is(k, kn, "allow") || key_is(k, kn, "disallow") ||
                           key_is(k, kn, "crawl-delay")) {
                    in_agents = 0;
                    if (pass == 1 && applies) {
                        if (key_is(k, kn, "crawl-delay")) {
                            char num[32];
                            size_t m = vn < sizeof num - 1 ? vn : sizeof num - 1;
                            memcpy(num, v, m);
                            num[m] = '\0';
                            char *e;
                            double d = strtod(num, &e);
                            if (e != num && d >= 0 && d <= 86400 && d > r->crawl_delay)
                                r->crawl_delay = d;
                        } else if (vn && add_rule(r, v, vn, key_is(k, kn, "allow"))) {
                            ps_robots_free(r);
                            return NULL;
                        }
                    }
                } else {
                    in_agents = 0; /* sitemap: and others end a run of agents */
                }
            }
            p = eol + 1;
        }
    }
    return r;
}

/* Does @p pat (n bytes, '*' any run, '$' at the end: the end) match a
 * prefix of @p s?  The greedy two-pointer glob match, backtracking to the
 * last '*'. */
static int pattern_matches(const char *pat, size_t n, const char *s)
{
    int anchored = n && pat[n - 1] == '$';
    if (anchored)
        n--;
    size_t i = 0, j = 0, star = (size_t)-1, mark = 0, slen = strlen(s);
    for (;;) {
        if (i == n) {
            if (!anchored || j == slen)
                return 1;
            if (star == (size_t)-1)
                return 0;
        } else if (pat[i] == '*') {
            star = i++;
            mark = j;
            continue;
        } else if (j < slen && pat[i] == s[j]) {
            i++;
            j++;
            continue;
        } else if (star == (size_t)-1) {
            return 0;
        }
        /* backtrack: the last '*' takes one more byte */
        if (mark >= slen)
            return 0;
        i = star + 1;
        j = ++mark;
    }
}

int ps_robots_allowed(const ps_robots *r, const char *path)
{
    if (r->disallow_all)
        return 0;
    if (!path || !*path)
        path = "/";
    if (!strcmp(path, "/robots.txt"))
        return 1;
    size_t best = 0;
    int allow = 1, found = 0;
    for (size_t i = 0; i < r->n; i++) {
        const robots_rule *ru = &r->rules[i];
        if (!pattern_matches(ru->pattern, ru->len, path))
            continue;
        if (!found || ru->len > best || (ru->len == best && ru->allow && !allow)) {
            best = ru->len;
            allow = ru->allow;
            found = 1;
        }
    }
    return allow;
}

double ps_robots_crawl_delay(const ps_robots *r)
{
    return r->crawl_delay;
}
