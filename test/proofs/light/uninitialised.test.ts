/**
 * Before `initPoseidon()` every hash throws a clear error; initialising prints nothing (the hasher package's
 * wasm-bindgen deprecation warning is avoided, not filtered). Own file: needs a process where Poseidon is not
 * loaded yet.
 */
import { describe, expect, it, vi } from 'vitest';
import { initPoseidon, isPoseidonReady, poseidon } from '../../../src/proofs/light/poseidon.js';
import { zeroHash } from '../../../src/proofs/light/trees.js';

describe('Poseidon before and during initialisation', () => {
  it('throws until initialised, then initialises silently', async () => {
    expect(isPoseidonReady()).toBe(false);
    expect(() => poseidon([1n])).toThrow(/await initPoseidon\(\) first/);
    expect(() => zeroHash(1)).toThrow(/await initPoseidon\(\) first/);
    const warn = vi.spyOn(console, 'warn');
    const log = vi.spyOn(console, 'log');
    const error = vi.spyOn(console, 'error');
    await initPoseidon();
    expect(warn).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    expect(isPoseidonReady()).toBe(true);
    expect(zeroHash(0)).toEqual(new Uint8Array(32));
  });
});
