#!/usr/bin/env bash
# Builds the npm package `texpr` in this folder: the texpr-wasm crate for
# wasm32-unknown-unknown (the workspace's `wasm` profile: release with
# link-time optimization, no debug information), bound by wasm-bindgen (--target web)
# into npm/pkg/, then shrunk by wasm-opt where it is installed (optional).
# Needs: the wasm32-unknown-unknown target (rustup target add
# wasm32-unknown-unknown) and wasm-bindgen-cli of exactly the wasm-bindgen
# version in Cargo.lock (cargo install wasm-bindgen-cli --version V); with
# --install it installs both where missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
cd "$root"

version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if [ "${1:-}" = "--install" ]; then
    if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
        rustup target add wasm32-unknown-unknown
    fi
    if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$version" ]; then
        # Not --locked: the CLI's own lock file may name crate versions a
        # registry mirror lacks; the CLI's version is what must match.
        cargo install wasm-bindgen-cli --version "$version"
    fi
fi
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
    && [ ! -d "$(rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown" ]; then
    echo "npm/build.sh: needs the wasm32-unknown-unknown target; run npm/build.sh --install" >&2
    exit 1
fi
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$version" ]; then
    echo "npm/build.sh: needs wasm-bindgen-cli $version (found: ${have:-none}); run npm/build.sh --install" >&2
    exit 1
fi

cargo build --profile wasm -p texpr-wasm --target wasm32-unknown-unknown
rm -rf "$here/pkg"
wasm-bindgen --target web --out-dir "$here/pkg" --out-name texpr_wasm \
    "${CARGO_TARGET_DIR:-$root/target}/wasm32-unknown-unknown/wasm/texpr_wasm.wasm"
if command -v wasm-opt >/dev/null 2>&1; then
    wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
        "$here/pkg/texpr_wasm_bg.wasm" -o "$here/pkg/texpr_wasm_bg.wasm"
fi
# The playground's list of examples (playground/examples.json, generated).
ls "$root/examples" | sed -n 's/\.te$//p' | sort \
    | awk 'BEGIN { printf "[" } { printf "%s\"%s\"", (NR > 1 ? ", " : ""), $0 } END { print "]" }' \
    > "$root/playground/examples.json"
wasm=$(wc -c < "$here/pkg/texpr_wasm_bg.wasm")
echo "npm/build.sh: built $here/pkg ($((wasm / 1024)) KiB of WebAssembly)"
