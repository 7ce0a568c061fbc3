// Types of `texpr/run`, the package's WebGPU runtime (docs/npm.md); the
// package's root (`texpr`) exports the same.
import type { Compiled, Elem, Plan, Vector, Vectors } from "./index.js";

export interface RunResult {
  outputs: Vectors;
  /** From timestamp queries around the compute pass; null without `timestamp-query`. */
  gpuTimeMs: number | null;
  /** From submit to the last output read back. */
  wallMs: number;
  dispatches: number;
}

/** A run that kept its outputs on the device (submitted, not waited for). */
export interface DeviceRunResult {
  outputs: Record<string, DeviceArray>;
  gpuTimeMs: null;
  wallMs: null;
  dispatches: number;
}

/** A vector on a device; a run takes it as an input without a copy. */
export class DeviceArray {
  /** Wraps a GPUBuffer of `length` elements, 4 bytes each (f16 bits in the low half). */
  constructor(device: Device, buffer: object, elem: Elem, length: number);
  readonly device: Device;
  readonly elem: Elem;
  readonly length: number;
  /** Its GPUBuffer; throws once destroyed. */
  readonly buffer: object;
  readonly destroyed: boolean;
  /** Its elements on the host (waits for the work that writes it). */
  read(): Promise<Vector>;
  /** Frees its buffer (work already submitted still completes). */
  destroy(): void;
}

/** What crossed between the host and a device so far. */
export interface Transfers {
  uploads: number;
  uploadBytes: number;
  reads: number;
  readBytes: number;
  launches: number;
}

/** A WebGPU `GPUDevice` (typed as an object so that these types need no
 * WebGPU type package; with @webgpu/types, a GPUDevice fits). */
export type Device = object;

/** The most dispatches one run may encode. */
export const MAX_DISPATCHES: number;
/** Runs a compiled program's plan; rejects with an Error naming what failed.
 * Given a device array among its inputs, or `keep: true`, its outputs stay
 * on the device. */
export function run(compiled: Compiled, inputs: Record<string, Vector | DeviceArray>, options: { device?: Device; keep: true }): Promise<DeviceRunResult>;
export function run(compiled: Compiled, inputs: Vectors, options?: { device?: Device; keep?: false }): Promise<RunResult>;
export function run(compiled: Compiled, inputs: Record<string, Vector | DeviceArray>, options?: { device?: Device; keep?: boolean }): Promise<RunResult | DeviceRunResult>;
/** A vector on the device (`elem` from its type unless given; `"f16"` for a Uint16Array of bits). */
export function upload(values: Vector, options?: { elem?: Elem; device?: Device }): Promise<DeviceArray>;
/** What crossed between the host and `device` so far (by this package). */
export function transfers(device: Device): Transfers;
/** The device `run` uses unless given one (requested once). */
export function defaultDevice(): Promise<Device>;
/** What `requires` asks that `device` lacks: one message each. */
export function unmet(requires: Plan["requires"], device: Device): string[];
/** Every dispatch of `plan` in order: `[kernel index, steps of every loop]`. */
export function dispatches(plan: Plan): Generator<[number, number[]]>;
