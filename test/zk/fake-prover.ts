/**
 * A real local HTTP server standing in for Light's gnark prover (`POST /prove`): it records every request body and
 * answers a fixed gnark proof — the test vector of Light's stateless.js (`parse-validity-proof.ts`), whose
 * compressed form is known — or an error status.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** stateless.js's prover-server test vector (`TEST_JSON`). */
export const GNARK_PROOF = {
  ar: ['0x22bdaa3187d8fe294925a66fa0165a11bc9e07678fa2fc72402ebfd33d521c69', '0x2d18ff780b69898b4cdd8d7b6ac72d077799399f0f45e52665426456f3903584'],
  bs: [
    ['0x138cc0962e49f76a701d2871d2799892c9782940095eb0429e979f336d2e162d', '0x2fe1bfbb15cbfb83d7e00ace23e45f890604003783eaf34affa35e0d6f4822bc'],
    ['0x1a89264f82cc6e8ef1c696bea0b5803c28c0ba6ab61366bcb71e73a4135cae8d', '0xf778d857b3df01a4100265c9d014ce02d47425f0114685356165fa5ee3f3a26'],
  ],
  krs: ['0x176b6ae9001f66832951e2d43a98a972667447bb1781f534b70cb010270dcdd3', '0xb748d5fac1686db28d94c02250af7eb4f28dfdabc8983305c45bcbc6e163eeb'],
};

/** Its compressed form (stateless.js COMPRESSED_PROOF_A/B/C). */
export const COMPRESSED_PROOF = {
  a: [34, 189, 170, 49, 135, 216, 254, 41, 73, 37, 166, 111, 160, 22, 90, 17, 188, 158, 7, 103, 143, 162, 252, 114, 64, 46, 191, 211, 61, 82, 28, 105],
  b: [
    147, 140, 192, 150, 46, 73, 247, 106, 112, 29, 40, 113, 210, 121, 152, 146, 201, 120, 41, 64, 9, 94, 176, 66, 158, 151, 159, 51, 109, 46, 22, 45, 47, 225, 191,
    187, 21, 203, 251, 131, 215, 224, 10, 206, 35, 228, 95, 137, 6, 4, 0, 55, 131, 234, 243, 74, 255, 163, 94, 13, 111, 72, 34, 188,
  ],
  c: [23, 107, 106, 233, 0, 31, 102, 131, 41, 81, 226, 212, 58, 152, 169, 114, 102, 116, 71, 187, 23, 129, 245, 52, 183, 12, 176, 16, 39, 13, 205, 211],
};

export interface FakeProver {
  url: string;
  requests: { path: string; body: any }[];
  /** The status to answer with (200 by default). */
  status: number;
  close(): Promise<void>;
}

export async function startFakeProver(): Promise<FakeProver> {
  const state: FakeProver = { url: '', requests: [], status: 200, close: async () => {} };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      let parsed: unknown = body;
      try {
        parsed = JSON.parse(body);
      } catch {
        /* recorded as text */
      }
      state.requests.push({ path: req.url ?? '', body: parsed });
      res.writeHead(state.status, { 'content-type': 'application/json' });
      res.end(state.status === 200 ? JSON.stringify(GNARK_PROOF) : JSON.stringify({ error: 'prover failed' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
