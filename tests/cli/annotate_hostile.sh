#!/usr/bin/env bash
# Browser test 2 of pagesift-annotate (issue 19): a hostile page (scripts,
# handlers, iframes, remote images and CSS, refresh, base, forms) opened in
# Chromium from its workspace runs nothing and loads nothing
# (tests/browser/annotate_hostile.js).  SKIP (77) only when npm cannot
# install playwright-core or Chromium cannot start.
set -euo pipefail
src=${PS_SOURCE_DIR:?}
here="$src/tests/browser"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/npm-setup.sh"
cd "$here"
exec node annotate_hostile.js "$tmp"
