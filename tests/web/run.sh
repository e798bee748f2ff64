#!/bin/sh
# The WebAssembly build against the native one (make test-web): the npm package installed into a
# fresh prefix, as a learner installs it, must print the native bytes for every snapshot command
# (stdout, stderr, exit code, written files), pass `verify`, step through cells in a real terminal, and
# give the same bytes as the native binary for every lesson in eight output modes, every real-PyTorch
# fixture configuration, every `check` fixture and --color auto under a terminal; the page's module
# must give the same bytes too; and the page, build-web/attn-tutor.html, in Debian's chromium
# (tests/web/page/page_test.js: playwright-core from the npm registry, pinned by its lock file, pointed at
# /usr/bin/chromium; screenshots and timings in $ATTN_ARTIFACTS, by default WEB_BUILD/page-artifacts).
# Any difference names the command.
# Usage: tests/web/run.sh NATIVE_BUILD WEB_BUILD
set -eu
native=$(cd "$1" && pwd)/attn-tutor
web=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
jobs=${JOBS:-2}
prefix=$(mktemp -d); trap 'rm -rf "$prefix"' EXIT
# npm's cache and logs (and npx's installs) in the scratch folder, not in $HOME; no update check.
export npm_config_cache="$prefix/.npm" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
tgz=$(ls -t "$web"/npm/attn-tutor-*.tgz | head -n 1)  # the newest, should an older version's be there too
npm install -g --prefix "$prefix" "$tgz" --offline --no-audit --no-fund --loglevel=error >/dev/null
exe="$prefix/bin/attn-tutor"
[ -x "$exe" ] || { echo "web: npm install -g did not install an attn-tutor command"; exit 1; }
failed=0
step() { echo "== web: $1"; shift; "$@" || failed=1; }
step "snapshot suite through the installed package" sh "$here/../snapshot/run.sh" "$exe"
step "verify under node" sh -c '"$0" verify >/dev/null' "$exe"
step "--step in a terminal under node" sh "$here/../step_mode_tmux.sh" "$exe"
npx_run() {  # npx on the tarball, from a folder of its own, as the README shows it
  folder=$(mktemp -d) && cp "$tgz" "$folder/" && cd "$folder" &&
    npx --yes "./$(basename "$tgz")" causal-mask --seed 123 --json - >npx.out 2>&1 &&
    "$native" causal-mask --seed 123 --json - >native.out && cmp -s npx.out native.out; status=$?
  cd "$here" && rm -rf "$folder"; return "$status"
}
step "npx on the tarball" npx_run
step "native and node byte for byte" python3 "$here/compare_builds.py" "$native" "$exe" --jobs "$jobs" --tty
step "native and the page's module byte for byte" python3 "$here/compare_builds.py" "$native" \
  "node $here/module_run.js $web/attn-tutor-web.js" --jobs "$jobs" --no-files
page_test() {  # playwright-core as the lock file pins it (npm ci: the same bytes every time), no browser download
  (cd "$here/page" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm_config_cache="${HOME:-$prefix}/.npm" \
     npm ci --no-audit --no-fund --loglevel=error >/dev/null) &&
    node "$here/page/page_test.js" "$native" "$web/attn-tutor.html" "${ATTN_ARTIFACTS:-$web/page-artifacts}"
}
step "the page in chromium, offline" page_test
[ "$failed" -eq 0 ] && echo "web: every comparison byte-identical"
exit "$failed"
