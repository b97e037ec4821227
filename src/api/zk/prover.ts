/**
 * The gnark prover (Light's `light-prover`, the server Photon calls at `{PROVER_URL}/prove`) and the data around
 * it, as Photon's src/api/method/get_validity_proof/prover/{prove,helpers,structs}.rs and Light's stateless.js
 * (`proverRequest`, `proofFromJsonStruct`, `negateAndCompressProof`) do:
 *
 * - request: `{circuitType: inclusion | non-inclusion | combined, stateTreeHeight?, addressTreeHeight?,
 *   publicInputHash?, inputCompressedAccounts?: [{root, pathIndex, pathElements, leaf}], newAddresses?: [{root,
 *   value, pathIndex, pathElements, leafLowerRangeValue, leafHigherRangeValue, nextIndex}]}`, values as 0x-prefixed
 *   32-byte big-endian hex; zero heights and empty lists are left out;
 * - `publicInputHash` (V2 heights 32/40, or a combined proof): the two-input Poseidon hash chain of (root, leaf) of
 *   the accounts, of (root, address) of the new addresses, and of both chains when there are both;
 * - response: `{ar: [x, y], bs: [[x0, x1], [y0, y1]], krs: [x, y]}` hex; compressed to `{a: 32, b: 64, c: 32}`
 *   bytes: the x coordinates with the top bit of byte 0 set when y is "negative", A negated first.
 */
import { fetch as undiciFetch } from 'undici';
import { SolgateError } from '../../core/errors.js';
import { base58ToBytes } from '../../core/encoding.js';
import { bytesToBigint, isFieldElement, poseidon } from '../../proofs/light/index.js';
import { validationError } from './errors.js';

/** A proof the prover includes: an account (inclusion) … */
export interface InclusionInput {
  root: string;
  leafIndex: number;
  proof: string[];
  leaf: string;
}

/** … or a new address (non-inclusion). */
export interface NonInclusionInput {
  root: string;
  address: string;
  lowElementLeafIndex: number;
  proof: string[];
  nextIndex: number;
  lowerRangeAddress: string;
  higherRangeAddress: string;
}

/** The JSON body POSTed to `/prove`. */
export interface ProverRequest {
  circuitType: 'inclusion' | 'non-inclusion' | 'combined';
  stateTreeHeight?: number;
  addressTreeHeight?: number;
  publicInputHash?: string;
  inputCompressedAccounts?: { root: string; pathIndex: number; pathElements: string[]; leaf: string }[];
  newAddresses?: {
    root: string;
    value: string;
    pathIndex: number;
    pathElements: string[];
    leafLowerRangeValue: string;
    leafHigherRangeValue: string;
    nextIndex: number;
  }[];
}

/** The prover's answer. */
export interface GnarkProofJson {
  ar: [string, string];
  bs: [[string, string], [string, string]];
  krs: [string, string];
}

/** Photon's `CompressedProof` (bytes as JSON number arrays). */
export interface CompressedProof {
  a: number[];
  b: number[];
  c: number[];
}

/** A gnark prover server. */
export interface ProverClient {
  /** POSTs the request to `/prove` and returns the raw proof. */
  prove(request: ProverRequest): Promise<GnarkProofJson>;
}

/** 0x-prefixed 64-digit hex of a base58 32-byte value. */
export function hex32(b58: string): string {
  return `0x${Buffer.from(base58ToBytes(b58)).toString('hex').padStart(64, '0')}`;
}

/** Light's `create_two_inputs_hash_chain`: P(a0, b0), then P(prev, ai, bi); all zero bytes when empty. */
export function twoInputsHashChain(first: readonly Uint8Array[], second: readonly Uint8Array[]): Uint8Array {
  if (first.length !== second.length) throw new SolgateError('INTERNAL', 'hash chain inputs differ in length');
  if (!first.length) return new Uint8Array(32);
  let chain = poseidon([first[0], second[0]]);
  for (let i = 1; i < first.length; i++) chain = poseidon([chain, first[i], second[i]]);
  return chain;
}

/** Light's `create_hash_chain_from_slice`: v0, then P(prev, vi); all zero bytes when empty. */
export function hashChain(values: readonly Uint8Array[]): Uint8Array {
  if (!values.length) return new Uint8Array(32);
  let chain = values[0];
  for (let i = 1; i < values.length; i++) chain = poseidon([chain, values[i]]);
  return chain;
}

const isZero = (b: Uint8Array) => b.every((x) => x === 0);

function field(b58: string, what: string): Uint8Array {
  const b = base58ToBytes(b58);
  if (!isFieldElement(b)) throw validationError(`${what} ${b58} is not a BN254 field element and cannot be proven`);
  return b;
}

/** Photon's public input hash of a set of proofs. */
export function publicInputHash(accounts: readonly InclusionInput[], addresses: readonly NonInclusionInput[]): Uint8Array {
  const inclusion = twoInputsHashChain(accounts.map((a) => field(a.root, 'Root')), accounts.map((a) => field(a.leaf, 'Account hash')));
  const nonInclusion = twoInputsHashChain(addresses.map((a) => field(a.root, 'Root')), addresses.map((a) => field(a.address, 'Address')));
  if (!isZero(inclusion) && !isZero(nonInclusion)) return twoInputsHashChain([inclusion], [nonInclusion]);
  return isZero(nonInclusion) ? inclusion : nonInclusion;
}

const STATE_V2_HEIGHT = 32;
const ADDRESS_V2_HEIGHT = 40;

/**
 * The prover request for these proofs. Heights must agree within accounts and within addresses (Photon's
 * validation messages).
 */
export function proverRequest(accounts: readonly (InclusionInput & { height: number })[], addresses: readonly (NonInclusionInput & { height: number })[]): ProverRequest {
  const stateTreeHeight = accounts[0]?.height ?? 0;
  const addressTreeHeight = addresses[0]?.height ?? 0;
  if (accounts.some((a) => a.height !== stateTreeHeight)) throw validationError('All state trees for account proofs must have the same height');
  if (addresses.some((a) => a.height !== addressTreeHeight)) throw validationError('All address trees for new address proofs must have the same height');
  if (!accounts.length && !addresses.length) throw validationError('No proofs provided');
  const circuitType = accounts.length && addresses.length ? 'combined' : accounts.length ? 'inclusion' : 'non-inclusion';
  const withHash = stateTreeHeight === STATE_V2_HEIGHT || addressTreeHeight === ADDRESS_V2_HEIGHT || circuitType === 'combined';
  const req: ProverRequest = { circuitType };
  if (stateTreeHeight) req.stateTreeHeight = stateTreeHeight;
  if (addressTreeHeight) req.addressTreeHeight = addressTreeHeight;
  if (withHash) req.publicInputHash = `0x${Buffer.from(publicInputHash(accounts, addresses)).toString('hex')}`;
  if (accounts.length)
    req.inputCompressedAccounts = accounts.map((a) => ({ root: hex32(a.root), pathIndex: a.leafIndex, pathElements: a.proof.map(hex32), leaf: hex32(a.leaf) }));
  if (addresses.length)
    req.newAddresses = addresses.map((a) => ({
      root: hex32(a.root),
      value: hex32(a.address),
      pathIndex: a.lowElementLeafIndex,
      pathElements: a.proof.map(hex32),
      leafLowerRangeValue: hex32(a.lowerRangeAddress),
      leafHigherRangeValue: hex32(a.higherRangeAddress),
      nextIndex: a.nextIndex,
    }));
  return req;
}

/** BN254 scalar field size, as stateless.js compares y coordinates against it. */
const FIELD_SIZE = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

function be32(hex: unknown): Uint8Array {
  if (typeof hex !== 'string' || !/^(0x)?[0-9a-fA-F]{1,64}$/.test(hex)) throw new SolgateError('INTERNAL', 'Prover error: malformed proof coordinate');
  return Uint8Array.from(Buffer.from(hex.replace(/^0x/, '').padStart(64, '0'), 'hex'));
}

const yPositiveG1 = (y: bigint) => y <= FIELD_SIZE - y;
function yPositiveG2(y1: bigint, y2: bigint): boolean {
  const mid = FIELD_SIZE / 2n;
  if (y1 < mid) return true;
  if (y1 > mid) return false;
  return y2 < mid;
}

/** The compressed, A-negated proof of a gnark answer (stateless.js `negateAndCompressProof`). */
export function compressGnarkProof(json: GnarkProofJson): CompressedProof {
  const j = json as unknown as { ar?: unknown[]; bs?: unknown[][]; krs?: unknown[] };
  if (!Array.isArray(j?.ar) || !Array.isArray(j.bs) || !Array.isArray(j.bs[0]) || !Array.isArray(j.bs[1]) || !Array.isArray(j.krs))
    throw new SolgateError('INTERNAL', 'Prover error: the prover answered without ar/bs/krs');
  const a = be32(j.ar[0]);
  const ay = bytesToBigint(be32(j.ar[1]));
  // Negating A flips its y coordinate, so the sign bit is set when the original y is "positive".
  if (yPositiveG1(ay)) a[0] |= 0x80;
  const b = new Uint8Array([...be32(j.bs[0][0]), ...be32(j.bs[0][1])]);
  if (!yPositiveG2(bytesToBigint(be32(j.bs[1][0])), bytesToBigint(be32(j.bs[1][1])))) b[0] |= 0x80;
  const c = be32(j.krs[0]);
  if (!yPositiveG1(bytesToBigint(be32(j.krs[1])))) c[0] |= 0x80;
  return { a: [...a], b: [...b], c: [...c] };
}

/** Options of {@link createProverClient}. */
export interface ProverClientOptions {
  /** Deadline of one proof request (proving takes seconds; default 60 s). */
  timeoutMs?: number;
}

/** A client of the gnark prover server at `url` (`POST {url}/prove`), over undici. */
export function createProverClient(url: string, opts: ProverClientOptions = {}): ProverClient {
  const endpoint = `${url.replace(/\/+$/, '')}/prove`;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return {
    async prove(request) {
      let res;
      try {
        res = await undiciFetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(request),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        throw new SolgateError('INTERNAL', `Prover error: the prover at ${url} could not be reached`, { cause: e });
      }
      const text = await res.text().catch(() => '');
      if (!res.ok) throw new SolgateError('INTERNAL', `Prover error: HTTP ${res.status} ${text.slice(0, 300)}`.trim());
      try {
        return JSON.parse(text) as GnarkProofJson;
      } catch (e) {
        throw new SolgateError('INTERNAL', 'Prover error: the prover answered with invalid JSON', { cause: e });
      }
    },
  };
}

/** The error of a validity proof request when no prover is configured. */
export function noProverError(method: string): SolgateError {
  return new SolgateError(
    'NOT_SUPPORTED',
    `${method} needs a ZK prover, but no prover is configured: set PROVER_URL to a gnark prover server (Light's light-prover). Every other ZK Compression method works without one.`,
  );
}
