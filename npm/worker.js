// The script of the package's Web Worker (background.js starts it): loads
// the compiler and the interpreter once and answers `{id, name, args}`
// with `{id, out}`, the function's result, its typed arrays transferred
// (not copied) back. A call runs to its end; background.js cancels one by
// ending the worker.
import { init, compile, check, evaluate, randomInputs, compare } from "./index.js";
import { describe } from "./refusal.js";

const FUNCTIONS = { compile, check, evaluate, randomInputs, compare };
const loading = init();

/** The buffers of the typed arrays in `out.inputs` or `out.outputs`. */
function buffers(out) {
  const named = [out?.inputs, out?.outputs].filter((v) => v !== null && typeof v === "object" && !Array.isArray(v));
  return named.flatMap((v) => Object.values(v)).filter((a) => ArrayBuffer.isView(a)).map((a) => a.buffer);
}

self.onmessage = async ({ data: { id, name, args } }) => {
  try {
    await loading;
  } catch (e) {
    self.postMessage({ id, failed: `the worker could not load the compiler: ${describe(e)}` });
    return;
  }
  const out = FUNCTIONS[name](...args);
  self.postMessage({ id, out }, buffers(out));
};
