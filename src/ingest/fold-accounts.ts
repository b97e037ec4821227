/**
 * foldAccounts: account updates (snapshots, replay files, fetches after a block) → a BlockUpdate. Pure.
 * An account's state at slot S is positioned after every transaction of S, so it overrides what those
 * transactions implied and is overridden by anything later.
 *
 * A token account read as gone (no data, no lamports) and reported owned by a token program — the `closedOwner` of a
 * fetch that knew it as a token account (the drift detector) — is closed as a `CloseAccount` instruction closes it:
 * closed, amount 0, both at its position. Other sources never report a missing account owned by a token program.
 */
import type { AccountUpdate } from '../core/model.js';
import { accountPos, emptyUpdate, type BlockUpdate } from '../store/block-update.js';
import { decodeTokenProgramAccount } from '../parsers/accounts/token-program.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../core/programs.js';
import { decodeNameRecord } from '../parsers/accounts/name-service.js';
import { assetAccountRows } from './fold-asset-accounts.js';
import { pythPriceRows } from './fold-prices.js';

/** Supply set from a mint snapshot sorts after every supply change of the same slot. */
const SNAPSHOT_ORD = 2_147_483_647;

export function foldAccounts(updates: AccountUpdate[]): BlockUpdate {
  const u = emptyUpdate(null);
  for (const a of updates) {
    const pos = accountPos(a.slot);
    u.solBalances.push({ address: a.pubkey, lamports: a.lamports, pos });
    const tok = decodeTokenProgramAccount(a);
    if (tok?.kind === 'mint') {
      u.mints.push({
        address: tok.address,
        program: tok.program,
        decimals: tok.decimals,
        mintAuthority: tok.mintAuthority,
        mintAuthorityPos: pos,
        freezeAuthority: tok.freezeAuthority,
        freezeAuthorityPos: pos,
        supplyBase: tok.supply,
        supplyPos: pos,
        supplyOrd: SNAPSHOT_ORD,
      });
      for (const [extension, data] of Object.entries(tok.extensions)) u.tokenExtensions.push({ target: tok.address, extension, data, pos });
    } else if (tok?.kind === 'account') {
      u.tokenAccounts.push({
        address: tok.address,
        mint: tok.mint,
        owner: tok.owner,
        program: tok.program,
        closed: false,
        ownerPos: pos,
        amount: tok.amount,
        amountPos: pos,
        delegate: tok.delegate,
        delegatedAmount: tok.delegate ? tok.delegatedAmount : null,
        delegatePos: pos,
        frozen: tok.state === 'frozen',
        frozenPos: pos,
        closeAuthority: tok.closeAuthority,
        closeAuthorityPos: pos,
      });
      for (const [extension, data] of Object.entries(tok.extensions)) u.tokenExtensions.push({ target: tok.address, extension, data, pos });
    } else if (isClosedTokenAccount(a)) {
      u.tokenAccounts.push({ address: a.pubkey, closed: true, ownerPos: pos, amount: 0n, amountPos: pos });
    }
    const name = decodeNameRecord(a);
    if (name) u.nameRecords.push({ ...name, slot: a.slot, writeVersion: a.writeVersion });
  }
  u.assetAccounts = assetAccountRows(updates);
  u.pythPrices = pythPriceRows(updates);
  return u;
}

/** A token account reported gone: owned by a token program, without data or lamports. */
function isClosedTokenAccount(a: AccountUpdate): boolean {
  return (a.owner === TOKEN_PROGRAM || a.owner === TOKEN_2022_PROGRAM) && a.data.length === 0 && a.lamports === 0n;
}
