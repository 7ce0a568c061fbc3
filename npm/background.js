// The package's functions off the main thread: `background()` gives
// compile, check, randomInputs, evaluate and compare as functions that
// return promises of the same results, computed in a Web Worker
// (worker.js), so a page stays responsive while the interpreter works.
// `cancel()` ends the worker: every call still waiting resolves with
// E0709, and the next call starts a fresh worker. No promise rejects:
// every failure is a coded result, as in the synchronous API.
import { CANCELLED, FIELDS, INTERNAL, UNSENDABLE, describe, refusal } from "./refusal.js";

/** A worker of the package's functions (see the module's comment). */
export function background(workerUrl = new URL("./worker.js", import.meta.url)) {
  let worker = null;
  let next = 0;
  const waiting = new Map(); // id -> {resolve, fields}

  // Every waiting call answered with `code`, and the worker gone.
  function end(code, message) {
    worker?.terminate();
    worker = null;
    const calls = [...waiting.values()];
    waiting.clear();
    for (const { resolve, fields } of calls) resolve(refusal(code, message, fields));
    return calls.length;
  }

  function start() {
    if (worker !== null) return worker;
    worker = new Worker(workerUrl, { type: "module" });
    worker.onmessage = ({ data }) => {
      const call = waiting.get(data.id);
      if (call === undefined) return;
      waiting.delete(data.id);
      call.resolve(data.failed === undefined ? data.out : refusal(INTERNAL, data.failed, call.fields));
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      end(INTERNAL, `the worker failed: ${describe(e.message ?? e)}`);
    };
    return worker;
  }

  function call(name, args) {
    const fields = FIELDS[name];
    return new Promise((resolve) => {
      const id = next++;
      waiting.set(id, { resolve, fields });
      try {
        start().postMessage({ id, name, args });
      } catch (e) {
        waiting.delete(id);
        resolve(refusal(UNSENDABLE, `an argument cannot be sent to the worker: ${describe(e)}`, fields));
      }
    });
  }

  return {
    compile: (source, options) => call("compile", [source, options]),
    check: (source, options) => call("check", [source, options]),
    randomInputs: (source, options) => call("randomInputs", [source, options]),
    evaluate: (source, inputs, options) => call("evaluate", [source, inputs, options]),
    compare: (source, inputs, outputs, options) => call("compare", [source, inputs, outputs, options]),
    /** Ends the work in progress: each waiting call resolves with E0709;
     * gives how many there were. */
    cancel: () => end(CANCELLED, "cancelled before it answered"),
    /** Whether a call is waiting. */
    busy: () => waiting.size > 0,
  };
}
