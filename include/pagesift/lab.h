/*
 * pagesift/lab.h — libpagesift-lab, the workshop over the runtime
 * (libpagesift, pagesift.h): what researchers and annotators use and an
 * extracting program does not.  `pkg-config --cflags --libs pagesift-lab`
 * builds against it (and libpagesift, which it requires).
 *
 *   pagesift/tokens.h         the tokenizers of the metrics and gold labels
 *   pagesift/labels.h         labels from gold text, the block CSV, CSV
 *                             reading, which pages to label next
 *   pagesift/train.h          training: the block classifier, page types,
 *                             per-site models
 *   pagesift/eval.h           metrics against gold text, evaluation runs
 *   pagesift/template_eval.h  template libraries measured against gold
 *   pagesift/annotate.h       the annotation workspace and its server
 *
 * Their calls are marked PS_LAB_EXPORT: libpagesift-lab exports them and
 * nothing else (tests/cli/library_boundary.sh).  This header includes them
 * all; a program may include only those it needs.
 */
#ifndef PAGESIFT_LAB_H
#define PAGESIFT_LAB_H

#include "pagesift.h"
#include "pagesift/annotate.h"
#include "pagesift/eval.h"
#include "pagesift/labels.h"
#include "pagesift/template_eval.h"
#include "pagesift/tokens.h"
#include "pagesift/train.h"

#endif /* PAGESIFT_LAB_H */
