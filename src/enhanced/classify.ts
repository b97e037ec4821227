/**
 * classifyTransaction: a transaction and its parsed events → the enhanced transaction shape (compat-facts §6).
 * Pure and synchronous: no database, network, clock or logger; facts the transaction cannot give (owners of token
 * accounts a meta-less record touches, token standards, symbols) come in through the context.
 *
 * What is classified, the first that applies (failed transactions: UNKNOWN, whatever they invoked):
 *  1. Magic Eden v2 marketplace instructions (marketplaces.ts): NFT_SALE (execute_sale_v2, checked against the
 *     reference's answer for a recorded sale), NFT_LISTING, NFT_CANCEL_LISTING, NFT_BID, NFT_BID_CANCELLED, source
 *     MAGIC_EDEN, with `events.nft`;
 *  2. swaps (swaps.ts): a swap instruction of a known DEX or aggregator (programs.ts: Jupiter v6/v4, Raydium AMM v4 /
 *     CLMM / CPMM, Orca Whirlpool and token-swap v1/v2, Meteora DLMM and pools, Pump.fun, Phoenix, OpenBook v2, Saros,
 *     Lifinity v2, Invariant, Saber, Mercurial) at any invocation depth: SWAP, source the outermost swap program
 *     (JUPITER, RAYDIUM, ORCA; UNKNOWN for programs the TransactionSource enum has no value for), `events.swap` from
 *     the fee payer's balance changes with one `innerSwaps` entry per DEX hop;
 *  3. Bubblegum (compressed NFTs): the COMPRESSED_NFT_* types, CREATE_MERKLE_TREE, DELEGATE_MERKLE_TREE and
 *     DECOMPRESS_NFT, source BUBBLEGUM, with `events.compressed` (also when another program invoked Bubblegum: a cNFT
 *     sold through a marketplace not covered above reads as a cNFT transfer);
 *  4. MPL Core and Token Metadata instructions at any depth (mpl-core.ts, token-metadata.ts): NFT_MINT (with
 *     `events.nft`, saleType MINT; source CANDY_MACHINE_V2/V3 when a Candy Machine invoked it, else METAPLEX; a
 *     fungible token given metadata is not an NFT mint), BURN_NFT, TRANSFER, CREATE_COLLECTION, UPDATE, source
 *     METAPLEX;
 *  5. transactions whose outer instructions only call System, SPL Token, Token-2022, Associated Token Account,
 *     Compute Budget and Memo: BURN, TOKEN_MINT, TRANSFER (source SOLANA_PROGRAM_LIBRARY for tokens,
 *     SYSTEM_PROGRAM for lamports), CLOSE_ACCOUNT, INITIALIZE_ACCOUNT (token account opened), SET_AUTHORITY (with
 *     `events.setAuthority`), APPROVE, REVOKE, FREEZE, THAW — the first that applies, in that order;
 *  6. everything else (other programs at the top level, nothing of note): UNKNOWN, still with its transfers,
 *     balance changes and instructions.
 * Not covered: Tensor (TSWAP, TCOMP) and Magic Eden MMM pools, Metaplex Auction House and other marketplaces,
 * staking, lending, liquidity operations of the DEXes (they stay UNKNOWN with correct transfers); NFT mint prices
 * (`events.nft.amount` is 0 for mints). MPL Core is implemented from its public IDL only: no recorded Core
 * transaction is in the tests.
 */
import { uiAmount } from '../core/encoding.js';
import type { Address, NormalizedTx } from '../core/model.js';
import { ATA_PROGRAM, COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../core/programs.js';
import { walkTransaction } from '../parsers/walk.js';
import { BUBBLEGUM_PROGRAM, parseBubblegumTransaction, type CnftEvent } from '../parsers/bubblegum/index.js';
import type { DomainEvent, TracedInstruction } from '../parsers/events.js';
import { accountData } from './account-data.js';
import { compressedEvents } from './compressed.js';
import { enhancedInstructions } from './instructions.js';
import { marketplaceEvent, type MarketplaceVerdict } from './marketplaces.js';
import { mplCoreOperations } from './mpl-core.js';
import { CANDY_MACHINE_SOURCES } from './programs.js';
import { swapEvent, swapHops } from './swaps.js';
import { mintDecimalsResolver, tokenAccountResolver, type KnownAccounts } from './token-accounts.js';
import { tokenMetadataOperations, type NftOperation } from './token-metadata.js';
import { nativeTransfers, tokenMovements, type TokenMovement, type TokenTransferOptions } from './transfers.js';
import type {
  CompressedNftEvent, EnhancedEvents, EnhancedTransaction, NativeTransfer, NftEvent, SetAuthorityEvent, SwapEvent,
  TokenStandard, TransactionError, TransactionSource, TransactionType,
} from './types.js';

const MEMO_V1_PROGRAM = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';

/** Programs whose presence at the top level does not make a transaction anything but a plain transfer/token one. */
const PLAIN_PROGRAMS: ReadonlySet<string> = new Set([
  SYSTEM_PROGRAM, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, ATA_PROGRAM, COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAM, MEMO_V1_PROGRAM,
]);

const LAMPORTS_PER_SOL = 1_000_000_000;

export interface ClassifyContext extends KnownAccounts {
  /** Bubblegum events of the transaction; parsed from it when absent. */
  cnftEvents?: readonly CnftEvent[];
  /** Token standard of a mint (from Token Metadata); `Fungible` when unknown. */
  tokenStandard?: (mint: Address) => TokenStandard | null;
  /** How to name a mint in descriptions (e.g. its symbol); the mint address when unknown. */
  tokenLabel?: (mint: Address) => string | null;
}

/**
 * The enhanced form of `tx`. `events` are its parsed events (`parseTransaction(tx)`); a failed transaction changed
 * nothing but its fee, so its events and Bubblegum operations are ignored (it keeps its balance changes, i.e. the
 * fee, its instructions and `transactionError`).
 */
/** What classification decides before the per-account and per-instruction listings are rendered. */
interface Analysis {
  failed: boolean;
  err: unknown;
  verdict: Verdict;
  native: NativeTransfer[];
  movements: TokenMovement[];
  events_: EnhancedEvents;
}

function analyse(tx: NormalizedTx, events: readonly DomainEvent[], ctx: ClassifyContext): Analysis {
  const err = tx.meta?.err ?? null;
  const failed = err !== null && err !== undefined;
  const evs = failed ? [] : events;
  const cnft = failed ? [] : (ctx.cnftEvents ?? parseBubblegumTransaction(tx));

  const ixs = walkTransaction(tx);
  const nftOps = failed ? [] : [...mplCoreOperations(ixs), ...tokenMetadataOperations(ixs)];
  // Token standards the transaction's own instructions imply (an edition print, a master edition, a Create's
  // standard, a marketplace sale of a 0-decimal token), used when the context does not know the mint.
  const implied = new Map<Address, TokenStandard>();
  for (const op of nftOps) if (op.tokenStandard && op.type !== 'UPDATE') implied.set(op.mint, op.tokenStandard);
  const impliedStandard = (mint: Address): TokenStandard | null => ctx.tokenStandard?.(mint) ?? implied.get(mint) ?? null;
  const market = failed ? null : marketplaceEvent(tx, ixs, (mint) => impliedStandard(mint) ?? 'NonFungible');
  for (const n of market?.nft.nfts ?? []) if (!implied.has(n.mint)) implied.set(n.mint, n.tokenStandard);

  const resolve = tokenAccountResolver(tx, evs, ctx);
  const transferOpts: TokenTransferOptions = { resolve, mintDecimals: mintDecimalsResolver(tx, evs, ctx), tokenStandard: impliedStandard };
  const movements = tokenMovements(evs, transferOpts);
  const native = nativeTransfers(evs);
  const compressed = compressedEvents(cnft);
  const setAuthority = setAuthorityEvents(evs, ixs);

  const events_: EnhancedEvents = {};
  if (compressed.length) events_.compressed = compressed;
  if (setAuthority.length) events_.setAuthority = setAuthority;

  const label = (mint: Address) => ctx.tokenLabel?.(mint) ?? mint;
  const verdict: Verdict = failed
    ? { type: 'UNKNOWN' as const, source: 'UNKNOWN' as const, description: '' }
    : (marketplaceVerdict(market, label) ??
      swapVerdict(tx, ixs, evs, transferOpts, label) ??
      (compressed.length ? null : nftVerdict(tx, ixs, nftOps, movements, impliedStandard, label)) ??
      classify(tx, ixs, evs, native, movements, compressed, label));
  return { failed, err, verdict, native, movements, events_ };
}

/**
 * Only the `type` of the enhanced form of `tx` (what the Wallet history filter stores for every transaction):
 * the same decision as `classifyTransaction`, without rendering `accountData` and `instructions`.
 */
export function classifyType(tx: NormalizedTx, events: readonly DomainEvent[], ctx: ClassifyContext = {}): TransactionType {
  return classifyTypeAndSwap(tx, events, ctx).type;
}

/**
 * The `type` of the enhanced form of `tx` and, when it is a SWAP, its `events.swap` (what ingestion derives swap
 * prices from): the same decision as `classifyTransaction`, in one pass.
 */
export function classifyTypeAndSwap(tx: NormalizedTx, events: readonly DomainEvent[], ctx: ClassifyContext = {}): { type: TransactionType; swap: SwapEvent | null } {
  if (tx.meta?.err != null) return { type: 'UNKNOWN', swap: null };
  const { verdict } = analyse(tx, events, ctx);
  return { type: verdict.type, swap: verdict.type === 'SWAP' ? (verdict.swap ?? null) : null };
}

export function classifyTransaction(tx: NormalizedTx, events: readonly DomainEvent[], ctx: ClassifyContext = {}): EnhancedTransaction {
  const { failed, err, verdict, native, movements, events_ } = analyse(tx, events, ctx);
  const { type, source, description } = verdict;
  if (verdict.nft) events_.nft = verdict.nft;
  if (verdict.swap) events_.swap = verdict.swap;

  return {
    description,
    type,
    source,
    fee: tx.meta ? Number(tx.meta.fee) : 0,
    feePayer: tx.accountKeys[0] ?? '',
    signature: tx.signature,
    slot: tx.slot,
    timestamp: tx.blockTime ?? 0,
    nativeTransfers: native,
    tokenTransfers: movements.map((m) => m.transfer),
    accountData: accountData(tx),
    transactionError: failed ? (err as TransactionError) : null,
    instructions: enhancedInstructions(tx),
    events: events_,
  };
}

interface Verdict {
  type: TransactionType;
  source: TransactionSource;
  description: string;
  nft?: NftEvent;
  swap?: SwapEvent;
}

function marketplaceVerdict(market: MarketplaceVerdict | null, label: (mint: Address) => string): Verdict | null {
  if (!market) return null;
  const n = market.nft;
  const what = n.nfts.map((x) => label(x.mint)).join(', ') || 'an NFT';
  const on = `on ${market.source}`;
  const description =
    n.type === 'NFT_SALE' ? `${n.seller || 'someone'} sold ${what} to ${n.buyer || 'someone'} for ${sol(BigInt(n.amount))} SOL ${on}.`
    : n.type === 'NFT_LISTING' ? `${n.seller} listed an NFT ${on}.`
    : n.type === 'NFT_CANCEL_LISTING' ? `${n.seller} cancelled a listing ${on}.`
    : n.type === 'NFT_BID' ? `${n.buyer} placed a bid${n.amount ? ` of ${sol(BigInt(n.amount))} SOL` : ''} ${on}.`
    : n.type === 'NFT_BID_CANCELLED' ? `${n.buyer} cancelled a bid ${on}.`
    : '';
  return { type: market.type, source: market.source, description, nft: { ...n, description } };
}

function swapVerdict(
  tx: NormalizedTx,
  ixs: readonly TracedInstruction[],
  events: readonly DomainEvent[],
  opts: TokenTransferOptions,
  label: (mint: Address) => string,
): Verdict | null {
  const hops = swapHops(ixs);
  if (!hops.length) return null;
  const { source, event } = swapEvent(tx, ixs, hops, events, opts);
  const side = (nativeAmount: string | undefined, tokens: SwapEvent['tokenInputs']) => [
    ...(nativeAmount ? [`${sol(BigInt(nativeAmount))} SOL`] : []),
    ...tokens.map((t) => `${uiAmount(BigInt(t.rawTokenAmount.tokenAmount), t.rawTokenAmount.decimals)} ${label(t.mint)}`),
  ].join(' and ');
  const given = side(event.nativeInput?.amount, event.tokenInputs);
  const got = side(event.nativeOutput?.amount, event.tokenOutputs);
  const description = given && got ? `${tx.accountKeys[0]} swapped ${given} for ${got}.` : '';
  return { type: 'SWAP', source, description, swap: event };
}

const NFT_STANDARDS: ReadonlySet<TokenStandard> = new Set(['NonFungible', 'NonFungibleEdition', 'ProgrammableNonFungible']);

/** Token Metadata and MPL Core operations: the first of NFT_MINT, BURN_NFT, TRANSFER, CREATE_COLLECTION, UPDATE. */
function nftVerdict(
  tx: NormalizedTx,
  ixs: readonly TracedInstruction[],
  ops: readonly NftOperation[],
  movements: readonly TokenMovement[],
  standard: (mint: Address) => TokenStandard | null,
  label: (mint: Address) => string,
): Verdict | null {
  const proven = (op: NftOperation) =>
    !op.needsNftProof || ops.some((o) => o.masterEdition && o.mint === op.mint) || NFT_STANDARDS.has(standard(op.mint) ?? 'Fungible');
  const payer = tx.accountKeys[0] ?? '';
  for (const type of ['NFT_MINT', 'BURN_NFT', 'TRANSFER', 'CREATE_COLLECTION', 'UPDATE'] as const) {
    const list = ops.filter((o) => o.type === type && (type !== 'NFT_MINT' || proven(o)));
    if (!list.length) continue;
    const mints = [...new Set(list.map((o) => o.mint))];
    const nfts = mints.map((mint) => ({ mint, tokenStandard: standard(mint) ?? 'UnknownStandard' }));
    const names = mints.map(label).join(', ');
    if (type === 'NFT_MINT') {
      const receiver = (mint: Address) =>
        movements.find((m) => m.kind === 'mint' && m.transfer.mint === mint)?.transfer.toUserAccount ||
        list.find((o) => o.mint === mint)?.newOwner ||
        payer;
      const buyer = receiver(mints[0]);
      const description = `${buyer} minted ${names}.`;
      const source = ixs.map((ix) => CANDY_MACHINE_SOURCES.get(ix.programId)).find((s) => s !== undefined) ?? 'METAPLEX';
      const nft: NftEvent = {
        description, type, source, amount: 0, fee: tx.meta ? Number(tx.meta.fee) : 0, feePayer: payer,
        signature: tx.signature, slot: tx.slot, timestamp: tx.blockTime ?? 0, saleType: 'MINT', buyer, seller: '', staker: '', nfts,
      };
      return { type, source, description, nft };
    }
    const first = list[0];
    const by = first.owner ?? payer;
    const description =
      type === 'BURN_NFT' ? `${by} burned ${names}.`
      : type === 'TRANSFER' ? `${by} transferred ${names}${first.newOwner ? ` to ${first.newOwner}` : ''}.`
      : type === 'CREATE_COLLECTION' ? `${payer} created collection ${names}.`
      : `${by} updated ${names}.`;
    return { type, source: 'METAPLEX', description };
  }
  return null;
}

function classify(
  tx: NormalizedTx,
  ixs: readonly TracedInstruction[],
  events: readonly DomainEvent[],
  native: readonly NativeTransfer[],
  movements: readonly TokenMovement[],
  compressed: readonly CompressedNftEvent[],
  label: (mint: Address) => string,
): Verdict {
  if (compressed.length) {
    const main = compressed.find((c) => c.type !== 'CREATE_MERKLE_TREE') ?? compressed[0];
    return { type: main.type, source: 'BUBBLEGUM', description: compressedDescription(tx, main, compressed.filter((c) => c.type === main.type).length) };
  }
  const outer = ixs.filter((ix) => ix.path.inner === null);
  if (outer.some((ix) => !PLAIN_PROGRAMS.has(ix.programId)) || ixs.some((ix) => ix.programId === BUBBLEGUM_PROGRAM))
    return { type: 'UNKNOWN', source: 'UNKNOWN', description: '' };

  const spl = (type: TransactionType, description = ''): Verdict => ({ type, source: 'SOLANA_PROGRAM_LIBRARY', description });
  const burns = movements.filter((m) => m.kind === 'burn');
  if (burns.length) return spl('BURN', sentences(burns.map((m) => `${who(m.transfer.fromUserAccount, m.transfer.fromTokenAccount)} burned ${m.transfer.tokenAmount} ${label(m.transfer.mint)}.`)));
  const mints = movements.filter((m) => m.kind === 'mint');
  if (mints.length) return spl('TOKEN_MINT', sentences(mints.map((m) => `${tx.accountKeys[0]} minted ${m.transfer.tokenAmount} ${label(m.transfer.mint)} to ${who(m.transfer.toUserAccount, m.transfer.toTokenAccount)}.`)));
  const transfers = movements.filter((m) => m.kind === 'transfer');
  if (transfers.length)
    return spl(
      'TRANSFER',
      sentences(transfers.map((m) => `${who(m.transfer.fromUserAccount, m.transfer.fromTokenAccount)} transferred ${m.transfer.tokenAmount} ${label(m.transfer.mint)} to ${who(m.transfer.toUserAccount, m.transfer.toTokenAccount)}.`)),
    );
  const solTransfers = events.filter((e) => e.kind === 'sol.transfer' && e.lamports > 0n && e.instruction !== 'createAccount' && e.instruction !== 'createAccountWithSeed' && e.instruction !== 'createAccountAllowPrefund');
  if (solTransfers.length)
    return {
      type: 'TRANSFER',
      source: 'SYSTEM_PROGRAM',
      description: sentences(solTransfers.map((e) => (e.kind === 'sol.transfer' ? `${e.from} transferred ${sol(e.lamports)} SOL to ${e.to}.` : ''))),
    };
  const has = (kind: DomainEvent['kind']) => events.some((e) => e.kind === kind);
  if (has('token.closeAccount')) return spl('CLOSE_ACCOUNT', sentences(events.flatMap((e) => (e.kind === 'token.closeAccount' ? [`${tx.accountKeys[0]} closed token account ${e.account}.`] : []))));
  if (has('token.initAccount')) return spl('INITIALIZE_ACCOUNT', sentences(events.flatMap((e) => (e.kind === 'token.initAccount' ? [`${tx.accountKeys[0]} opened a ${e.mint} token account ${e.account} for ${e.owner}.`] : []))));
  if (has('token.setAuthority')) return spl('SET_AUTHORITY');
  if (has('token.approve')) return spl('APPROVE');
  if (has('token.revoke')) return spl('REVOKE');
  if (has('token.freeze')) return spl('FREEZE');
  if (has('token.thaw')) return spl('THAW');
  const source: TransactionSource = events.some((e) => e.kind.startsWith('token.')) ? 'SOLANA_PROGRAM_LIBRARY' : native.length ? 'SYSTEM_PROGRAM' : 'UNKNOWN';
  return { type: 'UNKNOWN', source, description: '' };
}

/** `events.setAuthority` from token SetAuthority instructions; `from` is the instruction's current-authority account. */
function setAuthorityEvents(events: readonly DomainEvent[], ixs: readonly TracedInstruction[]): SetAuthorityEvent[] {
  const out: SetAuthorityEvent[] = [];
  for (const e of events) {
    if (e.kind !== 'token.setAuthority') continue;
    const ix = ixs.find((i) => i.path.outer === e.path.outer && i.path.inner === e.path.inner);
    out.push({
      account: e.target,
      from: ix?.accounts[1] ?? '',
      to: e.newAuthority ?? '',
      instructionIndex: e.path.outer,
      innerInstructionIndex: e.path.inner,
    });
  }
  return out;
}

function compressedDescription(tx: NormalizedTx, c: CompressedNftEvent, count: number): string {
  const asset = c.assetId ?? 'a compressed NFT';
  const many = count > 1 ? ` (and ${count - 1} more)` : '';
  switch (c.type) {
    case 'COMPRESSED_NFT_MINT':
      return `${tx.accountKeys[0]} minted compressed NFT ${asset}${many} to ${c.newLeafOwner ?? 'an unknown owner'}.`;
    case 'COMPRESSED_NFT_TRANSFER':
      return `${c.oldLeafOwner} transferred compressed NFT ${asset}${many} to ${c.newLeafOwner}.`;
    case 'COMPRESSED_NFT_BURN':
      return `${c.oldLeafOwner} burned compressed NFT ${asset}${many}.`;
    case 'CREATE_MERKLE_TREE':
      return `${tx.accountKeys[0]} created Merkle tree ${c.treeId}.`;
    default:
      return '';
  }
}

const who = (user: string, tokenAccount: string) => user || tokenAccount;
const sentences = (list: string[]) => list.join(' ');
/** Lamports as SOL, exact to the lamport (no float rounding in the text). */
function sol(lamports: bigint): string {
  const whole = lamports / BigInt(LAMPORTS_PER_SOL);
  const frac = (lamports % BigInt(LAMPORTS_PER_SOL)).toString().padStart(9, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}
