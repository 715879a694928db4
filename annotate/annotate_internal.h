/* annotate/annotate_internal.h — the web assets of the annotation workspace,
 * embedded at build time (annotate/embed.cmake makes them C strings of the
 * files in annotate/web/), so the library and the tool are self-contained. */
#ifndef PS_ANNOTATE_INTERNAL_H
#define PS_ANNOTATE_INTERNAL_H

extern const char ps_annotate_asset_page_js[];   /* web/annotate.js */
extern const char ps_annotate_asset_page_css[];  /* web/page.css */
extern const char ps_annotate_asset_index_js[];  /* web/index.js */
extern const char ps_annotate_asset_index_css[]; /* web/index.css */
extern const char ps_annotate_asset_sync_js[];   /* web/sync.js: saves merged by the server */

#endif
