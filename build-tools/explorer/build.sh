#!/usr/bin/env bash
# Builds the explorer page: dist/explorer/index.html, one file that works
# opened from disk or from any static host. Needs the wasm32-unknown-unknown
# target, the wasm-bindgen CLI at the version of the wasm-bindgen crate in
# Cargo.lock, and Node.js; with --install it installs the first two (the CLI
# into .tools/ of the repository).
set -euo pipefail
cd "$(dirname "$0")/../.."

version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)
bindgen=${WASM_BINDGEN:-.tools/bin/wasm-bindgen}
if [ "${1:-}" = --install ]; then
  rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
  if ! "$bindgen" --version 2>/dev/null | grep -q " $version\$"; then
    # Built in a folder of its own, so that it neither locks nor fills the
    # workspace's target directory.
    scratch=$(mktemp -d)
    cargo install wasm-bindgen-cli --version "$version" --root .tools --target-dir "$scratch"
    rm -rf "$scratch"
    bindgen=.tools/bin/wasm-bindgen
  fi
fi
if ! "$bindgen" --version 2>/dev/null | grep -q " $version\$"; then
  echo "wasm-bindgen $version not found at $bindgen: run $0 --install (or set WASM_BINDGEN)" >&2
  exit 1
fi

# Small and self-contained: optimised for size, one codegen unit, no unwinding.
export CARGO_PROFILE_RELEASE_OPT_LEVEL=s CARGO_PROFILE_RELEASE_LTO=true
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 CARGO_PROFILE_RELEASE_PANIC=abort
cargo build -p xla-shape-explorer --lib --release --locked --target wasm32-unknown-unknown
target=${CARGO_TARGET_DIR:-target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bindgen" --target no-modules --no-typescript --out-dir "$work" \
  "$target/wasm32-unknown-unknown/release/xla_shape_explorer.wasm"
mkdir -p dist/explorer
node build-tools/explorer/assemble.mjs "$work/xla_shape_explorer.js" "$work/xla_shape_explorer_bg.wasm" dist/explorer/index.html
echo "WebAssembly: $(wc -c < "$work/xla_shape_explorer_bg.wasm") bytes, $(gzip -9 -c "$work/xla_shape_explorer_bg.wasm" | wc -c) gzipped"
