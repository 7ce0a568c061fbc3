// The coded errors the package's JavaScript raises itself, in the shape
// every function returns (docs/npm.md; the codes are docs/language.md's).

/** A call before `init()` resolved. */
export const NOT_READY = "E0708";
/** A call cancelled (`background().cancel()`) before it answered. */
export const CANCELLED = "E0709";
/** An argument a worker cannot be sent (structured clone refuses it). */
export const UNSENDABLE = "E0710";
/** A trap inside the WebAssembly, or a worker that failed: a bug. */
export const INTERNAL = "E0799";

/** The fields besides `ok` and the diagnostics that each function gives
 * (each null when it fails, `complete` false). */
export const FIELDS = {
  compile: { target: null, wgsl: null, plan: null, schedule: null, scheduled: null, params: null, inputs: null, outputs: null },
  check: { params: null, inputs: null, outputs: null },
  randomInputs: { inputs: null },
  evaluate: { outputs: null },
  compare: { complete: false, outputs: null },
};

/** `{ok: false, ...fields, diagnostics: [one error], hidden: 0, rendered}`,
 * rendered as texprc renders a diagnostic without a place. */
export function refusal(code, message, fields) {
  return {
    ok: false,
    ...fields,
    diagnostics: [{ severity: "error", code, message, labels: [], notes: [] }],
    hidden: 0,
    rendered: `error[${code}]: ${message}\n\n`,
  };
}

/** What a caught exception says, without trusting it. */
export function describe(e) {
  try {
    return String(e?.message ?? e);
  } catch {
    return "an exception that cannot be printed";
  }
}
