/* train/data.c — read feature CSVs (features/ format: header row, columns
 * found by name) into a ps_train_data: the chosen feature columns, the label
 * (1 content, 0 noise, empty = unlabelled, skipped and counted) and the CV
 * group (dataset + page_id, or site).  Parsing uses libcsv; input is fed one
 * physical line at a time so errors can name the line. */
#define _POSIX_C_SOURCE 200809L
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "pagesift/features.h"
#include "pagesift/page.h"
#include "train/train_internal.h"

/* Group keys -> ids, open addressing. */
typedef struct {
    char **keys;
    uint32_t *ids;
    size_t cap, n;
} keymap;

static int keymap_get(keymap *km, const char *key, uint32_t *id)
{
    if ((km->n + 1) * 2 > km->cap) {
        size_t ncap = km->cap ? km->cap * 2 : 1024;
        char **nk = calloc(ncap, sizeof *nk);
        uint32_t *ni = calloc(ncap, sizeof *ni);
        if (!nk || !ni) {
            free(nk);
            free(ni);
            return -1;
        }
        for (size_t i = 0; i < km->cap; i++) {
            if (!km->keys[i])
                continue;
            size_t h = ps_hash64(km->keys[i], strlen(km->keys[i])) & (ncap - 1);
            while (nk[h])
                h = (h + 1) & (ncap - 1);
            nk[h] = km->keys[i];
            ni[h] = km->ids[i];
        }
        free(km->keys);
        free(km->ids);
        km->keys = nk;
        km->ids = ni;
        km->cap = ncap;
    }
    size_t h = ps_hash64(key, strlen(key)) & (km->cap - 1);
    while (km->keys[h]) {
        if (strcmp(km->keys[h], key) == 0) {
            *id = km->ids[h];
            return 0;
        }
        h = (h + 1) & (km->cap - 1);
    }
    km->keys[h] = strdup(key);
    if (!km->keys[h])
        return -1;
    km->ids[h] = *id = (uint32_t)km->n++;
    return 0;
}

static void keymap_free(keymap *km)
{
    for (size_t i = 0; i < km->cap; i++)
        free(km->keys[i]);
    free(km->keys);
    free(km->ids);
}

enum { COL_DATASET, COL_PAGE, COL_SITE, COL_LABEL, COL_TAGS, N_META };
static const char *const META_NAMES[N_META] = {"dataset", "page_id", "site", "label", "block_tags"};

/* The block tags of the labelled rows: the first set seen (by its
 * ps_block_tags_key, order-free) and where; rows without a record (a CSV
 * written before the block_tags column, or an empty cell) are taken as
 * cut with ps_default_block_tags, or with the caller's tags. */
typedef struct {
    const char *given;     /* the caller's tags: no check, the bundle's */
    char *first;           /* the first recorded set, as written */
    uint64_t first_key;
    char first_at[300];    /* FILE:LINE of its first row */
    size_t untagged;       /* labelled rows without a record */
    ps_buf untagged_files; /* their files' base names, space-separated */
    int file_untagged;     /* the current file's name is in untagged_files */
} tags_seen;

typedef struct {
    /* whole load */
    ps_train_data *d;
    ps_error *err;
    int failed;
    const char *spec;      /* "paper", "extended" or a list */
    char **names;          /* chosen feature names (after the first header) */
    size_t n_names;
    keymap groups;
    ps_buf xs, ys, gs;     /* growing arrays */
    uint64_t hash;
    /* current file */
    const char *path;
    size_t line, row_line;
    int header_done;
    int *col_of_field;     /* field index -> -1 / meta (-2 - k) / feature k */
    size_t cap_fields;
    /* current row */
    size_t field;
    char *meta[N_META];
    double *row;
    int row_bad;           /* a feature value of this row is not a number */
    char row_err[200];
    int meta_seen[N_META];
    char **header;         /* header names of the current file */
    size_t n_header;
    tags_seen tags;
} loader;

static int fail(loader *L, ps_status code, const char *fmt, const char *a, const char *b)
{
    if (!L->failed) {
        char what[1024];
        snprintf(what, sizeof what, fmt, a ? a : "", b ? b : "");
        ps_set_error(L->err, code, "%s:%zu: %s", L->path, L->row_line, what);
    }
    L->failed = 1;
    return -1;
}

static int add_name(loader *L, const char *name)
{
    for (size_t i = 0; i < L->n_names; i++)
        if (strcmp(L->names[i], name) == 0)
            return 0;
    char **nn = realloc(L->names, (L->n_names + 1) * sizeof *nn);
    if (!nn)
        return -1;
    L->names = nn;
    if (!(nn[L->n_names] = strdup(name)))
        return -1;
    L->n_names++;
    return 0;
}

/* Add the names of a set: "paper" (R1..R5), "extended" (R1..R5 and every
 * x_* column of the header) or "context" (every c_* column: the context
 * features of a second stage, pagesift-classify --context).  Returns 1 when @p t names no set. */
static int add_set(loader *L, const char *t)
{
    if (strcmp(t, "context") == 0) { /* every c_* column: a second stage's */
        for (size_t i = 0; i < L->n_header; i++)
            if (strncmp(L->header[i], "c_", 2) == 0 && add_name(L, L->header[i]))
                return -1;
        return 0;
    }
    if (strcmp(t, "paper") != 0 && strcmp(t, "extended") != 0)
        return 1;
    char list[] = PS_FEATURES_PAPER;
    char *save = NULL;
    for (char *n = strtok_r(list, ",", &save); n; n = strtok_r(NULL, ",", &save))
        if (add_name(L, n))
            return -1;
    if (strcmp(t, "extended") == 0)
        for (size_t i = 0; i < L->n_header; i++)
            if (strncmp(L->header[i], "x_", 2) == 0 && add_name(L, L->header[i]))
                return -1;
    return 0;
}

/* Drop the chosen names that start with @p prefix. */
static void drop_prefix(loader *L, const char *prefix)
{
    size_t k = 0, n = strlen(prefix);
    for (size_t i = 0; i < L->n_names; i++) {
        if (strncmp(L->names[i], prefix, n) == 0)
            free(L->names[i]);
        else
            L->names[k++] = L->names[i];
    }
    L->n_names = k;
}

/* Choose the feature names from the first header: a comma list of sets
 * (paper, extended), column names and "-PREFIX" items that drop the names
 * chosen so far that start with PREFIX ("extended,-x_tag_"). */
static int choose_features(loader *L)
{
    const char *spec = L->spec && *L->spec ? L->spec : "paper";
    char *copy = strdup(spec);
    if (!copy)
        return -1;
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (!*t)
            continue;
        int rc = *t == '-' ? (drop_prefix(L, t + 1), 0) : add_set(L, t);
        if (rc == 1)
            rc = add_name(L, t);
        if (rc) {
            free(copy);
            return -1;
        }
    }
    free(copy);
    if (L->n_names == 0 || L->n_names > PS_MODEL_MAX_FEATURES) {
        ps_set_error(L->err, PS_ERR_USAGE, "%zu features asked for (1..%d allowed)", L->n_names,
                     PS_MODEL_MAX_FEATURES);
        L->failed = 1;
        return -1;
    }
    return 0;
}

/* Map the current file's header to columns; check every needed one exists. */
static int map_header(loader *L)
{
    if (!L->names && choose_features(L))
        return -1;
    free(L->col_of_field);
    L->col_of_field = malloc((L->n_header + 1) * sizeof *L->col_of_field);
    if (!L->col_of_field)
        return -1;
    int have_meta[N_META] = {0};
    char *have_feat = calloc(L->n_names, 1);
    if (!have_feat)
        return -1;
    for (size_t i = 0; i < L->n_header; i++) {
        L->col_of_field[i] = -1;
        for (int k = 0; k < N_META; k++)
            if (strcmp(L->header[i], META_NAMES[k]) == 0) {
                L->col_of_field[i] = -2 - k;
                have_meta[k] = 1;
            }
        for (size_t k = 0; k < L->n_names; k++)
            if (strcmp(L->header[i], L->names[k]) == 0) {
                L->col_of_field[i] = (int)k;
                have_feat[k] = 1;
            }
    }
    int rc = 0;
    if (!have_meta[COL_LABEL])
        rc = fail(L, PS_ERR_FORMAT, "no 'label' column in the header%s%s", NULL, NULL);
    else if (!have_meta[COL_PAGE] || !have_meta[COL_DATASET])
        rc = fail(L, PS_ERR_FORMAT, "the header lacks 'dataset' or 'page_id' (needed to group folds)%s%s",
                  NULL, NULL);
    else if (L->d->grouping == PS_GROUP_SITE && !have_meta[COL_SITE])
        rc = fail(L, PS_ERR_FORMAT, "no 'site' column in the header (--group-by site)%s%s", NULL, NULL);
    for (size_t k = 0; !rc && k < L->n_names; k++)
        if (!have_feat[k])
            rc = fail(L, PS_ERR_FORMAT, "no feature column '%s' in the header%s", L->names[k], NULL);
    free(have_feat);
    return rc;
}

/* The row buffers depend on the number of features, known after the first
 * header; allocate them then. */
static int ensure_row(loader *L)
{
    if (L->row || !L->names)
        return 0;
    L->row = calloc(L->n_names, sizeof *L->row);
    return L->row ? 0 : -1;
}

static void on_field(void *s, size_t len, void *data)
{
    loader *L = data;
    if (L->failed)
        return;
    if (L->field == 0)
        L->row_line = L->line;
    size_t f = L->field++;
    const char *v = s ? s : "";
    (void)len;
    if (!L->header_done) {
        char **nh = realloc(L->header, (L->n_header + 1) * sizeof *nh);
        if (!nh || !(nh[L->n_header] = strdup(v))) {
            L->header = nh ? nh : L->header;
            fail(L, PS_ERR_NOMEM, "out of memory%s%s", NULL, NULL);
            return;
        }
        L->header = nh;
        L->n_header++;
        return;
    }
    if (f >= L->n_header)
        return; /* reported at the end of the row */
    int c = L->col_of_field[f];
    if (c == -1)
        return;
    if (c <= -2) {
        int k = -2 - c;
        free(L->meta[k]);
        L->meta[k] = strdup(v);
        L->meta_seen[k] = 1;
        return;
    }
    /* feature: parsed at the end of the row (only if labelled) */
    if (ensure_row(L)) {
        fail(L, PS_ERR_NOMEM, "out of memory%s%s", NULL, NULL);
        return;
    }
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    while (*end == ' ')
        end++;
    if (!*v || *end || errno == ERANGE || !isfinite(x)) {
        /* remember the problem; it only matters for labelled rows */
        L->row[c] = NAN;
        if (!L->row_bad) {
            L->row_bad = 1;
            snprintf(L->row_err, sizeof L->row_err, "column %s: '%.60s' is not a finite number",
                     L->names[c], v);
        }
        return;
    }
    L->row[c] = x;
}

static void hash_bytes(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 0x100000001b3ull;
    }
}

/* The base name of @p path. */
static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* A block_tags value: lower-case tag names (a-z, 0-9) separated by commas,
 * body among them (the root block: a bundle without it is refused), split
 * into @p names (NULL-terminated, pointing into @p copy).  0, or -1 with
 * @p why set. */
static int split_tags(const char *v, char *copy, const char **names, size_t max, const char **why)
{
    size_t n = 0;
    int body = 0;
    strcpy(copy, v);
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == ',')) {
            *why = "is not a comma list of lower-case tag names";
            return -1;
        }
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n + 1 >= max) {
            *why = "names too many tags";
            return -1;
        }
        names[n++] = t;
        body |= strcmp(t, "body") == 0;
    }
    names[n] = NULL;
    if (!body) {
        *why = "lacks body (the root block every page has; pagesift refuses such a bundle)";
        return -1;
    }
    return 0;
}

/* The labelled row's block tags against the run's: every labelled row of
 * one training must be cut with the same block tags (the bundle records one
 * set), unless the caller gave the tags.  0, or -1 (failed). */
static int check_tags(loader *L)
{
    tags_seen *T = &L->tags;
    const char *v = L->meta[COL_TAGS] ? L->meta[COL_TAGS] : "";
    if (!*v) {
        T->untagged++;
        if (!T->file_untagged) {
            T->file_untagged = 1;
            if (ps_buf_printf(&T->untagged_files, "%s%s", T->untagged_files.len ? " " : "",
                              base_name(L->path)))
                return fail(L, PS_ERR_NOMEM, "out of memory%s%s", NULL, NULL);
        }
        v = T->given ? T->given : "body,section,div";
    }
    if (T->given)
        return 0; /* the caller's tags are the bundle's: no check */
    char copy[1024];
    const char *names[128], *why = NULL;
    if (strlen(v) >= sizeof copy) {
        why = "is too long";
    } else if (split_tags(v, copy, names, 128, &why) == 0) {
        uint64_t key = ps_block_tags_key(names);
        if (!T->first) {
            if (!(T->first = strdup(v)))
                return fail(L, PS_ERR_NOMEM, "out of memory%s%s", NULL, NULL);
            T->first_key = key;
            snprintf(T->first_at, sizeof T->first_at, "%s:%zu", L->path, L->row_line);
            return 0;
        }
        if (key == T->first_key || T->given)
            return 0;
        char what[600];
        int recorded = L->meta[COL_TAGS] && *L->meta[COL_TAGS];
        snprintf(what, sizeof what, "the row was cut with block tags '%.200s'%s, the rows before with '%.200s'",
                 v, recorded ? "" : " (assumed: it records none)", T->first);
        return fail(L, PS_ERR_FORMAT,
                    "%s (first at %s): a bundle applies one set; give --block-tags LIST to "
                    "train on both with LIST in the bundle", what, T->first_at);
    }
    return fail(L, PS_ERR_FORMAT, "block_tags '%.200s' %s", v, why);
}

static void on_row(int term, void *data)
{
    loader *L = data;
    (void)term;
    if (L->failed)
        goto reset;
    if (L->field == 0)
        goto reset;
    if (!L->header_done) {
        L->header_done = 1;
        map_header(L);
        goto reset;
    }
    if (L->field != L->n_header) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%zu", L->field);
        snprintf(b, sizeof b, "%zu", L->n_header);
        fail(L, PS_ERR_FORMAT, "%s fields where the header has %s", a, b);
        goto reset;
    }
    const char *label = L->meta[COL_LABEL] ? L->meta[COL_LABEL] : "";
    if (!*label) {
        L->d->unlabelled++;
        goto reset;
    }
    int8_t y;
    if (strcmp(label, "1") == 0)
        y = 1;
    else if (strcmp(label, "0") == 0)
        y = 0;
    else {
        fail(L, PS_ERR_FORMAT, "label '%.40s' is not 1, 0 or empty%s", label, NULL);
        goto reset;
    }
    if (L->row_bad) {
        fail(L, PS_ERR_FORMAT, "%s%s", L->row_err, NULL);
        goto reset;
    }
    if (check_tags(L))
        goto reset;
    /* group key */
    ps_buf key = {0};
    const char *site = L->meta[COL_SITE] ? L->meta[COL_SITE] : "";
    if (L->d->grouping == PS_GROUP_SITE && *site)
        ps_buf_printf(&key, "s:%s", site);
    else
        ps_buf_printf(&key, "p:%s\x1f%s", L->meta[COL_DATASET] ? L->meta[COL_DATASET] : "",
                      L->meta[COL_PAGE] ? L->meta[COL_PAGE] : "");
    uint32_t gid;
    if (!key.data || keymap_get(&L->groups, key.data, &gid) ||
        ps_buf_append(&L->xs, L->row, L->n_names * sizeof(double)) ||
        ps_buf_append(&L->ys, &y, 1) || ps_buf_append(&L->gs, &gid, sizeof gid)) {
        ps_buf_free(&key);
        fail(L, PS_ERR_NOMEM, "out of memory%s%s", NULL, NULL);
        goto reset;
    }
    hash_bytes(&L->hash, key.data, key.len + 1);
    ps_buf_free(&key);
    for (size_t k = 0; k < L->n_names; k++) {
        char num[40];
        int n = snprintf(num, sizeof num, "%.17g,", L->row[k]);
        hash_bytes(&L->hash, num, (size_t)n);
    }
    hash_bytes(&L->hash, y ? "1\n" : "0\n", 2);
    if (y)
        L->d->n_content++;
    else
        L->d->n_noise++;
    L->d->n_rows++;
reset:
    L->field = 0;
    for (int k = 0; k < N_META; k++) {
        free(L->meta[k]);
        L->meta[k] = NULL;
    }
    L->row_bad = 0;
}

static int load_file(loader *L, const char *path)
{
    L->path = path;
    L->line = 1;
    L->row_line = 1;
    L->header_done = 0;
    L->field = 0;
    L->tags.file_untagged = 0;
    for (size_t i = 0; i < L->n_header; i++)
        free(L->header[i]);
    L->n_header = 0;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return ps_set_error(L->err, PS_ERR_IO, "%s: %s", path, strerror(errno));
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        if (f != stdin)
            fclose(f);
        return ps_set_error(L->err, PS_ERR_NOMEM, "out of memory");
    }
    char *lbuf = NULL;
    size_t lcap = 0;
    ssize_t n;
    int rc = 0;
    int first = 1;
    while ((n = getline(&lbuf, &lcap, f)) > 0) {
        char *data = lbuf;
        size_t len = (size_t)n;
        /* a spreadsheet's "CSV UTF-8" starts with a byte-order mark */
        if (first && len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
            data += 3;
            len -= 3;
        }
        first = 0;
        if (csv_parse(&p, data, len, on_field, on_row, L) != len) {
            L->row_line = L->line;
            fail(L, PS_ERR_FORMAT, "malformed CSV: %s%s", csv_strerror(csv_error(&p)), NULL);
        }
        if (L->failed) {
            rc = -1;
            break;
        }
        for (ssize_t i = 0; i < n; i++)
            L->line += lbuf[i] == '\n';
    }
    if (!rc && ferror(f)) {
        rc = ps_set_error(L->err, PS_ERR_IO, "%s: read error: %s", path, strerror(errno));
        L->failed = 1;
    }
    if (!rc) {
        L->line--; /* the last line ended before EOF */
        if (csv_fini(&p, on_field, on_row, L) != 0) {
            L->row_line = L->line;
            fail(L, PS_ERR_FORMAT, "malformed CSV at the end of the file: %s%s",
                 csv_strerror(csv_error(&p)), NULL);
        }
        if (!L->failed && !L->header_done) {
            L->row_line = 1;
            fail(L, PS_ERR_FORMAT, "empty file (no header row)%s%s", NULL, NULL);
        }
        if (L->failed)
            rc = -1;
    }
    free(lbuf);
    csv_free(&p);
    if (f != stdin)
        fclose(f);
    return rc;
}

ps_train_data *ps_train_data_load(const char *const *paths, size_t n_paths, const char *features,
                                  ps_train_group group, ps_error *err)
{
    return ps_train_data_load_tags(paths, n_paths, features, group, NULL, err);
}

ps_train_data *ps_train_data_load_tags(const char *const *paths, size_t n_paths,
                                       const char *features, ps_train_group group,
                                       const char *block_tags, ps_error *err)
{
    ps_train_data *d = calloc(1, sizeof *d);
    if (!d) {
        ps_set_error(err, PS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    d->grouping = group;
    loader L = {.d = d, .err = err, .spec = features, .hash = 0xcbf29ce484222325ull};
    ps_buf files = {0};
    int rc = n_paths ? 0 : ps_set_error(err, PS_ERR_USAGE, "no CSV files given");
    if (!rc && block_tags) {
        char copy[1024];
        const char *names[128], *why = NULL;
        if (strlen(block_tags) >= sizeof copy)
            rc = ps_set_error(err, PS_ERR_USAGE, "block tags '%.200s': too long", block_tags);
        else if (split_tags(block_tags, copy, names, 128, &why))
            rc = ps_set_error(err, PS_ERR_USAGE, "block tags '%.200s' %s", block_tags, why);
        L.tags.given = block_tags;
    }
    for (size_t i = 0; !rc && i < n_paths; i++) {
        /* the header is needed before rows: ensure_row after it */
        rc = load_file(&L, paths[i]);
        const char *base = strrchr(paths[i], '/');
        ps_buf_printf(&files, "%s%s", i ? " " : "", base ? base + 1 : paths[i]);
    }
    if (!rc && d->n_rows == 0)
        rc = ps_set_error(err, PS_ERR_FORMAT, "%s%s: no labelled rows (%zu unlabelled)",
                          paths[0], n_paths > 1 ? " and the other files" : "", d->unlabelled);
    if (!rc && (d->n_content == 0 || d->n_noise == 0))
        rc = ps_set_error(err, PS_ERR_FORMAT,
                          "%s%s: only one class among the labelled rows (%zu content, %zu noise); "
                          "training needs both",
                          paths[0], n_paths > 1 ? " and the other files" : "", d->n_content,
                          d->n_noise);
    if (!rc) {
        ps_buf names = {0};
        for (size_t k = 0; k < L.n_names; k++)
            ps_buf_printf(&names, "%s%s", k ? "," : "", L.names[k]);
        d->features = ps_buf_take(&names, NULL);
        d->n_features = L.n_names;
        d->x = (double *)ps_buf_take(&L.xs, NULL);
        d->y = (int8_t *)ps_buf_take(&L.ys, NULL);
        d->group = (uint32_t *)ps_buf_take(&L.gs, NULL);
        d->n_groups = L.groups.n;
        d->checksum = L.hash;
        d->files = ps_buf_take(&files, NULL);
        d->block_tags = strdup(block_tags ? block_tags : L.tags.first ? L.tags.first : "body,section,div");
        d->untagged = L.tags.untagged;
        d->untagged_files = L.tags.untagged_files.len ? ps_buf_take(&L.tags.untagged_files, NULL)
                                                      : strdup("");
        if (!d->features || !d->files || !d->block_tags || !d->untagged_files)
            rc = ps_set_error(err, PS_ERR_NOMEM, "out of memory");
    }
    for (size_t k = 0; k < L.n_names; k++)
        free(L.names[k]);
    free(L.names);
    for (size_t i = 0; i < L.n_header; i++)
        free(L.header[i]);
    free(L.header);
    for (int k = 0; k < N_META; k++)
        free(L.meta[k]);
    free(L.col_of_field);
    free(L.row);
    free(L.tags.first);
    ps_buf_free(&L.tags.untagged_files);
    keymap_free(&L.groups);
    ps_buf_free(&L.xs);
    ps_buf_free(&L.ys);
    ps_buf_free(&L.gs);
    ps_buf_free(&files);
    if (rc) {
        ps_train_data_free(d);
        return NULL;
    }
    return d;
}

void ps_train_data_free(ps_train_data *d)
{
    if (!d)
        return;
    free(d->x);
    free(d->y);
    free(d->group);
    free(d->features);
    free(d->files);
    free(d->block_tags);
    free(d->untagged_files);
    free(d);
}

void ps_train_data_get_info(const ps_train_data *d, ps_train_data_info *info)
{
    info->rows = d->n_rows;
    info->content = d->n_content;
    info->noise = d->n_noise;
    info->unlabelled = d->unlabelled;
    info->groups = d->n_groups;
    info->n_features = d->n_features;
    info->features = d->features;
    info->checksum = d->checksum;
    info->block_tags = d->block_tags;
    info->untagged = d->untagged;
    info->untagged_files = d->untagged_files;
}
