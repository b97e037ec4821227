/**
 * The demo's named tokens and its Token-2022 NFTs, for the DAS interface:
 *
 * - `DEMO_TOKENS`: the one place the demo's token names and symbols live. The Token-2022 fungible carries its name
 *   and symbol on chain (TokenMetadata extension, written by `demo.ts`); the classic SPL Token mint and the
 *   compressed-token mint (an SPL Token mint) cannot, so the gateway names them through its token registry
 *   (`serve` takes them from `demoTokenOverlay` in src/cli/demo-chain.ts).
 * - A collection and one NFT per wallet, all Token-2022 mints (decimals 0, supply 1, mint authority removed after
 *   the one token is minted) carrying their metadata on the mint (MetadataPointer to itself + TokenMetadata). The
 *   collection is a token group (GroupPointer + TokenGroup) and every NFT a member of it (GroupMemberPointer +
 *   TokenGroupMember). The collection NFT stays with the first wallet; `tick()` moves a member NFT from its holder
 *   to another wallet (the recipient's ATA created idempotently; the emptied one stays, with 0).
 *
 * Built with the @solana-program/token-2022 instruction builders; no Metaplex program is involved (none ships
 * as a binary in a registry package this project can install, so the localnet cannot run them).
 * `state()` (the mints) is saved with a chain snapshot; on resume the holders are read back from the chain.
 */
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import * as t22 from '@solana-program/token-2022';
import type { DemoClient } from './demo-client.js';
import type { DemoLog } from './demo-light.js';

/** Name, symbol and (Token-2022 only) metadata URI of the demo's tokens. `priceUsd`: the registry's demo price. */
export interface DemoTokenName {
  name: string;
  symbol: string;
  uri?: string;
  priceUsd?: number;
}

const URI_BASE = 'https://example.com/solgate-demo';

/** The demo's token names: on chain for the Token-2022 mints, through the registry overlay for the others. */
export const DEMO_TOKENS = {
  /** Classic SPL Token mint: no metadata extension exists there, the overlay names it. */
  splToken: { name: 'Demo Token', symbol: 'DEMO', priceUsd: 2.5 },
  /** Token-2022 fungible: TokenMetadata extension on the mint (the overlay leaves it to the chain). */
  token2022: { name: 'Demo Token-2022', symbol: 'DEMO22', uri: `${URI_BASE}/demo22.json` },
  /** The ZK Compression demo's compressed-token mint (an SPL Token mint): the overlay names it. */
  compressed: { name: 'Demo Compressed Token', symbol: 'ZDEMO' },
  /** The Token-2022 collection (token group) NFT. */
  collection: { name: 'Solgate Demo Collection', symbol: 'SGNFT', uri: `${URI_BASE}/collection.json` },
} as const satisfies Record<string, DemoTokenName>;

/** Name, symbol and URI of the k-th (1-based) demo NFT. */
export function demoNftName(k: number): Required<Omit<DemoTokenName, 'priceUsd'>> {
  return { name: `Solgate Demo NFT #${k}`, symbol: 'SGNFT', uri: `${URI_BASE}/nft-${k}.json` };
}

/** What a saved workload keeps of its NFTs (JSON). */
export interface DemoAssetsState {
  /** The collection (token group) mint. */
  collection: Address;
  /** The member NFT mints, in creation order (#1, #2, …). */
  nfts: Address[];
}

export interface DemoAssetsInfo {
  readonly collection: Address;
  readonly nfts: readonly Address[];
  /** Current holder (wallet address) of each member NFT, as this workload last moved it. */
  holders(): Map<Address, Address>;
  readonly stats: { nftTransfers: number };
}

export interface DemoAssets {
  info: DemoAssetsInfo;
  /** Moves one member NFT to another wallet. */
  tick(): Promise<void>;
  state(): DemoAssetsState;
}

type Send = (payer: KeyPairSigner, instructions: Instruction[]) => Promise<string>;

const NFT_DECIMALS = 0;

/** Name and symbol in a Token-2022 mint's TokenMetadata extension (null: not a mint, or no such extension). */
export function onMintTokenMetadata(data: Uint8Array): { name: string; symbol: string } | null {
  try {
    const ext = t22.getMintDecoder().decode(data).extensions;
    if (ext.__option !== 'Some') return null;
    const md = ext.value.find((e) => e.__kind === 'TokenMetadata');
    return md && md.__kind === 'TokenMetadata' ? { name: md.name, symbol: md.symbol } : null;
  } catch {
    return null;
  }
}

const ataOf = async (owner: Address, mint: Address): Promise<Address> =>
  (await t22.findAssociatedTokenPda({ owner, mint, tokenProgram: t22.TOKEN_2022_PROGRAM_ADDRESS }))[0];

/** Raw token amount of a Token-2022 token account (0 when it does not exist). */
async function amountOf(client: DemoClient, account: Address): Promise<bigint> {
  const a = await client.account(account);
  if (!a || a.data.length < 72) return 0n;
  return new DataView(a.data.buffer, a.data.byteOffset).getBigUint64(64, true);
}

/**
 * Creates a Token-2022 NFT mint with its metadata (and the group or member extensions), mints its one token to
 * `owner` and removes the mint authority, in one transaction.
 */
async function createNft(
  client: DemoClient, send: Send, admin: KeyPairSigner, owner: Address,
  meta: { name: string; symbol: string; uri: string },
  role: { group: bigint } | { memberOf: Address },
): Promise<Address> {
  const mint = await generateKeyPairSigner();
  const fixed = [
    t22.extension('MetadataPointer', { authority: admin.address, metadataAddress: mint.address }),
    'group' in role
      ? t22.extension('GroupPointer', { authority: admin.address, groupAddress: mint.address })
      : t22.extension('GroupMemberPointer', { authority: admin.address, memberAddress: mint.address }),
  ];
  const metadata = t22.extension('TokenMetadata', { updateAuthority: admin.address, mint: mint.address, ...meta, additionalMetadata: new Map() });
  const grouping = 'group' in role
    ? t22.extension('TokenGroup', { updateAuthority: admin.address, mint: mint.address, size: 0n, maxSize: role.group })
    : t22.extension('TokenGroupMember', { mint: mint.address, group: role.memberOf, memberNumber: 0n });
  const ata = await ataOf(owner, mint.address);
  await send(admin, [
    // Rent for the final size (metadata and group data reallocate the mint), space for the fixed-size extensions.
    getCreateAccountInstruction({
      payer: admin, newAccount: mint, lamports: await client.rent(t22.getMintSize([...fixed, metadata, grouping])),
      space: t22.getMintSize(fixed), programAddress: t22.TOKEN_2022_PROGRAM_ADDRESS,
    }),
    ...t22.getPreInitializeInstructionsForMintExtensions(mint.address, fixed),
    t22.getInitializeMintInstruction({ mint: mint.address, decimals: NFT_DECIMALS, mintAuthority: admin.address }),
    ...t22.getPostInitializeInstructionsForMintExtensions(mint.address, admin, [metadata]),
    'group' in role
      ? t22.getInitializeTokenGroupInstruction({ group: mint.address, mint: mint.address, mintAuthority: admin, updateAuthority: admin.address, maxSize: role.group })
      : t22.getInitializeTokenGroupMemberInstruction({ member: mint.address, memberMint: mint.address, memberMintAuthority: admin, group: role.memberOf, groupUpdateAuthority: admin }),
    t22.getCreateAssociatedTokenIdempotentInstruction({ payer: admin, ata, owner, mint: mint.address }),
    t22.getMintToCheckedInstruction({ mint: mint.address, token: ata, mintAuthority: admin, amount: 1n, decimals: NFT_DECIMALS }),
    // Supply fixed at 1: no one can mint another.
    t22.getSetAuthorityInstruction({ owned: mint.address, owner: admin, authorityType: t22.AuthorityType.MintTokens, newAuthority: null }),
  ]);
  return mint.address;
}

/**
 * Sets up the collection and one NFT per wallet (NFT #k to wallet k-1), or continues saved ones (`resume`: their
 * holders read from the chain). The first wallet is the collection's holder and every mint's update authority.
 */
export async function startDemoAssets(
  ctx: { client: DemoClient; send: Send; wallets: KeyPairSigner[]; log: DemoLog },
  resume?: DemoAssetsState,
): Promise<DemoAssets> {
  const { client, send, wallets, log } = ctx;
  const admin = wallets[0];
  const n = wallets.length;
  let collection: Address;
  const nfts: Address[] = [];
  /** Holder of each member NFT, by index into `wallets`. */
  const holder: number[] = [];
  if (resume) {
    collection = resume.collection;
    for (const mint of resume.nfts) {
      let at = -1;
      for (let i = 0; i < n && at < 0; i++) if ((await amountOf(client, await ataOf(wallets[i].address, mint))) === 1n) at = i;
      if (at < 0) throw new Error(`demo: the holder of NFT ${mint} is not a demo wallet`);
      nfts.push(mint);
      holder.push(at);
    }
    log('demo NFTs resumed', { collection, nfts: nfts.length });
  } else {
    collection = await createNft(client, send, admin, admin.address, DEMO_TOKENS.collection, { group: BigInt(Math.max(n, 16)) });
    for (let k = 0; k < n; k++) {
      nfts.push(await createNft(client, send, admin, wallets[k].address, demoNftName(k + 1), { memberOf: collection }));
      holder.push(k);
    }
    log('demo NFTs ready', { collection, nfts });
  }

  const stats = { nftTransfers: 0 };
  const rand = (k: number) => Math.floor(Math.random() * k);
  return {
    info: {
      collection,
      nfts,
      holders: () => new Map(nfts.map((m, k) => [m, wallets[holder[k]].address])),
      stats,
    },
    async tick() {
      if (!nfts.length || n < 2) return;
      const k = rand(nfts.length);
      const i = holder[k];
      const j = (i + 1 + rand(n - 1)) % n;
      const from = wallets[i];
      const mint = nfts[k];
      const source = await ataOf(from.address, mint);
      const destination = await ataOf(wallets[j].address, mint);
      await send(from, [
        t22.getCreateAssociatedTokenIdempotentInstruction({ payer: from, ata: destination, owner: wallets[j].address, mint }),
        t22.getTransferCheckedInstruction({ source, mint, destination, authority: from, amount: 1n, decimals: NFT_DECIMALS }),
      ]);
      holder[k] = j;
      stats.nftTransfers++;
    },
    state: () => ({ collection, nfts: [...nfts] }),
  };
}
