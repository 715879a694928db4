# Sourced by the browser tests (tests/cli/annotate_*.sh, with $here and $tmp set):
# playwright-core into tests/browser/node_modules with `npm ci` (from the
# committed package-lock.json) when it is absent; never a browser download.
# SKIP (77) when npm cannot reach the registry; node must be there
# (scripts/install-deps installs nodejs and npm).
command -v node > /dev/null || { echo "FAIL: node is not installed (scripts/install-deps)" >&2; exit 1; }
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
  command -v npm > /dev/null || { echo "FAIL: npm is not installed (scripts/install-deps)" >&2; exit 1; }
  (
    flock 9
    if [ ! -f "$here/node_modules/playwright-core/package.json" ]; then
      cd "$here" && timeout 600 npm ci --no-audit --no-fund > "$tmp/npm.log" 2>&1 || {
        echo "SKIP: npm ci could not install playwright-core (registry unreachable?):"
        tail -5 "$tmp/npm.log"
        exit 77
      }
    fi
  ) 9> "$here/.npm-lock" || exit $?
fi
