/**
 * V8 settings for memory-lean processes: `serve --demo` and `serve` on the embedded database (see `src/cli/serve.ts`).
 * Measured on `serve --demo` (embedded database, Light genesis), resident memory after 5 minutes:
 *
 * - `--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering`: WebAssembly stays on V8's baseline compiler. By default hot functions are recompiled by the
 *   optimizing compiler (TurboFan) in background threads; recompiling one very large function — the unrolled
 *   Poseidon permutation of @lightprotocol/hasher.rs (the hasher then), as soon as the ZK Compression code hashes —
 *   took ~150 MB of compiler memory, which V8 frees but glibc keeps in the worker threads' malloc arenas for good.
 *   The project's own Poseidon module (src/proofs/light/poseidon-wasm.ts) runs about 2× slower on baseline code:
 *   nothing the demo notices, but an ingester of a busy cluster would.
 *   (Set at run time, `--liftoff-only` alone is not enough from Node.js 24 on: its implications are only applied
 *   to command-line flags, so the two tiering flags are named as well.)
 * - `--optimize-for-size`: the JavaScript heap grows by smaller steps between full collections (its committed size
 *   went from a 100–160 MB sawtooth to ~70 MB), for more frequent, smaller collections.
 *
 * Set at run time (`v8.setFlagsFromString`), so the processes that want them opt in and nobody has to pass node
 * flags; they are read when they apply (a wasm module's compilation, a heap limit's recomputation). Checked on
 * Node.js 20 and 24.
 */
import { setFlagsFromString } from 'node:v8';

let applied = false;

/** Applies the settings above. Call it before any WebAssembly module is compiled (before the database opens). */
export function preferLowMemory(): void {
  if (applied) return;
  applied = true;
  for (const flag of ['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering', '--optimize-for-size']) setFlagsFromString(flag);
}
