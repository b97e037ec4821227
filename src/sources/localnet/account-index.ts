/**
 * In-memory secondary indexes over the localnet's accounts, the equivalent of a validator's
 * `--account-index program-id spl-token-owner spl-token-mint` (and a delegate index): program → accounts, and for
 * SPL Token / Token-2022 token accounts, owner → accounts, delegate → accounts, mint → accounts.
 *
 * LiteSVM keeps accounts in a hash map with no owner index; its `getProgramAccounts` walks every account. The chain
 * reports each account a transaction could have written (its writable keys, after execution) through `update()`, so
 * the indexes stay exact without scanning. A program's set is built on its first query with one native walk
 * (genesis, loaded programs and snapshot-restored accounts included) and kept current from then on; the token
 * indexes are built once when the index is created. Only addresses are kept: the accounts are read from the chain
 * when a query is answered.
 */
import { address as toAddress } from '@solana/kit';
import type { LiteSVM } from 'litesvm';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../core/programs.js';
import { bytesToBase58 } from '../../core/encoding.js';
import { isTokenAccountData } from './token-parse.js';
import type { LocalAccount } from './types.js';

/** The one full walk LiteSVM offers: every account owned by `program` (of the instance `svm()` returns now). */
export function programScanner(svm: () => LiteSVM): (program: string) => [string, LocalAccount][] {
  return (program) =>
    svm().getProgramAccounts(toAddress(program)).map((a) => [
      a.address, { lamports: BigInt(a.lamports), data: a.data as Uint8Array, owner: a.programAddress, executable: a.executable },
    ]);
}

/** Token-account fields the secondary indexes are keyed by. */
interface TokenKeys {
  owner: string;
  mint: string;
  delegate: string | null;
}

function tokenKeys(acc: LocalAccount): TokenKeys | null {
  if (acc.owner !== TOKEN_PROGRAM && acc.owner !== TOKEN_2022_PROGRAM) return null;
  const d = acc.data;
  if (!isTokenAccountData(d)) return null;
  const hasDelegate = d[72] === 1 && d[73] === 0 && d[74] === 0 && d[75] === 0;
  return {
    mint: bytesToBase58(d.subarray(0, 32)),
    owner: bytesToBase58(d.subarray(32, 64)),
    delegate: hasDelegate ? bytesToBase58(d.subarray(76, 108)) : null,
  };
}

function addTo(map: Map<string, Set<string>>, key: string, address: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(address);
}

function removeFrom(map: Map<string, Set<string>>, key: string, address: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(address);
  if (set.size === 0) map.delete(key);
}

export class AccountIndex {
  /** Program → addresses, for the programs queried so far (each complete from its first query on). */
  private readonly byProgram = new Map<string, Set<string>>();
  /** Address → owner program, for every address held in `byProgram`. */
  private readonly programOf = new Map<string, string>();
  private readonly tokens = new Map<string, TokenKeys>();
  private readonly byTokenOwner = new Map<string, Set<string>>();
  private readonly byDelegate = new Map<string, Set<string>>();
  private readonly byMint = new Map<string, Set<string>>();

  /** `scan(program)` walks every account the chain holds once and returns those owned by `program`. */
  constructor(private readonly scan: (program: string) => [string, LocalAccount][]) {
    for (const program of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
      for (const [address, acc] of this.seed(program)) this.indexToken(address, tokenKeys(acc));
    }
  }

  private seed(program: string): [string, LocalAccount][] {
    const found = this.scan(program).filter(([, acc]) => acc.lamports > 0n);
    const set = new Set<string>();
    for (const [address] of found) {
      set.add(address);
      this.programOf.set(address, program);
    }
    this.byProgram.set(program, set);
    return found;
  }

  /** Records the state of `address` after a write (`null`: the account no longer exists). */
  update(address: string, acc: LocalAccount | null): void {
    const live = acc && acc.lamports > 0n ? acc : null;
    const before = this.programOf.get(address);
    const now = live?.owner;
    if (before !== now) {
      if (before !== undefined) {
        this.byProgram.get(before)?.delete(address);
        this.programOf.delete(address);
      }
      const set = now === undefined ? undefined : this.byProgram.get(now);
      if (set) {
        set.add(address);
        this.programOf.set(address, now!);
      }
    }
    this.indexToken(address, live ? tokenKeys(live) : null);
  }

  private indexToken(address: string, keys: TokenKeys | null): void {
    const old = this.tokens.get(address);
    if (old && keys && old.owner === keys.owner && old.mint === keys.mint && old.delegate === keys.delegate) return;
    if (old) {
      removeFrom(this.byTokenOwner, old.owner, address);
      removeFrom(this.byMint, old.mint, address);
      if (old.delegate) removeFrom(this.byDelegate, old.delegate, address);
      this.tokens.delete(address);
    }
    if (keys) {
      this.tokens.set(address, keys);
      addTo(this.byTokenOwner, keys.owner, address);
      addTo(this.byMint, keys.mint, address);
      if (keys.delegate) addTo(this.byDelegate, keys.delegate, address);
    }
  }

  /** Addresses of the accounts owned by `program` (unordered). */
  programAccounts(program: string): string[] {
    const set = this.byProgram.get(program);
    return set ? [...set] : this.seed(program).map(([address]) => address);
  }

  /** Initialized token accounts (both token programs) whose owner field is `owner`. */
  tokenAccountsByOwner(owner: string): string[] {
    return [...(this.byTokenOwner.get(owner) ?? [])];
  }

  /** Initialized token accounts whose delegate is `delegate`. */
  tokenAccountsByDelegate(delegate: string): string[] {
    return [...(this.byDelegate.get(delegate) ?? [])];
  }

  /** Initialized token accounts of `mint`. */
  tokenAccountsByMint(mint: string): string[] {
    return [...(this.byMint.get(mint) ?? [])];
  }
}
