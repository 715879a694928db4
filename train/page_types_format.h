/* train/page_types_format.h — the lines of a page-type bundle
 * (docs/MODEL_FORMAT.md, "Page-type bundles") that train/page_types.c reads
 * and train/page_types_train.c writes.  Not a public interface. */
#ifndef PS_PAGE_TYPES_FORMAT_H
#define PS_PAGE_TYPES_FORMAT_H

#define MAGIC "pagesift-page-types 1\n"
#define END_LINE "end pagesift-page-types\n"
#define SVM_BYTES_KEY "libsvm-model-bytes "
#define CHECKSUM_KEY "checksum crc32:"

#endif
