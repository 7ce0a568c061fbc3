// The texpr playground: an editor with the examples, -D params, a target
// and a schedule; live diagnostics as the CLI renders them; the schedule
// and the WGSL; and Run: random inputs, the outputs of the WebGPU run, the
// GPU time, and the comparison with the interpreter running in the page.
// Static files: it imports the npm package from ../npm (built by
// npm/build.sh, which also writes examples.json) and fetches the examples
// from ../examples, so serve the repository's root (docs/npm.md).
import { init, compile, randomInputs, compare, run, targets, defaultDevice } from "../npm/index.js";

const $ = (id) => document.getElementById(id);
// Params of an example above this are lowered in its -D line on loading, so
// the interpreter and a software GPU answer in moments (edit them freely).
const SMALL = 256;
// Live diagnostics wait this long after the last keystroke.
const DEBOUNCE_MS = 250;

const state = { compiled: null, options: null, source: "", busy: Promise.resolve(), lastRun: null };

function setStatus(kind, text) {
  $("status").dataset.state = kind;
  $("status").textContent = text;
}

// "N=256 M=64" (spaces or commas between) as {N: 256, M: 64}.
function parseDefines(text) {
  const defines = {};
  for (const part of text.split(/[\s,]+/).filter((p) => p !== "")) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(-?\d+)$/.exec(part);
    if (m === null) throw new Error(`-D ${part}: expected NAME=INTEGER`);
    defines[m[1]] = Number(m[2]);
  }
  return defines;
}

function options() {
  return { defines: parseDefines($("defines").value), target: $("target").value, schedule: $("schedule").value };
}

// Diagnostics as the CLI prints them, each line coloured by its severity.
function showDiagnostics(result) {
  const pre = $("diagnostics");
  pre.textContent = "";
  const errors = result.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = result.diagnostics.length - errors;
  const more = result.hidden > 0 ? `, ${result.hidden} more not listed` : "";
  $("diag-summary").textContent = result.diagnostics.length === 0 ? "" : `(${errors} errors, ${warnings} warnings${more})`;
  if (result.diagnostics.length === 0) {
    const ok = document.createElement("span");
    ok.className = "fine";
    ok.textContent = "no errors";
    pre.append(ok);
    return;
  }
  // Each `input.te:LINE:COLUMN` a label's place: clicking it selects the
  // label's text in the editor.
  const labels = result.diagnostics.flatMap((d) => d.labels ?? []);
  let kind = "";
  for (const line of result.rendered.split("\n")) {
    if (line.startsWith("error")) kind = "error";
    else if (line.startsWith("warning")) kind = "warning";
    const span = document.createElement("span");
    span.className = kind;
    span.textContent = line + "\n";
    const at = /input\.te:(\d+):(\d+)/.exec(line);
    const label = at && labels.find((l) => l.line === Number(at[1]) && l.column === Number(at[2]));
    if (label) {
      span.classList.add("loc");
      span.title = "select in the editor";
      span.addEventListener("click", () => {
        $("editor").focus();
        $("editor").setSelectionRange(label.start, Math.max(label.end, label.start + 1));
      });
    }
    pre.append(span);
  }
}

// Compiles the editor's text: diagnostics, schedule and WGSL.
function update() {
  const source = $("editor").value;
  let opts;
  try {
    opts = options();
  } catch (e) {
    showDiagnostics({ diagnostics: [{ severity: "error" }], rendered: `error: ${e.message}` });
    state.compiled = null;
    $("run").disabled = true;
    return;
  }
  const result = compile(source, opts);
  showDiagnostics(result);
  state.compiled = result.ok ? result : null;
  state.options = opts;
  state.source = source;
  $("run").disabled = !result.ok;
  $("schedule-text").textContent = result.schedule ?? "";
  $("wgsl").textContent = result.wgsl ?? "";
  $("wgsl-summary").textContent = result.ok
    ? `(${result.plan.kernels.length} kernels, ${result.wgsl.split("\n").length} lines, target ${result.target})`
    : "";
}

let timer = null;
function scheduleUpdate() {
  clearTimeout(timer);
  timer = setTimeout(update, DEBOUNCE_MS);
}

/** Loads examples/NAME.te into the editor, its large params lowered to
 * SMALL in the -D line, and compiles it. */
async function load(name) {
  const response = await fetch(`../examples/${name}.te`);
  if (!response.ok) throw new Error(`../examples/${name}.te: ${response.status}`);
  const source = await response.text();
  $("example").value = name;
  $("editor").value = source;
  const params = [...source.matchAll(/^\s*param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\d+)/gm)];
  $("defines").value = params.filter((m) => Number(m[2]) > SMALL).map((m) => `${m[1]}=${SMALL}`).join(" ");
  $("run-result").textContent = "Press Run: random inputs, the GPU's outputs, and the in-page interpreter's verdict.";
  update();
}

function preview(array) {
  const shown = Array.from(array.slice(0, 6), (x) => (Number.isInteger(x) ? `${x}` : x.toPrecision(6)));
  return `[${shown.join(", ")}${array.length > 6 ? ", …" : ""}]`;
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  row.append(td);
}

// Random inputs, the WebGPU run, and the interpreter's verdict on it.
async function runOnce() {
  const compiled = state.compiled;
  if (compiled === null) return null;
  const opts = { ...state.options, seed: Number($("seed").value) || 0 };
  setStatus("running", "running…");
  const inputs = randomInputs(state.source, opts);
  if (!inputs.ok) throw new Error(inputs.rendered);
  const device = await defaultDevice();
  const got = await run(compiled, inputs.inputs, { device });
  const verdict = compare(state.source, inputs.inputs, got.outputs, opts);
  if (verdict.outputs === null) throw new Error(verdict.rendered);
  const table = document.createElement("table");
  const head = table.insertRow();
  for (const h of ["output", "GPU (first elements)", "interpreter's verdict"]) {
    const th = document.createElement("th");
    th.textContent = h;
    head.append(th);
  }
  for (const o of verdict.outputs) {
    const row = table.insertRow();
    const info = compiled.outputs.find((x) => x.name === o.name);
    cell(row, `${o.name}: ${info.elem}[${info.len}]`);
    const td = document.createElement("td");
    const code = document.createElement("code");
    code.textContent = preview(got.outputs[o.name]);
    td.append(code);
    row.append(td);
    if (o.ok) {
      const notes = [o.unspecified ? `${o.unspecified} unspecified` : "", o.unbounded ? `${o.unbounded} unbounded` : ""]
        .filter((s) => s !== "").join(", ");
      cell(row, `✓ ${o.compared} elements within their error bounds (largest difference ${o.largest_diff.toExponential(2)})${notes ? `; ${notes}, not compared` : ""}`, "ok");
    } else {
      cell(row, `✗ ${o.mismatch.text}`, "bad");
    }
  }
  const info = device.texprAdapterInfo ?? {};
  const summary = document.createElement("p");
  const gpu = got.gpuTimeMs === null ? "GPU time: not offered (no timestamp-query)" : `GPU time ${got.gpuTimeMs.toFixed(3)} ms (timestamp queries)`;
  summary.textContent = `${gpu}; ${got.dispatches} dispatches; ${got.wallMs.toFixed(1)} ms submit to read-back; ` +
    `adapter ${info.vendor ?? "?"} ${info.architecture ?? ""}; inputs: randomInputs, seed ${opts.seed}.`;
  $("run-result").replaceChildren(table, summary);
  const outcome = { example: $("example").value, ok: verdict.ok, complete: verdict.complete,
    compared: verdict.outputs.reduce((n, o) => n + (o.compared ?? 0), 0),
    gpuTimeMs: got.gpuTimeMs, outputs: verdict.outputs };
  setStatus(verdict.ok ? "passed" : "failed", verdict.ok ? "matches the interpreter" : "differs from the interpreter");
  return outcome;
}

// One thing at a time: loading, compiling and running are queued.
function queue(task) {
  state.busy = state.busy.then(task).catch((e) => {
    setStatus("error", `${e.message ?? e}`);
    $("run-result").textContent = `${e.message ?? e}`;
    state.lastRun = { example: $("example").value, ok: false, error: `${e.message ?? e}` };
    return state.lastRun;
  });
  return state.busy;
}

async function main() {
  await init();
  for (const t of targets()) $("target").add(new Option(t, t));
  $("target").value = "webgpu";
  const names = await (await fetch("examples.json")).json();
  for (const n of names) $("example").add(new Option(n, n));
  $("editor").addEventListener("input", scheduleUpdate);
  $("defines").addEventListener("input", scheduleUpdate);
  $("target").addEventListener("change", update);
  $("schedule").addEventListener("change", update);
  $("example").addEventListener("change", () => queue(() => load($("example").value)));
  $("run").addEventListener("click", () => queue(async () => {
    clearTimeout(timer);
    update();
    state.lastRun = await runOnce();
    return state.lastRun;
  }));
  const first = new URLSearchParams(location.search).get("example") ?? (names.includes("softmax") ? "softmax" : names[0]);
  await load(first);
  setStatus("ready", "ready");
}

// For scripts driving the page (the test suite's): load an example, and
// wait for everything queued, which resolves to the last run's outcome.
window.playground = {
  load: (name) => queue(() => load(name)),
  idle: () => state.busy.then(() => state.lastRun),
};
state.busy = main().catch((e) => setStatus("error", `${e.message ?? e}`));
