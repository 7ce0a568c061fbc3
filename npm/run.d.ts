// Types of `texpr/run`, the package's WebGPU runtime (docs/npm.md); the
// package's root (`texpr`) exports the same.
import type { Compiled, Plan, Vectors } from "./index.js";

export interface RunResult {
  outputs: Vectors;
  /** From timestamp queries around the compute pass; null without `timestamp-query`. */
  gpuTimeMs: number | null;
  /** From submit to the last output read back. */
  wallMs: number;
  dispatches: number;
}

/** A WebGPU `GPUDevice` (typed as an object so that these types need no
 * WebGPU type package; with @webgpu/types, a GPUDevice fits). */
export type Device = object;

/** The most dispatches one run may encode. */
export const MAX_DISPATCHES: number;
/** Runs a compiled program's plan; rejects with an Error naming what failed. */
export function run(compiled: Compiled, inputs: Vectors, options?: { device?: Device }): Promise<RunResult>;
/** The device `run` uses unless given one (requested once). */
export function defaultDevice(): Promise<Device>;
/** What `requires` asks that `device` lacks: one message each. */
export function unmet(requires: Plan["requires"], device: Device): string[];
/** Every dispatch of `plan` in order: `[kernel index, steps of every loop]`. */
export function dispatches(plan: Plan): Generator<[number, number[]]>;
