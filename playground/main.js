// The texpr playground: an editor with the examples (those the chosen
// target cannot compile marked), -D params, a target and a schedule; live
// diagnostics as the CLI renders them; the schedule and the WGSL (to
// download); a program shared by URL; and Run: random or uploaded (.npy)
// inputs, the outputs of the WebGPU run (plotted, to download as .npy), the
// GPU time, and the comparison with the interpreter, which runs in a Web
// Worker (texpr/background) so the page stays responsive, with a Cancel.
// Static files: it imports the npm package from ../npm (built by
// npm/build.sh, which also writes examples.json and bundles the editor's
// CodeMirror into vendor/codemirror.js) and fetches the examples
// from ../examples, so serve the repository's root (docs/npm.md).
import { init, compile, run, targets, defaultDevice } from "../npm/index.js";
import { background } from "../npm/background.js";
import { fromNpy, toNpy } from "./npy.js";
import { decode, encode } from "./share.js";
import { plot } from "./plot.js";

const $ = (id) => document.getElementById(id);
// Params of an example above this are lowered in its -D line on loading, so
// the interpreter and a software GPU answer in moments (edit them freely).
const SMALL = 256;
// Live diagnostics wait this long after the last keystroke.
const DEBOUNCE_MS = 250;

const state = {
  compiled: null, options: null, source: "", busy: Promise.resolve(), lastRun: null,
  // Inputs read from uploaded .npy files, by name; the examples' sources.
  uploads: {}, sources: new Map(), cancelled: false,
};
// The interpreter off the main thread.
const worker = background();
// A download link's object URL, revoked when it is replaced.
const urls = new Map();

function download(id, bytes, name, type) {
  if (urls.has(id)) URL.revokeObjectURL(urls.get(id));
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  urls.set(id, url);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.textContent = `${name}`;
  a.className = "download";
  return a;
}

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
  $("wgsl-download").replaceChildren(...(result.ok ? [download("wgsl", result.wgsl, "kernels.wgsl", "text/plain")] : []));
  // A verdict belongs to the program it was given for.
  if (result.ok) setStatus("ready", "ready");
  else setStatus("error", "does not compile");
}

let timer = null;
function scheduleUpdate() {
  clearTimeout(timer);
  timer = setTimeout(update, DEBOUNCE_MS);
}

/** Loads examples/NAME.te into the editor, its large params lowered to
 * SMALL in the -D line, and compiles it. */
async function exampleSource(name) {
  if (!state.sources.has(name)) {
    const response = await fetch(`../examples/${name}.te`);
    if (!response.ok) throw new Error(`../examples/${name}.te: ${response.status}`);
    state.sources.set(name, await response.text());
  }
  return state.sources.get(name);
}

// An example's -D line: its params over SMALL lowered to SMALL.
function smallDefines(source) {
  const params = [...source.matchAll(/^\s*param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\d+)/gm)];
  return params.filter((m) => Number(m[2]) > SMALL).map((m) => `${m[1]}=${SMALL}`).join(" ");
}

async function load(name) {
  const source = await exampleSource(name);
  $("example").value = name;
  $("editor").value = source;
  $("defines").value = smallDefines(source);
  $("run-result").textContent = "Press Run: random inputs, the GPU's outputs, and the interpreter's verdict.";
  update();
}

/** Marks each example the chosen target cannot compile (at its lowered
 * params) in the menu, with the first error as its tooltip. */
async function markExamples() {
  const target = $("target").value;
  for (const option of $("example").options) {
    if (option.value === "") continue;
    const source = await exampleSource(option.value);
    const result = compile(source, { defines: parseDefines(smallDefines(source)), target });
    option.textContent = result.ok ? option.value : `${option.value} (not for ${target})`;
    option.title = result.ok ? "" : result.diagnostics[0]?.message ?? "";
    option.dataset.compiles = `${result.ok}`;
  }
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

// Stops a Run when it was cancelled while it waited.
function stopIfCancelled() {
  if (state.cancelled) throw Object.assign(new Error("cancelled"), { cancelled: true });
}

// The inputs of a Run: each uploaded .npy under its input's name, the rest
// random (from the worker); and where each came from.
async function inputsOf(compiled, opts) {
  const random = await worker.randomInputs(state.source, opts);
  stopIfCancelled();
  if (!random.ok) throw new Error(random.rendered);
  const given = { ...random.inputs };
  const from = [];
  for (const i of compiled.inputs) {
    if (state.uploads[i.name] !== undefined) {
      given[i.name] = state.uploads[i.name].array;
      from.push(`${i.name} from ${state.uploads[i.name].file}`);
    }
  }
  from.push(from.length === compiled.inputs.length ? "" : `the rest random, seed ${opts.seed}`);
  return { given, from: from.filter((f) => f !== "").join(", ") };
}

// The inputs, the WebGPU run, and the interpreter's verdict on it.
async function runOnce() {
  const compiled = state.compiled;
  if (compiled === null) return null;
  const opts = { ...state.options, seed: Number($("seed").value) || 0 };
  state.cancelled = false;
  $("cancel").disabled = false;
  setStatus("running", "running…");
  try {
    const { given, from } = await inputsOf(compiled, opts);
    const device = await defaultDevice();
    const got = await run(compiled, given, { device });
    stopIfCancelled();
    setStatus("running", "comparing with the interpreter…");
    const verdict = await worker.compare(state.source, given, got.outputs, opts);
    stopIfCancelled();
    if (verdict.outputs === null) throw new Error(verdict.rendered);
    showRun(compiled, got, verdict, device, from);
    setStatus(verdict.ok ? "passed" : "failed", verdict.ok ? "matches the interpreter" : "differs from the interpreter");
    return { example: $("example").value, ok: verdict.ok, complete: verdict.complete,
      compared: verdict.outputs.reduce((n, o) => n + (o.compared ?? 0), 0),
      gpuTimeMs: got.gpuTimeMs, outputs: verdict.outputs, inputs: from };
  } catch (e) {
    if (!e.cancelled) throw e;
    setStatus("cancelled", "cancelled");
    $("run-result").textContent = "Cancelled.";
    return { example: $("example").value, ok: false, cancelled: true };
  } finally {
    $("cancel").disabled = true;
  }
}

// The outputs (their first elements, a plot and a .npy to download), the
// verdict on each, and the run's figures.
function showRun(compiled, got, verdict, device, from) {
  const table = document.createElement("table");
  const head = table.insertRow();
  for (const h of ["output", "GPU (first elements)", "plot", "interpreter's verdict"]) {
    const th = document.createElement("th");
    th.textContent = h;
    head.append(th);
  }
  for (const o of verdict.outputs) {
    const row = table.insertRow();
    const info = compiled.outputs.find((x) => x.name === o.name);
    const array = got.outputs[o.name];
    const name = document.createElement("td");
    name.append(`${o.name}: ${info.elem}[${info.len}] `, download(`out-${o.name}`, toNpy(array, info.elem), `${o.name}.npy`, "application/octet-stream"));
    row.append(name);
    const td = document.createElement("td");
    const code = document.createElement("code");
    code.textContent = preview(array);
    td.append(code);
    row.append(td);
    const chart = document.createElement("td");
    chart.append(plot(array, info.elem));
    row.append(chart);
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
    `adapter ${info.vendor ?? "?"} ${info.architecture ?? ""}; inputs: ${from}.`;
  $("run-result").replaceChildren(table, summary);
}

// Uploaded .npy files, each for the input its name (before `.npy`) names.
async function upload(files) {
  const read = [];
  for (const file of files) {
    const name = file.name.replace(/\.npy$/, "");
    const got = fromNpy(await file.arrayBuffer());
    if (got instanceof Error) throw new Error(`${file.name}: ${got.message}`);
    state.uploads[name] = { ...got, file: file.name };
    read.push(`${name} (${got.elem}[${got.array.length}])`);
  }
  $("uploads").textContent = read.length === 0 ? "" : `uploaded: ${read.join(", ")}`;
}

// The editor's program and settings in the address (see share.js).
async function share() {
  const hash = await encode({ source: $("editor").value, defines: $("defines").value,
    target: $("target").value, schedule: $("schedule").value, seed: $("seed").value });
  history.replaceState(null, "", hash);
  try {
    await navigator.clipboard.writeText(location.href);
    setStatus($("status").dataset.state, "the address is copied");
  } catch {
    // The address bar holds it either way.
  }
  return location.href;
}

// A shared program from the address, if it holds one.
async function restore() {
  const shared = await decode(location.hash);
  if (shared === null) return false;
  if (shared instanceof Error) throw shared;
  $("example").value = "";
  $("editor").value = shared.source;
  $("defines").value = shared.defines ?? "";
  if ([...$("target").options].some((o) => o.value === shared.target)) $("target").value = shared.target;
  if (shared.schedule === "default" || shared.schedule === "heuristic") $("schedule").value = shared.schedule;
  $("seed").value = shared.seed ?? "1";
  update();
  return true;
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

// The editor with line numbers and highlighting (editor.js) where its
// bundle is built (npm/build.sh --install); else the plain textarea.
async function upgradeEditor() {
  try {
    const { mount } = await import("./editor.js");
    mount($("editor"));
  } catch (e) {
    console.warn(`a plain editor: ${e.message ?? e} (npm/build.sh --install bundles CodeMirror)`);
  }
}

async function main() {
  await upgradeEditor();
  await init();
  for (const t of targets()) $("target").add(new Option(t, t));
  $("target").value = "webgpu";
  const names = await (await fetch("examples.json")).json();
  $("example").add(new Option("(shared)", ""));
  for (const n of names) $("example").add(new Option(n, n));
  $("editor").addEventListener("input", scheduleUpdate);
  $("defines").addEventListener("input", scheduleUpdate);
  $("target").addEventListener("change", () => queue(async () => { update(); await markExamples(); }));
  $("schedule").addEventListener("change", update);
  $("example").addEventListener("change", () => {
    if ($("example").value !== "") queue(() => load($("example").value));
  });
  $("run").addEventListener("click", () => queue(async () => {
    clearTimeout(timer);
    update();
    state.lastRun = await runOnce();
    return state.lastRun;
  }));
  $("cancel").addEventListener("click", () => {
    state.cancelled = true;
    worker.cancel();
  });
  $("share").addEventListener("click", () => queue(share));
  $("upload").addEventListener("change", () => queue(() => upload($("upload").files)));
  await markExamples();
  if (!(await restore())) {
    const first = new URLSearchParams(location.search).get("example") ?? (names.includes("softmax") ? "softmax" : names[0]);
    await load(first);
  }
}

// For scripts driving the page (the test suite's): load an example, and
// wait for everything queued, which resolves to the last run's outcome.
window.playground = {
  load: (name) => queue(() => load(name)),
  idle: () => state.busy.then(() => state.lastRun),
  share: () => queue(share),
};
state.busy = main().catch((e) => setStatus("error", `${e.message ?? e}`));
