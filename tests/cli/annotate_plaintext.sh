#!/usr/bin/env bash
# Browser test 3 of pagesift-annotate (issue 32, defect 13): <plaintext>,
# <xmp>, <noembed>, <noframes> in a page no longer swallow the workspace's
# scripts (tests/browser/annotate_plaintext.js).  SKIP (77) only when npm
# cannot install playwright-core or Chromium cannot start.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
here="$src/tests/browser"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/npm-setup.sh"
cd "$here"
exec node annotate_plaintext.js "$tmp"
