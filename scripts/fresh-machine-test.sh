#!/usr/bin/env bash
# `npm test` as a newcomer runs it: Chromium purged (the scripts must install it back), a fresh
# clone of this repository's HEAD, an empty HOME, cargo registry and tools dir, and a bare
# environment (only PATH, HOME, CARGO_HOME, RUSTUP_HOME). Debian, as root (apt-get purge).
# Usage: scripts/fresh-machine-test.sh [WORK_DIR]   (log: WORK_DIR/npm-test.log)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/lazy-mcp-fresh-XXXXXX)}
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
cargo_bin=$(dirname "$(command -v cargo)")
apt-get purge -y chromium chromium-common >/dev/null 2>&1 || true
rm -rf "$work/clone" "$work/home" "$work/cargo"
mkdir -p "$work/home" "$work/cargo"
git clone -q "$repo" "$work/clone"
cp -r "$cargo_bin" "$work/cargo/bin" # rustup's proxies; the toolchains stay in RUSTUP_HOME
cd "$work/clone"
echo "npm test at $(git log --oneline -1), log: $work/npm-test.log"
start=$(date +%s)
rc=0
env -i PATH="$work/cargo/bin:/usr/local/bin:/usr/bin:/bin" HOME="$work/home" CARGO_HOME="$work/cargo" \
  RUSTUP_HOME="$rustup_home" LANG=C.UTF-8 npm test >"$work/npm-test.log" 2>&1 || rc=$?
echo "exit $rc after $(($(date +%s) - start)) s"
tail -20 "$work/npm-test.log"
exit $rc
