// Property test of the npm package's exports on hostile arguments, for Node
// (tests/it/npm_hostile.rs) and for a page: `hostile(texpr, {seed, cases,
// sources})` calls compile, check, randomInputs, evaluate and compare
// `cases` times with arguments drawn from a seeded generator (wrong types,
// cyclic and throwing objects, revoked proxies, detached and foreign typed
// arrays, garbage and mutated source, absurd sizes and options) and
// returns {cases, failures, codes}: a failure is a call that threw, a
// result not in the documented shape, an internal error (E0799), or a
// wrong code where the argument's kind decides it. `garbage(texpr, bytes)`
// times one call of each kind on that much garbage.

/** mulberry32: a small deterministic generator of floats in [0, 1). */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const throwing = new Proxy({}, {
  get() { throw new Error("the get trap"); },
});
const everyTrap = Object.fromEntries(
  ["get", "has", "ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf", "defineProperty", "set"]
    .map((t) => [t, () => { throw new Error(`the ${t} trap`); }]));

function detached() {
  const a = new Float32Array(4);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

function deep(n) {
  let o = {};
  for (let i = 0; i < n; i++) o = { defines: o };
  return o;
}

/** Values of every kind JavaScript has, each with what it is as the
 * options: `good` (options the functions take: absent, or an object with
 * nothing enumerable) or `bad` (E0701: not an object, or one that cannot
 * be read as plain data). */
const VALUES = [
  ["good", () => undefined], ["bad", () => true], ["bad", () => 0],
  ["bad", () => -1], ["bad", () => NaN], ["bad", () => Infinity],
  ["bad", () => -Infinity], ["bad", () => 2 ** 53], ["bad", () => 1e300],
  ["bad", () => -0], ["bad", () => 10n], ["bad", () => Symbol("s")],
  ["bad", () => "heuristic"], ["bad", () => "\u{d800}"],
  ["bad", () => () => 1], ["bad", () => []], ["bad", () => [1, "x", {}]],
  ["good", () => ({})], ["good", () => Object.create(null)],
  ["bad", () => { const o = {}; o.self = o; return o; }],
  ["bad", () => new Proxy({}, everyTrap)],
  ["bad", () => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy; }],
  ["bad", () => ({ get seed() { throw new Error("a getter"); } })],
  ["bad", () => deep(5000)],
  ["bad", () => new Float32Array(4)], ["bad", () => new Float64Array(4)],
  ["bad", () => new Uint8Array(3)], ["good", () => detached()],
  ["good", () => new DataView(new ArrayBuffer(8))],
  ["good", () => Object.create(Float32Array.prototype)],
  ["good", () => new Date(0)], ["good", () => /re/g], ["good", () => new Map([[1, 2]])],
  ["good", () => Promise.resolve(1)], ["bad", () => new String("s")],
  ["good", () => throwing],
];

const pick = (rng, list) => list[Math.floor(rng() * list.length)];

function garbageText(rng, n) {
  const alphabet = "abcxyz0123456789 \n\t{}[]()|:;=+-*/<>.,@#$%^&!?\"'\\\u0000\u00e9\u{1f600}\u{d800}";
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rng() * alphabet.length)];
  return s;
}

/** A source: a valid one, one mutated, garbage, or absurd sizes. */
function source(rng, sources) {
  const base = pick(rng, sources);
  switch (Math.floor(rng() * 6)) {
    case 0: return base;
    case 1: {
      const at = Math.floor(rng() * base.length);
      const cut = Math.floor(rng() * 20);
      return base.slice(0, at) + garbageText(rng, Math.floor(rng() * 8)) + base.slice(at + cut);
    }
    case 2: return garbageText(rng, Math.floor(rng() * 400));
    case 3: {
      const n = pick(rng, ["0", "-1", "4294967296", "536870912", "268435456", "99999999999999999999", "1e9"]);
      return `input x: f32[${n}]\noutput y = compute 1 |i| x[i]`;
    }
    case 4: return `param N = ${pick(rng, ["-5", "0", "2147483648", "9007199254740993"])}\ninput x: f32[N]\noutput y = compute N |i| x[i] * 2.0`;
    default: return base.repeat(1 + Math.floor(rng() * 3));
  }
}

const GOOD = {
  defines: [{}, { N: 8 }, { N: 64, M: 4 }, { R: 16 }, { N: -4 }],
  target: ["webgpu", "llvmpipe", "max_invocations_per_workgroup = 64"],
  schedule: ["heuristic", "default"],
  seed: [1, 7, 0, undefined, null],
  maxOps: [1000, 200000000],
  maxMemory: [64, 1 << 20],
};
/** Values each option refuses (E0701, or its own code: E0702 for a
 * schedule, E0602 and E0605 for a target). */
const BAD = {
  defines: [{ N: 1.5 }, { N: "8" }, { N: 1e20 }, [1]],
  target: ["gtx", "nonsense = 1", 3],
  schedule: ["c: warp_magic", false],
  seed: [-1, 1.5, 2 ** 53, "7", NaN],
  maxOps: [Infinity, -1, 1e300],
  maxMemory: [2 ** 31 + 1, -0.5, 1e300, Infinity],
};
const OPTION_CODES = ["E0701", "E0702", "E0602", "E0605"];

/** Options, with what they are (`good`, `bad`, or `null`: it depends):
 * absent, a value of any kind, or an object of good, bad and hostile
 * values, sometimes with an unknown key. */
function options(rng) {
  const r = rng();
  if (r < 0.15) {
    const [kind, make] = pick(rng, VALUES);
    return [kind, make()];
  }
  if (r < 0.25) return ["good", undefined];
  const o = {};
  let kind = "good";
  for (const key of Object.keys(GOOD)) {
    const k = rng();
    if (k < 0.4) continue;
    if (k < 0.8) o[key] = pick(rng, GOOD[key]);
    else if (k < 0.92) {
      o[key] = pick(rng, BAD[key]);
      kind = "bad";
    } else {
      o[key] = pick(rng, VALUES)[1]();
      kind = kind === "bad" ? "bad" : null;
    }
  }
  if (rng() < 0.1) {
    o.colour = "red";
    kind = "bad";
  }
  return [kind, o];
}

/** Named vectors: a value of any kind, or an object of typed arrays (and
 * other things) under names the sources use. */
function named(rng) {
  if (rng() < 0.3) return pick(rng, VALUES)[1]();
  const o = {};
  for (const name of ["x", "y", "a", "w", "q"]) {
    if (rng() < 0.4) continue;
    o[name] = rng() < 0.85
      ? new (pick(rng, TYPED))(pick(rng, [0, 1, 4, 8, 16, 64, 256, 4096]))
      : pick(rng, VALUES)[1]();
  }
  return o;
}

/** Whether `d` is a diagnostic in the documented shape. */
function isDiagnostic(d) {
  return d !== null && typeof d === "object"
    && (d.severity === "error" || d.severity === "warning")
    && typeof d.code === "string" && /^E\d{4}$/.test(d.code)
    && typeof d.message === "string" && Array.isArray(d.labels) && Array.isArray(d.notes);
}

const FIELDS = {
  compile: ["target", "wgsl", "plan", "schedule", "scheduled", "params", "inputs", "outputs"],
  check: ["params", "inputs", "outputs"],
  randomInputs: ["inputs"],
  evaluate: ["outputs"],
  compare: ["complete", "outputs"],
};

/** Why `out` (of function `f`) is not in the documented shape, or null. */
export function shapeProblem(f, out) {
  if (out === null || typeof out !== "object") return "not an object";
  if (typeof out.ok !== "boolean") return "no boolean `ok`";
  if (!Array.isArray(out.diagnostics) || !out.diagnostics.every(isDiagnostic)) return "bad `diagnostics`";
  if (out.diagnostics.length > 20) return "more than 20 diagnostics";
  if (!Number.isInteger(out.hidden) || out.hidden < 0) return "bad `hidden`";
  if (typeof out.rendered !== "string") return "no `rendered` text";
  for (const field of FIELDS[f]) if (!(field in out)) return `no \`${field}\``;
  if (!out.ok && !out.diagnostics.some((d) => d.severity === "error")) return "failed without an error";
  if (out.diagnostics.some((d) => d.code === "E0799")) return `an internal error: ${out.rendered}`;
  return null;
}

const TYPED = [Float32Array, Int32Array, Uint32Array, Uint16Array];

/** Whether `v` is named vectors as the functions take them (an object,
 * not an array or a view, whose entries are all typed arrays of the four
 * kinds); `false` where reading it throws. */
function isNamed(v) {
  try {
    if (v === null || typeof v !== "object" || Array.isArray(v) || ArrayBuffer.isView(v)) return false;
    return Object.values(v).every((a) => ArrayBuffer.isView(a) && TYPED.some((t) => a instanceof t));
  } catch {
    return false;
  }
}

/** The codes the arguments' kinds allow first, or null (any). */
function expected(f, src, optionKind, inputs, outputs) {
  if (typeof src !== "string") return ["E0707"];
  if (optionKind === "bad") return OPTION_CODES;
  if (optionKind !== "good" || !(f === "evaluate" || f === "compare")) return null;
  if (!isNamed(inputs)) return ["E0703"];
  // The inputs are copied (within `maxMemory`) before the outputs are read.
  if (f === "compare" && !isNamed(outputs)) return ["E0706", "E0705"];
  return null;
}

/** Arguments of an evaluation that can succeed: a valid source, its
 * random inputs and, for `compare`, the interpreter's own outputs. */
function real(texpr, rng, f, sources) {
  const { text, defines } = pick(rng, sources);
  const o = { defines, seed: Math.floor(rng() * 5) };
  const given = texpr.randomInputs(text, o).inputs;
  if (f === "evaluate") return [text, given, o];
  return [text, given, texpr.evaluate(text, given, o).outputs, o];
}

/** Runs the property `cases` times (see the module's comment); `sources`
 * are `{text, defines}` of valid programs (small with their defines). */
export function hostile(texpr, { seed, cases, sources }) {
  const rng = generator(seed);
  const failures = [];
  const codes = {};
  let succeeded = 0;
  const functions = Object.keys(FIELDS);
  for (let n = 0; n < cases; n++) {
    const f = functions[n % functions.length];
    let args, want = null, out;
    const isReal = (f === "evaluate" || f === "compare") && rng() < 0.3;
    try {
      if (isReal) {
        args = real(texpr, rng, f, sources);
      } else {
        const texts = sources.map((s) => s.text);
        const src = rng() < 0.15 ? pick(rng, VALUES)[1]() : source(rng, texts);
        const opts = options(rng);
        const inputs = named(rng);
        const outputs = named(rng);
        args = {
          compile: [src, opts[1]], check: [src, opts[1]], randomInputs: [src, opts[1]],
          evaluate: [src, inputs, opts[1]], compare: [src, inputs, outputs, opts[1]],
        }[f];
        want = expected(f, src, opts[0], inputs, outputs);
      }
      out = texpr[f](...args);
    } catch (e) {
      failures.push({ case: n, f, problem: `threw ${String(e)}` });
      continue;
    }
    const problem = shapeProblem(f, out);
    if (problem !== null) {
      failures.push({ case: n, f, problem });
      continue;
    }
    for (const d of out.diagnostics) codes[d.code] = (codes[d.code] ?? 0) + 1;
    if (out.ok) succeeded += 1;
    if (want !== null && (out.ok || !want.includes(out.diagnostics[0].code))) {
      failures.push({ case: n, f, problem: `wanted ${want.join(" or ")}, got ${out.rendered.slice(0, 300)}` });
    }
    // A real evaluation succeeds, and the interpreter's own outputs pass.
    if (isReal && !(out.ok && (f === "evaluate" || out.complete))) {
      failures.push({ case: n, f, problem: `a real ${f} failed: ${out.rendered} ${JSON.stringify(out.outputs)}` });
    }
  }
  return { cases, failures: failures.slice(0, 20), failed: failures.length, succeeded, codes };
}

/** One call of compile, check and evaluate on `bytes` of garbage: the
 * milliseconds each took and how many diagnostics it listed and hid. */
export function garbage(texpr, bytes) {
  const text = garbageText(generator(1), bytes);
  const calls = {
    compile: () => texpr.compile(text),
    check: () => texpr.check(text),
    evaluate: () => texpr.evaluate(text, {}),
  };
  const out = {};
  for (const [f, call] of Object.entries(calls)) {
    const start = performance.now();
    const r = call();
    out[f] = {
      ms: performance.now() - start, ok: r.ok,
      listed: r.diagnostics.length, hidden: r.hidden, problem: shapeProblem(f, r),
    };
  }
  return out;
}
