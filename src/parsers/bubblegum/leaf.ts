/**
 * Bubblegum's leaf event and asset ids.
 *
 * After changing a leaf, Bubblegum logs the new leaf through the noop program as account-compression
 * `ApplicationData` whose bytes are a Borsh `LeafSchemaEvent { event_type: BubblegumEventType, version: Version,
 * schema: LeafSchema, leaf_hash: [u8; 32] }`. Source:
 * https://github.com/metaplex-foundation/mpl-bubblegum/blob/main/programs/bubblegum/program/src/state/leaf_schema.rs
 * The parts are decoded with the mpl-bubblegum client serializers.
 *
 * The asset id of leaf `n` of tree `t` is the PDA `["asset", t, n as u64 LE]` under Bubblegum. Parsers are
 * synchronous, so it is derived here with `@noble/hashes` sha256 and the synchronous off-curve check of
 * `@solana/kit` instead of the async `getProgramDerivedAddress`.
 */
import {
  BubblegumEventType,
  getBubblegumEventTypeSerializer,
  getLeafSchemaSerializer,
  getVersionSerializer,
  type LeafSchema,
} from '../../vendor/mpl-bubblegum.js';
import { bytes, struct, type Serializer } from '../../vendor/umi-serializers.js';
import { sha256 } from '@noble/hashes/sha256';
import { isOffCurveAddress, type Address as KitAddress } from '../../vendor/solana-kit.js';
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import type { Address } from '../../core/model.js';
import { BUBBLEGUM_PROGRAM } from './instructions.js';
import type { CnftLeaf } from './events.js';

interface RawLeafSchemaEvent {
  eventType: BubblegumEventType;
  version: number;
  schema: LeafSchema;
  leafHash: Uint8Array;
}

let leafEventSerializer: Serializer<RawLeafSchemaEvent, RawLeafSchemaEvent> | null = null;

function serializer(): Serializer<RawLeafSchemaEvent, RawLeafSchemaEvent> {
  leafEventSerializer ??= struct<RawLeafSchemaEvent>([
    ['eventType', getBubblegumEventTypeSerializer()],
    ['version', getVersionSerializer()],
    ['schema', getLeafSchemaSerializer() as unknown as Serializer<LeafSchema, LeafSchema>],
    ['leafHash', bytes({ size: 32 })],
  ]);
  return leafEventSerializer;
}

/** Result of looking at an `ApplicationData` payload under a Bubblegum instruction. */
export type LeafEventResult = { ok: true; leaf: CnftLeaf } | { ok: false; reason: string } | null;

/**
 * Decodes Bubblegum application data. Returns `null` when the payload is not a Bubblegum leaf event (another
 * event type, or data some other program logged), `{ok: false}` when it says it is a leaf event but does not
 * decode. Never throws.
 */
export function decodeLeafEvent(appData: Uint8Array): LeafEventResult {
  if (appData.length === 0 || appData[0] !== BubblegumEventType.LeafSchemaEvent) return null;
  try {
    const ev = serializer().deserialize(appData)[0];
    const s = ev.schema;
    const v2 = s.__kind === 'V2';
    return {
      ok: true,
      leaf: {
        schema: v2 ? 2 : 1,
        assetId: s.id,
        owner: s.owner,
        delegate: s.delegate,
        nonce: s.nonce,
        dataHash: bytesToBase58(s.dataHash),
        creatorHash: bytesToBase58(s.creatorHash),
        collectionHash: v2 ? bytesToBase58(s.collectionHash) : null,
        assetDataHash: v2 ? bytesToBase58(s.assetDataHash) : null,
        flags: v2 ? s.flags : null,
        leafHash: bytesToBase58(ev.leafHash),
      },
    };
  } catch (e) {
    return { ok: false, reason: `Bubblegum leaf event: ${e instanceof Error ? e.message : String(e)}` };
  }
}

const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');
const ASSET_SEED = new TextEncoder().encode('asset');

/**
 * `findProgramAddress(seeds, programId)`, synchronously: the first bump from 255 down whose
 * `sha256(seeds ‖ bump ‖ programId ‖ "ProgramDerivedAddress")` is not an ed25519 point. Throws only if no bump
 * works (practically impossible). Source: https://github.com/anza-xyz/solana-sdk/blob/master/pubkey/src/lib.rs
 */
export function findProgramAddressSync(seeds: readonly Uint8Array[], programId: Address): [Address, number] {
  const program = base58ToBytes(programId);
  for (let bump = 255; bump >= 0; bump--) {
    const h = sha256.create();
    for (const s of seeds) h.update(s);
    h.update(Uint8Array.of(bump)).update(program).update(PDA_MARKER);
    const candidate = bytesToBase58(h.digest());
    if (isOffCurveAddress(candidate as KitAddress)) return [candidate, bump];
  }
  throw new Error('no viable bump seed');
}

/** The asset id of leaf `leafIndex` of `tree`: PDA `["asset", tree, leafIndex u64 LE]` under Bubblegum. */
export function cnftAssetId(tree: Address, leafIndex: number | bigint): Address {
  const nonce = new Uint8Array(8);
  new DataView(nonce.buffer).setBigUint64(0, BigInt(leafIndex), true);
  return findProgramAddressSync([ASSET_SEED, base58ToBytes(tree), nonce], BUBBLEGUM_PROGRAM)[0];
}
