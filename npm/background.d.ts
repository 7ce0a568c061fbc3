// Types of `texpr/background`: the package's functions in a Web Worker
// (docs/npm.md). Each returns a promise of what the synchronous function
// returns; none rejects.
import type { Checked, Comparison, Compiled, Options, Reported, Vectors } from "./index.js";

export interface Background {
  compile(source: string, options?: Options | null): Promise<Compiled>;
  check(source: string, options?: Options | null): Promise<Checked>;
  randomInputs(source: string, options?: Options | null): Promise<Reported & { inputs: Vectors | null }>;
  evaluate(source: string, inputs: Vectors, options?: Options | null): Promise<Reported & { outputs: Vectors | null }>;
  compare(source: string, inputs: Vectors, outputs: Vectors, options?: Options | null): Promise<Comparison>;
  /** Ends the work in progress: each waiting call resolves with E0709
   * (the next call starts a fresh worker); gives how many there were. */
  cancel(): number;
  /** Whether a call is waiting. */
  busy(): boolean;
}

/** A worker of the package's functions; `workerUrl` is worker.js's
 * address (beside this module unless given: a bundler may need it). */
export function background(workerUrl?: string | URL): Background;
