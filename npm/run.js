// The texpr runtime for WebGPU: runs a compiled program's plan
// (docs/plan-json.md) on navigator.gpu, as the test suite's browser driver
// does, and as any host would: pipelines created once per compiled object
// (explicit layouts from the plan's bindings), every buffer created and
// the inputs and constants uploaded, every dispatch in order with its
// loops' step bindings resolved, in one compute pass, and the outputs read
// back. GPU time comes from timestamp queries where the device has them.
//
// Device arrays (`DeviceArray`, made by `upload` or by a run) keep a
// vector on the device: a run given any of them among its inputs binds
// their buffers as they are, submits without waiting and gives its
// outputs as device arrays, so a chain of runs never reads back before its
// end; `read()` brings one to the host (the one step that waits).

import { unmet as unmetWith } from "./webgpu.js";

// Optional features the default device is given where the adapter has them.
const OPTIONAL = ["timestamp-query", "subgroups", "shader-f16"];
// The most dispatches one run may encode (a loop's kernels once per step).
export const MAX_DISPATCHES = 1_000_000;

let shared = null;

/** The device `run` uses unless given one: WebGPU's default limits and
 * the optional features the adapter has of timestamp-query, subgroups and
 * shader-f16. Requested once. */
export function defaultDevice() {
  shared ??= (async () => {
    if (!globalThis.navigator?.gpu) throw new Error("WebGPU is not available (navigator.gpu is missing)");
    const adapter = await navigator.gpu.requestAdapter();
    if (adapter === null) throw new Error("requestAdapter() gave no adapter");
    const requiredFeatures = OPTIONAL.filter((f) => adapter.features.has(f));
    const device = await adapter.requestDevice({ requiredFeatures });
    device.texprAdapterInfo = adapter.info ?? {};
    device.lost.then(() => { shared = null; });
    return device;
  })();
  return shared;
}

/** What `plan.requires` asks that `device` lacks: one message each (empty
 * when the device can run the plan); webgpu.js has the table. */
export function unmet(requires, device) {
  return unmetWith(requires, device, device.texprAdapterInfo ?? device.adapterInfo ?? {});
}

// Per compiled object: the device it was prepared on, and its pipelines.
const prepared = new WeakMap();

async function prepare(device, compiled) {
  const known = prepared.get(compiled);
  if (known !== undefined && known.device === device) return known;
  const plan = compiled.plan;
  if (plan?.format !== "texpr-plan" || plan.version !== 1) {
    throw new Error("not a compiled program: expected compile()'s result with a texpr-plan of version 1");
  }
  const missing = unmet(plan.requires ?? {}, device);
  if (missing.length > 0) throw new Error(`the device cannot run this plan: ${missing.join("; ")}`);
  device.pushErrorScope("validation");
  const module = device.createShaderModule({ code: plan.wgsl, label: "texpr" });
  const scoped = device.popErrorScope();
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === "error");
  const scopedError = await scoped;
  if (errors.length > 0 || scopedError !== null) {
    const text = errors.map((m) => `${m.lineNum}:${m.linePos}: ${m.message}`).join("\n");
    throw new Error(`the browser refused the WGSL: ${text || scopedError.message}`);
  }
  const pipelines = await Promise.all(plan.kernels.map(async (k) => {
    // One bind group layout per group the kernel binds (explicit: "auto"
    // would leave out bindings the browser finds unused).
    const groups = [];
    for (const b of k.bindings) {
      (groups[b.group] ??= []).push({
        binding: b.binding,
        visibility: GPUShaderStage.COMPUTE,
        buffer: { type: b.access === "read_write" ? "storage" : "read-only-storage" },
      });
    }
    const bindGroupLayouts = Array.from(groups, (entries) => device.createBindGroupLayout({ entries: entries ?? [] }));
    const layout = device.createPipelineLayout({ bindGroupLayouts });
    const pipeline = await device.createComputePipelineAsync({ layout, compute: { module, entryPoint: k.entry_point } });
    return { pipeline, bindGroupLayouts };
  }));
  const ready = { device, pipelines };
  prepared.set(compiled, ready);
  return ready;
}

// The buffer a binding names at the loops' current `steps`
// (docs/plan-json.md, "A step object").
function bufferAt(binding, steps) {
  const s = binding.step;
  if (s === undefined || s === null) return binding.buffer;
  const t = steps[s.loop] ?? 0;
  if (s.next) return t % 2 === 0 ? s.a : s.b;
  if (t === 0) {
    if (s.init_from === null || s.init_from === undefined) return s.init;
    return (steps[s.init_from.loop] ?? 0) % 2 === 0 ? s.init_from.a : s.init_from.b;
  }
  return t % 2 === 1 ? s.a : s.b;
}

/** Every dispatch of `plan` in order: `[kernel index, steps of every loop]`. */
export function* dispatches(plan) {
  const loops = plan.loops;
  const steps = loops.map(() => 0);
  const open = [];
  let next = 0;
  for (;;) {
    const l = open.at(-1);
    if (l !== undefined && next >= loops[l].kernels[1]) {
      steps[l] += 1;
      if (steps[l] < loops[l].count) {
        next = loops[l].kernels[0];
      } else {
        steps[l] = 0;
        open.pop();
      }
      continue;
    }
    if (next >= plan.kernels.length) return;
    const inner = open.at(-1) ?? null;
    const starting = loops.findIndex((lp, i) =>
      lp.kernels[0] === next && !open.includes(i) && (lp.within ?? null) === inner);
    if (starting >= 0) {
      const lp = loops[starting];
      if (lp.count === 0 || lp.kernels[0] >= lp.kernels[1]) {
        next = Math.max(lp.kernels[1], next + 1);
      } else {
        steps[starting] = 0;
        open.push(starting);
      }
      continue;
    }
    yield [next++, steps.slice()];
  }
}

const ELEMS = { f32: Float32Array, i32: Int32Array, u32: Uint32Array, f16: Uint16Array };
const STORAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

// What crossed between the host and each device (`transfers`).
const counts = new WeakMap();
function counted(device) {
  let c = counts.get(device);
  if (c === undefined) {
    c = { uploads: 0, uploadBytes: 0, reads: 0, readBytes: 0, launches: 0 };
    counts.set(device, c);
  }
  return c;
}

function uploaded(device, bytes) {
  const c = counted(device);
  c.uploads += 1;
  c.uploadBytes += bytes;
}

function readBack(device, bytes) {
  const c = counted(device);
  c.reads += 1;
  c.readBytes += bytes;
}

/** What crossed between the host and `device` so far (by this module):
 * `{uploads, uploadBytes, reads, readBytes, launches}`. */
export function transfers(device) {
  return { ...counted(device) };
}

/** A vector on a device: `elem`, `length`, `device`; `read()` resolves to
 * its elements on the host; `destroy()` frees it. Made by `upload` and by
 * `run` (given a device array among its inputs, or `keep: true`). */
export class DeviceArray {
  #buffer;
  constructor(device, buffer, elem, length) {
    this.device = device;
    this.#buffer = buffer;
    this.elem = elem;
    this.length = length;
    Object.freeze(this);
  }

  /** Its GPUBuffer (4 bytes an element, f16 bits in the low half); throws
   * once destroyed. */
  get buffer() {
    if (this.#buffer === null) throw new Error(`a destroyed device array (${this.elem}[${this.length}])`);
    return this.#buffer;
  }

  get destroyed() {
    return this.#buffer === null;
  }

  /** Its elements as a new TypedArray of its element type (waits for the
   * work that writes it). */
  async read() {
    const device = this.device;
    const bytes = Math.max(4, this.length * 4);
    const staging = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    try {
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(this.buffer, 0, staging, 0, bytes);
      device.queue.submit([encoder.finish()]);
      await staging.mapAsync(GPUMapMode.READ);
      const w = new Uint32Array(staging.getMappedRange().slice(0, this.length * 4));
      staging.unmap();
      readBack(device, this.length * 4);
      return fromWords(this.elem, w);
    } finally {
      staging.destroy();
    }
  }

  /** Frees its buffer (work already submitted still completes). */
  destroy() {
    this.#buffer?.destroy();
    this.#buffer = null;
  }
}

/** `values` (a Float32Array, Int32Array or Uint32Array, or a Uint16Array of
 * f16 bits with `elem: "f16"`) as a device array. Options: `elem` (else
 * from the array's type), `device` (else defaultDevice()). */
export async function upload(values, options = {}) {
  const device = options.device ?? (await defaultDevice());
  const elem = options.elem ?? Object.keys(ELEMS).find((e) => e !== "f16" && values instanceof ELEMS[e]);
  if (elem === undefined) throw new Error("upload takes a Float32Array, Int32Array or Uint32Array (a Uint16Array with elem: \"f16\")");
  const w = words(elem, values, "the array uploaded");
  const buffer = device.createBuffer({ size: Math.max(4, w.byteLength), usage: STORAGE(), label: "texpr array" });
  device.queue.writeBuffer(buffer, 0, w);
  uploaded(device, w.byteLength);
  return new DeviceArray(device, buffer, elem, w.length);
}

// A vector's 32-bit words as the plan's buffers hold them: 4 bytes an
// element, f16 bits in the low half.
function words(elem, array, name) {
  const want = ELEMS[elem];
  if (want === undefined) throw new Error(`\`${name}\`: an element type this runtime does not know: ${elem}`);
  if (!(array instanceof want)) throw new Error(`\`${name}\` is ${elem}: give a ${want.name}`);
  if (elem === "f16") return Uint32Array.from(array);
  return new Uint32Array(array.buffer, array.byteOffset, array.length);
}

function fromWords(elem, w) {
  switch (elem) {
    case "f32": return new Float32Array(w.buffer, w.byteOffset, w.length);
    case "i32": return new Int32Array(w.buffer, w.byteOffset, w.length);
    case "f16": return Uint16Array.from(w, (x) => x & 0xffff);
    default: return w;
  }
}

// A device array given for the plan's input `b`, checked.
function bound(device, b, a) {
  if (a.destroyed) throw new Error(`the input \`${b.name}\` is a destroyed device array`);
  if (a.device !== device) throw new Error(`the input \`${b.name}\` is a device array of another device`);
  if (a.elem !== b.elem || a.length !== b.len) {
    throw new Error(`the input \`${b.name}\` is ${b.elem}[${b.len}], but a device array of ${a.elem}[${a.length}] was given`);
  }
  return a.buffer;
}

/**
 * Runs `compiled` (compile()'s result) on `inputs` ({name: TypedArray or
 * DeviceArray}, one per program input, of its element type and length: f32
 * a Float32Array, i32 an Int32Array, u32 a Uint32Array, f16 a Uint16Array
 * of bits). Options: `device` (else defaultDevice(), or the device of the
 * device arrays given), `keep` (give the outputs as device arrays).
 * Resolves to `{outputs, gpuTimeMs, wallMs, dispatches}`.
 * - With a device array among the inputs, or `keep: true`, the run is
 *   submitted without waiting and `outputs` are DeviceArrays;
 *   `gpuTimeMs` and `wallMs` are null (nothing was waited for).
 * - Else `outputs` are TypedArrays read back; `gpuTimeMs` from timestamp
 *   queries around the compute pass (`null` where the device lacks
 *   `timestamp-query`), `wallMs` from submit to read back.
 * Throws an Error saying what went wrong (the device lacks what the plan
 * requires, an input missing or of the wrong type, a validation error).
 */
export async function run(compiled, inputs, options = {}) {
  const arrays = Object.values(inputs ?? {}).filter((v) => v instanceof DeviceArray);
  const device = options.device ?? arrays[0]?.device ?? (await defaultDevice());
  const keep = options.keep === true || arrays.length > 0;
  const { pipelines } = await prepare(device, compiled);
  const plan = compiled.plan;
  const given = new Set(Object.keys(inputs ?? {}));
  const usage = STORAGE();
  device.pushErrorScope("validation");
  const made = [];
  const kept = [];
  try {
    const buffers = plan.buffers.map((b) => {
      if (b.role === "input" && inputs[b.name] instanceof DeviceArray) {
        given.delete(b.name);
        return bound(device, b, inputs[b.name]);
      }
      const buffer = device.createBuffer({ size: Math.max(4, b.bytes), usage, label: b.name });
      (keep && b.role === "output" ? kept : made).push(buffer);
      if (b.role === "input") {
        if (!given.has(b.name)) throw new Error(`no value for the input \`${b.name}\` (${b.elem}[${b.len}])`);
        given.delete(b.name);
        const w = words(b.elem, inputs[b.name], b.name);
        if (w.length !== b.len) throw new Error(`the input \`${b.name}\` is ${b.elem}[${b.len}], but ${w.length} elements were given`);
        device.queue.writeBuffer(buffer, 0, w);
        uploaded(device, w.byteLength);
      } else if (b.role === "constant" && b.init_bits.length > 0) {
        device.queue.writeBuffer(buffer, 0, new Uint32Array(b.init_bits));
      }
      return buffer;
    });
    if (given.size > 0) throw new Error(`the program has no input ${[...given].map((n) => `\`${n}\``).join(", ")}`);
    const timed = !keep && device.features.has("timestamp-query");
    const querySet = timed ? device.createQuerySet({ type: "timestamp", count: 2 }) : null;
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass(timed
      ? { timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } }
      : {});
    const groups = new Map();
    let n = 0;
    for (const [k, steps] of dispatches(plan)) {
      if (++n > MAX_DISPATCHES) throw new Error(`the plan takes more than ${MAX_DISPATCHES} dispatches`);
      const kernel = plan.kernels[k];
      const { pipeline, bindGroupLayouts } = pipelines[k];
      const chosen = kernel.bindings.map((b) => bufferAt(b, steps));
      const key = `${k}:${chosen.join(",")}`;
      let bound = groups.get(key);
      if (bound === undefined) {
        bound = bindGroupLayouts.map((layout, g) => device.createBindGroup({
          layout,
          entries: kernel.bindings.flatMap((b, i) =>
            b.group === g ? [{ binding: b.binding, resource: { buffer: buffers[chosen[i]] } }] : []),
        }));
        groups.set(key, bound);
      }
      pass.setPipeline(pipeline);
      bound.forEach((group, g) => pass.setBindGroup(g, group));
      pass.dispatchWorkgroups(...kernel.dispatch);
    }
    pass.end();
    counted(device).launches += 1;
    const outs = plan.buffers.filter((b) => b.role === "output").sort((a, b) => a.index - b.index);
    if (keep) {
      device.queue.submit([encoder.finish()]);
      const outputs = Object.fromEntries(outs.map((b) => [b.name, new DeviceArray(device, buffers[b.id], b.elem, b.len)]));
      kept.length = 0;
      return { outputs, gpuTimeMs: null, wallMs: null, dispatches: n };
    }
    let times = null;
    if (timed) {
      const resolved = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      times = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      made.push(resolved, times);
      encoder.resolveQuerySet(querySet, 0, 2, resolved, 0);
      encoder.copyBufferToBuffer(resolved, 0, times, 0, 16);
    }
    const reads = outs.map((b) => {
      const read = device.createBuffer({ size: Math.max(4, b.bytes), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      made.push(read);
      encoder.copyBufferToBuffer(buffers[b.id], 0, read, 0, Math.max(4, b.bytes));
      return [b, read];
    });
    const start = performance.now();
    device.queue.submit([encoder.finish()]);
    const outputs = {};
    for (const [b, read] of reads) {
      await read.mapAsync(GPUMapMode.READ);
      outputs[b.name] = fromWords(b.elem, new Uint32Array(read.getMappedRange().slice(0, b.bytes)));
      read.unmap();
      readBack(device, b.bytes);
    }
    const wallMs = performance.now() - start;
    let gpuTimeMs = null;
    if (times !== null) {
      await times.mapAsync(GPUMapMode.READ);
      const [t0, t1] = new BigInt64Array(times.getMappedRange());
      gpuTimeMs = Number(t1 - t0) / 1e6;
      times.unmap();
    }
    querySet?.destroy();
    return { outputs, gpuTimeMs, wallMs, dispatches: n };
  } finally {
    // Buffers of outputs not given out (a run that failed), and every
    // buffer of the run's own (work submitted with them still completes).
    for (const b of [...made, ...kept]) b.destroy();
    const error = await device.popErrorScope();
    if (error !== null) throw new Error(`WebGPU validation: ${error.message}`);
  }
}
