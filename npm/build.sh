#!/usr/bin/env bash
# Builds the npm package `texpr` in this folder: the texpr-wasm crate for
# wasm32-unknown-unknown (the workspace's `wasm` profile: release with
# link-time optimization, no debug information), bound by wasm-bindgen's
# library of the same version (tools/bindgen, a member of the workspace:
# `wasm-bindgen --target web`) into npm/pkg/, then shrunk by binaryen's wasm-opt -Oz where there is one:
# $WASM_OPT, else npm/node_modules/.bin/wasm-opt (the package's
# devDependency `binaryen`: `npm install` in npm/), else wasm-opt on PATH.
# Its output is kept under target/wasm-opt/ by the hash of its input, so an
# unchanged build is not optimized twice.
# Needs: the wasm32-unknown-unknown target (rustup target add
# wasm32-unknown-unknown); with --install it installs it where missing, and
# binaryen from npm, and the playground's editor (CodeMirror, esbuild) from npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$root"

if [ "${1:-}" = "--install" ]; then
    if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
        rustup target add wasm32-unknown-unknown
    fi
    if [ ! -x "$here/node_modules/.bin/wasm-opt" ] && command -v npm >/dev/null 2>&1; then
        (cd "$here" && npm install --no-package-lock --no-audit --no-fund)
    fi
    if [ ! -x "$root/playground/node_modules/.bin/esbuild" ] && command -v npm >/dev/null 2>&1; then
        (cd "$root/playground" && npm ci --no-audit --no-fund)
    fi
fi
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
    && [ ! -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ]; then
    echo "npm/build.sh: needs the wasm32-unknown-unknown target; run npm/build.sh --install" >&2
    exit 1
fi

cargo build --profile wasm -p texpr-wasm --target wasm32-unknown-unknown
rm -rf "$here/pkg"
cargo run -q -p texpr-bindgen -- \
    "${CARGO_TARGET_DIR:-$root/target}/wasm32-unknown-unknown/wasm/texpr_wasm.wasm" "$here/pkg" texpr_wasm
wasm_opt="${WASM_OPT:-}"
if [ -z "$wasm_opt" ] && [ -x "$here/node_modules/.bin/wasm-opt" ]; then
    wasm_opt="$here/node_modules/.bin/wasm-opt"
fi
if [ -z "$wasm_opt" ] && command -v wasm-opt >/dev/null 2>&1; then
    wasm_opt=wasm-opt
fi
if [ -n "$wasm_opt" ]; then
    bound="$here/pkg/texpr_wasm_bg.wasm"
    cache="${CARGO_TARGET_DIR:-$root/target}/wasm-opt"
    kept="$cache/$(sha256sum "$bound" | cut -c1-32).wasm"
    if [ ! -f "$kept" ]; then
        mkdir -p "$cache"
        # The features rustc's wasm32 target enables (bulk memory, float-to-int
        # without traps, sign extension, mutable globals), kept as they are.
        "$wasm_opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
            --enable-sign-ext --enable-mutable-globals "$bound" -o "$kept.tmp"
        mv "$kept.tmp" "$kept"
    fi
    cp "$kept" "$bound"
fi
# The playground's editor: CodeMirror 6 and what it needs, bundled into one
# module (playground/vendor/codemirror.js, generated) where the playground's
# devDependencies are installed (npm ci in playground/, or --install).
if [ -x "$root/playground/node_modules/.bin/esbuild" ]; then
    "$root/playground/node_modules/.bin/esbuild" "$root/playground/vendor-entry.js" \
        --bundle --format=esm --minify --log-level=warning \
        --outfile="$root/playground/vendor/codemirror.js"
fi
# The playground's list of examples (playground/examples.json, generated).
ls "$root/examples" | sed -n 's/\.te$//p' | sort \
    | awk 'BEGIN { printf "[" } { printf "%s\"%s\"", (NR > 1 ? ", " : ""), $0 } END { print "]" }' \
    > "$root/playground/examples.json"
wasm=$(wc -c < "$here/pkg/texpr_wasm_bg.wasm")
echo "npm/build.sh: built $here/pkg ($((wasm / 1024)) KiB of WebAssembly)"
