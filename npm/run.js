// The texpr runtime for WebGPU: runs a compiled program's plan
// (docs/plan-json.md) on navigator.gpu, as the test suite's browser driver
// does, and as any host would: pipelines created once per compiled object
// (explicit layouts from the plan's bindings), every buffer created and
// the inputs and constants uploaded, every dispatch in order with its
// loops' step bindings resolved, in one compute pass, and the outputs read
// back. GPU time comes from timestamp queries where the device has them.

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

// A vector's 32-bit words as the plan's buffers hold them: 4 bytes an
// element, f16 bits in the low half.
function words(elem, array, name) {
  const want = { f32: Float32Array, i32: Int32Array, u32: Uint32Array, f16: Uint16Array }[elem];
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

/**
 * Runs `compiled` (compile()'s result) on `inputs` ({name: TypedArray},
 * one per program input, of its element type and length: f32 a
 * Float32Array, i32 an Int32Array, u32 a Uint32Array, f16 a Uint16Array of
 * bits). Options: `device` (else defaultDevice()). Resolves to
 * `{outputs: {name: TypedArray}, gpuTimeMs, wallMs, dispatches}`:
 * `gpuTimeMs` from timestamp queries around the compute pass, `null` where
 * the device lacks `timestamp-query`; `wallMs` from submit to read back.
 * Throws an Error saying what went wrong (the device lacks what the plan
 * requires, an input missing or of the wrong type, a validation error).
 */
export async function run(compiled, inputs, options = {}) {
  const device = options.device ?? (await defaultDevice());
  const { pipelines } = await prepare(device, compiled);
  const plan = compiled.plan;
  const given = new Set(Object.keys(inputs ?? {}));
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  device.pushErrorScope("validation");
  const made = [];
  try {
    const buffers = plan.buffers.map((b) => {
      const buffer = device.createBuffer({ size: Math.max(4, b.bytes), usage, label: b.name });
      made.push(buffer);
      if (b.role === "input") {
        if (!given.has(b.name)) throw new Error(`no value for the input \`${b.name}\` (${b.elem}[${b.len}])`);
        given.delete(b.name);
        const w = words(b.elem, inputs[b.name], b.name);
        if (w.length !== b.len) throw new Error(`the input \`${b.name}\` is ${b.elem}[${b.len}], but ${w.length} elements were given`);
        device.queue.writeBuffer(buffer, 0, w);
      } else if (b.role === "constant" && b.init_bits.length > 0) {
        device.queue.writeBuffer(buffer, 0, new Uint32Array(b.init_bits));
      }
      return buffer;
    });
    if (given.size > 0) throw new Error(`the program has no input ${[...given].map((n) => `\`${n}\``).join(", ")}`);
    const timed = device.features.has("timestamp-query");
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
    let times = null;
    if (timed) {
      const resolved = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      times = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      made.push(resolved, times);
      encoder.resolveQuerySet(querySet, 0, 2, resolved, 0);
      encoder.copyBufferToBuffer(resolved, 0, times, 0, 16);
    }
    const outs = plan.buffers.filter((b) => b.role === "output").sort((a, b) => a.index - b.index);
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
    for (const b of made) b.destroy();
    const error = await device.popErrorScope();
    if (error !== null) throw new Error(`WebGPU validation: ${error.message}`);
  }
}
