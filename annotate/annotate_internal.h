/* annotate/annotate_internal.h — the web assets of the annotation workspace,
 * embedded at build time (annotate/embed.cmake makes them C strings of the
 * files in annotate/web/), so the library and the tool are self-contained;
 * and the merge of a served workspace's saves. */
#ifndef PS_ANNOTATE_INTERNAL_H
#define PS_ANNOTATE_INTERNAL_H

extern const char ps_annotate_asset_page_js[];   /* web/annotate.js */
extern const char ps_annotate_asset_page_css[];  /* web/page.css */
extern const char ps_annotate_asset_index_js[];  /* web/index.js */
extern const char ps_annotate_asset_index_css[]; /* web/index.css */
extern const char ps_annotate_asset_sync_js[];   /* web/sync.js: saves merged by the server */

#include <stddef.h>

#include "pagesift.h"

/* One save of a served workspace (annotate/serve.c: POST /save's body)
 * merged into ROOT/labels.json, and labels.csv written when the save asks
 * and is current.  Call it with the workspace's save lock held.  Returns
 * the HTTP status: 200 with *answer (malloc'd JSON: revision, conflicts,
 * merged labels), 400 (err: what is wrong with the body, nothing written)
 * or 500 (err: labels.json unreadable or damaged -- never overwritten --,
 * or a write failed).  Not exported; tests/fuzz/fuzz_annotate_save.c
 * drives it with arbitrary bodies and labels files. */
int ps_annotate_save_merge(const char *root, const char *body, size_t len, char **answer,
                           ps_error *err);

#endif
