// texpr: the TExpr compiler, its interpreter and a WebGPU runtime, as an
// ES module. The compiler and the interpreter are Rust built for
// WebAssembly (the texpr-wasm crate, bound by wasm-bindgen into ./pkg by
// build.sh); run.js runs compiled plans on navigator.gpu.
// Call `await init()` once before the other functions (docs/npm.md).
import initWasm, * as wasm from "./pkg/texpr_wasm.js";

export { run, dispatches, defaultDevice, unmet, MAX_DISPATCHES } from "./run.js";

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

function ready() {
  if (!loaded) throw new Error("texpr: call `await init()` before using the compiler");
}

/** Compiles TExpr source: {ok, target, wgsl, plan, schedule, scheduled,
 * inputs, outputs, diagnostics, rendered}. Options: {defines, target,
 * schedule}. */
export function compile(source, options = {}) {
  ready();
  return wasm.compile(source, options);
}

/** Parses and type-checks only: {ok, inputs, outputs, diagnostics, rendered}. */
export function check(source, options = {}) {
  ready();
  return wasm.check(source, options);
}

/** The interpreter's outputs for `inputs` ({name: TypedArray}):
 * {ok, outputs, diagnostics, rendered}. */
export function evaluate(source, inputs, options = {}) {
  ready();
  return wasm.evaluate(source, inputs, options);
}

/** Deterministic random inputs (options.seed, 1 by default), as
 * `texprc eval --random SEED` makes them: {ok, inputs, diagnostics, rendered}. */
export function randomInputs(source, options = {}) {
  ready();
  return wasm.randomInputs(source, options);
}

/** Outputs computed elsewhere (by `run`) against the interpreter, each
 * element within its own error bound: {ok, complete, outputs, diagnostics,
 * rendered}. */
export function compare(source, inputs, outputs, options = {}) {
  ready();
  return wasm.compare(source, inputs, outputs, options);
}

/** The built-in targets' names. */
export function targets() {
  ready();
  return wasm.targets();
}

/** The compiler's version. */
export function version() {
  ready();
  return wasm.version();
}
