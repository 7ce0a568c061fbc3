// Types of the npm package `texpr` (docs/npm.md).

/** A vector crossing the API: f32 a Float32Array, i32 an Int32Array,
 * u32 a Uint32Array, f16 a Uint16Array of binary16 bits. */
export type Vector = Float32Array | Int32Array | Uint32Array | Uint16Array;
export type Vectors = Record<string, Vector>;
export type Elem = "f32" | "f16" | "i32" | "u32";

/** Each option is optional (`null` and `undefined` are the default); an
 * unknown one, a value of the wrong type and one out of range are E0701
 * errors naming it. */
export interface Options {
  /** `-D NAME=VALUE` param overrides (integers). */
  defines?: Record<string, number>;
  /** A built-in target's name (see `targets()`; `webgpu` unless given) or a
   * target description's text (`key = value` lines). */
  target?: string;
  /** `heuristic` (the default), `default` (one element per invocation), or a
   * schedule's text (`item: strategy key=value...` lines). */
  schedule?: string;
  /** randomInputs' seed: an integer from 0 to 2^53 - 1 (1 unless given). */
  seed?: number;
  /** The element operations an evaluation may perform: an integer up to
   * 2^53 - 1 (2e8 unless given); more is refused (E0705). */
  maxOps?: number;
  /** The bytes randomInputs, evaluate and compare may hold: an integer up
   * to 2^31 (256 MiB unless given); more is refused (E0705). */
  maxMemory?: number;
}

export interface Label {
  primary: boolean;
  message: string;
  /** UTF-16 offsets into the source (what JavaScript strings index). */
  start: number;
  end: number;
  /** 1-based; the column in characters, as the CLI prints `line:column`. */
  line: number;
  column: number;
  end_line: number;
  end_column: number;
}

export interface Diagnostic {
  severity: "error" | "warning";
  /** E0001-E0999 (docs/language.md lists every code). */
  code: string;
  message: string;
  labels: Label[];
  notes: string[];
}

/** What every function of the compiler and the interpreter returns: none
 * throws, whatever its arguments; failures are coded diagnostics. */
export interface Reported {
  ok: boolean;
  /** The first 20 diagnostics (as many as `texprc` shows). */
  diagnostics: Diagnostic[];
  /** How many more there were, not listed. */
  hidden: number;
  /** The diagnostics as `texprc` prints them (no colour). */
  rendered: string;
}

export interface Param {
  name: string;
  /** After `defines`. */
  value: number;
}

export interface VectorInfo {
  name: string;
  elem: Elem;
  len: number;
}

/** A plan-json document (docs/plan-json.md), version 1. */
export interface Plan {
  format: "texpr-plan";
  version: 1;
  target: string;
  requires: {
    extensions: string[];
    enables: string[];
    subgroup_min_size: number | null;
    limits: Record<string, number | number[]>;
  };
  wgsl: string;
  buffers: {
    id: number;
    name: string;
    role: "input" | "output" | "global" | "scratch" | "constant" | "state" | "step";
    index?: number;
    elem: Elem;
    len: number;
    bytes: number;
    init_bits?: number[];
  }[];
  kernels: {
    entry_point: string;
    workgroup_size: [number, number, number];
    dispatch: [number, number, number];
    workgroup_storage_bytes: number;
    bindings: {
      group: number;
      binding: number;
      buffer: number;
      access: "read" | "read_write";
      step?: Step;
    }[];
  }[];
  loops: { count: number; kernels: [number, number]; within: number | null; step: Step | null }[];
}

export interface Step {
  loop: number;
  next: boolean;
  init: number;
  a: number;
  b: number;
  init_from: { loop: number; a: number; b: number } | null;
}

export interface Compiled extends Reported {
  target: string | null;
  wgsl: string | null;
  plan: Plan | null;
  /** The schedule's text (what `schedule` takes back). */
  schedule: string | null;
  /** The scheduled program as TExpr. */
  scheduled: string | null;
  params: Param[] | null;
  inputs: VectorInfo[] | null;
  outputs: VectorInfo[] | null;
}

export interface Checked extends Reported {
  params: Param[] | null;
  inputs: VectorInfo[] | null;
  outputs: VectorInfo[] | null;
}

export interface OutputComparison {
  name: string;
  ok: boolean;
  compared: number | null;
  unspecified: number | null;
  unbounded: number | null;
  largest_diff: number | null;
  mismatch: {
    index: number;
    got: string;
    want: string;
    diff: number | null;
    tolerance: number;
    count: number;
    text: string;
  } | null;
}

export interface Comparison extends Reported {
  /** Every compared element within its tolerance. */
  ok: boolean;
  /** ...and every element compared (none unspecified or unbounded). */
  complete: boolean;
  outputs: OutputComparison[] | null;
}

export function init(wasm?: string | URL | Response | BufferSource | WebAssembly.Module): Promise<void>;
export function compile(source: string, options?: Options | null): Compiled;
export function check(source: string, options?: Options | null): Checked;
export function evaluate(source: string, inputs: Vectors, options?: Options | null): Reported & { outputs: Vectors | null };
export function randomInputs(source: string, options?: Options | null): Reported & { inputs: Vectors | null };
export function compare(source: string, inputs: Vectors, outputs: Vectors, options?: Options | null): Comparison;
/** The built-in targets' names (throws before `init()`). */
export function targets(): string[];
/** The compiler's version (throws before `init()`). */
export function version(): string;

export { run, defaultDevice, unmet, dispatches, MAX_DISPATCHES, DeviceArray, upload, transfers } from "./run.js";
export type { Device, RunResult, DeviceRunResult, Transfers } from "./run.js";
