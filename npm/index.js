// texpr: the TExpr compiler, its interpreter and a WebGPU runtime, as an
// ES module. The compiler and the interpreter are Rust built for
// WebAssembly (the texpr-wasm crate, bound by wasm-bindgen into ./pkg by
// build.sh); run.js runs compiled plans on navigator.gpu.
// Call `await init()` once before the other functions (docs/npm.md).
import initWasm, * as wasm from "./pkg/texpr_wasm.js";

import { FIELDS, INTERNAL, NOT_READY, describe, refusal } from "./refusal.js";

export { run, dispatches, defaultDevice, unmet, MAX_DISPATCHES, DeviceArray, upload, transfers } from "./run.js";

let loading = null;
let loaded = false;

/** Loads the WebAssembly module (once; later calls give the same promise).
 * `wasm` may be a URL, a Response, bytes or a WebAssembly.Module; by
 * default the .wasm file beside this module is fetched (in Node, read). */
export function init(wasmSource) {
  loading ??= (async () => {
    let source = wasmSource;
    if (source === undefined && globalThis.process?.versions?.node !== undefined) {
      const { readFile } = await import("node:fs/promises");
      source = await readFile(new URL("./pkg/texpr_wasm_bg.wasm", import.meta.url));
    }
    await initWasm(source === undefined ? undefined : { module_or_path: source });
    loaded = true;
  })();
  return loading;
}

// Set by the first trap: a trapped instance is not called again.
let trapped = null;

/** `call()` unless the module is not loaded or has trapped; a trap (or an
 * exception through the WebAssembly) becomes an E0799 result. */
function guarded(fields, call) {
  if (!loaded) {
    return refusal(NOT_READY, "the package is not loaded: call `await init()` first", fields);
  }
  if (trapped !== null) {
    return refusal(INTERNAL, `an earlier call failed inside the WebAssembly (${trapped}); reload the page`, fields);
  }
  try {
    return call();
  } catch (e) {
    trapped = describe(e);
    return refusal(INTERNAL, `the compiler failed inside the WebAssembly, a bug: ${trapped}`, fields);
  }
}


/** Compiles TExpr source: {ok, target, wgsl, plan, schedule, scheduled,
 * params, inputs, outputs, diagnostics, hidden, rendered}. */
export function compile(source, options) {
  return guarded(FIELDS.compile, () => wasm.compile(source, options));
}

/** Parses and type-checks only: {ok, params, inputs, outputs, diagnostics,
 * hidden, rendered}. */
export function check(source, options) {
  return guarded(FIELDS.check, () => wasm.check(source, options));
}

/** The interpreter's outputs for `inputs` ({name: TypedArray}):
 * {ok, outputs, diagnostics, hidden, rendered}. */
export function evaluate(source, inputs, options) {
  return guarded(FIELDS.evaluate, () => wasm.evaluate(source, inputs, options));
}

/** Deterministic random inputs (options.seed, 1 by default), as
 * `texprc eval --random SEED` makes them: {ok, inputs, diagnostics, hidden,
 * rendered}. */
export function randomInputs(source, options) {
  return guarded(FIELDS.randomInputs, () => wasm.randomInputs(source, options));
}

/** Outputs computed elsewhere (by `run`) against the interpreter, each
 * element within its own error bound: {ok, complete, outputs, diagnostics,
 * hidden, rendered}. */
export function compare(source, inputs, outputs, options) {
  return guarded(FIELDS.compare, () => wasm.compare(source, inputs, outputs, options));
}

/** The built-in targets' names (throws before `init()`). */
export function targets() {
  if (!loaded) throw new Error("texpr: call `await init()` before using the compiler");
  return wasm.targets();
}

/** The compiler's version (throws before `init()`). */
export function version() {
  if (!loaded) throw new Error("texpr: call `await init()` before using the compiler");
  return wasm.version();
}
