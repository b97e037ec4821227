/**
 * Table family "wallet activity": per-wallet transfer rows and each wallet's first funding.
 * Transfer rows are keyed by (wallet, tx, movement, direction), so replays add nothing; the funding row only
 * ever moves to an earlier transfer.
 */
import type { Queryable } from './db.js';
import { bulkInsertStatement, run, withCopy, type BulkColumn, type Statement, dedupeBy } from './bulk.js';
import type { FundingRow, WalletTransferRow } from './block-update.js';

/** The columns of a transfer row, for the statement and (in this order) for COPY. */
const TRANSFER_COLUMNS: BulkColumn<WalletTransferRow>[] = [
  { name: 'wallet', type: 'text', get: (r) => r.wallet },
  { name: 'slot', type: 'bigint', get: (r) => r.slot },
  { name: 'tx_index', type: 'int', get: (r) => r.txIndex },
  { name: 'signature', type: 'text', get: (r) => r.signature },
  { name: 'ord', type: 'int', get: (r) => r.ord },
  { name: 'direction', type: 'char', get: (r) => r.direction },
  { name: 'counterparty', type: 'text', get: (r) => r.counterparty },
  { name: 'mint', type: 'text', get: (r) => r.mint },
  { name: 'amount', type: 'numeric', get: (r) => r.amount },
  { name: 'decimals', type: 'smallint', get: (r) => r.decimals },
  { name: 'block_time', type: 'bigint', get: (r) => r.blockTime },
];

/**
 * `fresh`: the rows are taken to be new, a plain INSERT (as `addressLinksStatements` in address-links.ts), also as
 * COPY (`copy`).
 */
export function transfersStatement(rows: WalletTransferRow[], fresh = false): Statement | null {
  const s = bulkInsertStatement('wallet_transfers', TRANSFER_COLUMNS, rows, fresh ? '' : 'ON CONFLICT DO NOTHING');
  return fresh ? withCopy(s, 'wallet_transfers', TRANSFER_COLUMNS, rows) : s;
}

export async function writeTransfers(q: Queryable, rows: WalletTransferRow[]): Promise<void> {
  await run(q, transfersStatement(rows));
}

const earlier = (a: FundingRow, b: FundingRow) =>
  a.slot !== b.slot ? a.slot < b.slot : a.txIndex !== b.txIndex ? a.txIndex < b.txIndex : a.ord < b.ord;

export function fundingStatement(rows: FundingRow[]): Statement | null {
  const uniq = dedupeBy(rows, (r) => r.wallet, earlier);
  return bulkInsertStatement(
    'wallet_funding',
    [
      { name: 'wallet', type: 'text', get: (r: FundingRow) => r.wallet },
      { name: 'funder', type: 'text', get: (r) => r.funder },
      { name: 'lamports', type: 'numeric', get: (r) => r.lamports },
      { name: 'signature', type: 'text', get: (r) => r.signature },
      { name: 'slot', type: 'bigint', get: (r) => r.slot },
      { name: 'tx_index', type: 'int', get: (r) => r.txIndex },
      { name: 'ord', type: 'int', get: (r) => r.ord },
      { name: 'block_time', type: 'bigint', get: (r) => r.blockTime },
    ],
    uniq,
    `ON CONFLICT (wallet) DO UPDATE SET funder = EXCLUDED.funder, lamports = EXCLUDED.lamports,
       signature = EXCLUDED.signature, slot = EXCLUDED.slot, tx_index = EXCLUDED.tx_index, ord = EXCLUDED.ord,
       block_time = EXCLUDED.block_time
     WHERE (EXCLUDED.slot, EXCLUDED.tx_index, EXCLUDED.ord) < (t.slot, t.tx_index, t.ord)`,
  );
}

export async function writeFunding(q: Queryable, rows: FundingRow[]): Promise<void> {
  await run(q, fundingStatement(rows));
}

export interface TransferKey {
  slot: number;
  txIndex: number;
  signature: string;
  ord: number;
  direction: 'i' | 'o';
}

export interface TransferRecord extends TransferKey {
  counterparty: string;
  mint: string;
  amount: bigint;
  decimals: number;
  blockTime: number | null;
}

/** One page of a wallet's transfers, newest first, strictly after the keyset cursor `from`. */
export async function queryTransfers(
  q: Queryable,
  wallet: string,
  limit: number,
  from: TransferKey | null,
  maxSlot: number,
): Promise<TransferRecord[]> {
  const params: unknown[] = [wallet, maxSlot, limit];
  let bound = '';
  if (from) {
    params.push(from.slot, from.txIndex, from.signature, from.ord, from.direction);
    bound = 'AND (slot, tx_index, signature, ord, direction) < ($4, $5, $6, $7, $8)';
  }
  const { rows } = await q.query<{
    slot: number; tx_index: number; signature: string; ord: number; direction: 'i' | 'o';
    counterparty: string; mint: string; amount: string; decimals: number; block_time: number | null;
  }>(
    `SELECT slot, tx_index, signature, ord, direction, counterparty, mint, amount::text AS amount, decimals, block_time
       FROM wallet_transfers WHERE wallet = $1 AND slot <= $2 ${bound}
      ORDER BY slot DESC, tx_index DESC, signature DESC, ord DESC, direction DESC LIMIT $3`,
    params,
  );
  return rows.map((r) => ({
    slot: Number(r.slot),
    txIndex: r.tx_index,
    signature: r.signature,
    ord: r.ord,
    direction: r.direction,
    counterparty: r.counterparty,
    mint: r.mint,
    amount: BigInt(r.amount),
    decimals: r.decimals,
    blockTime: r.block_time == null ? null : Number(r.block_time),
  }));
}

export async function queryFunding(q: Queryable, wallet: string, maxSlot: number): Promise<FundingRow | null> {
  const { rows } = await q.query<{
    wallet: string; funder: string; lamports: string; signature: string; slot: number; tx_index: number; ord: number; block_time: number | null;
  }>(
    `SELECT wallet, funder, lamports::text AS lamports, signature, slot, tx_index, ord, block_time
       FROM wallet_funding WHERE wallet = $1 AND slot <= $2`,
    [wallet, maxSlot],
  );
  if (!rows.length) return null;
  const r = rows[0];
  return {
    wallet: r.wallet,
    funder: r.funder,
    lamports: BigInt(r.lamports),
    signature: r.signature,
    slot: Number(r.slot),
    txIndex: r.tx_index,
    ord: r.ord,
    blockTime: r.block_time == null ? null : Number(r.block_time),
  };
}
