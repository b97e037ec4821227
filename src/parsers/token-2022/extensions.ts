/**
 * Token-2022 extension instructions (discriminators 25+, the two-byte `[extension, sub-instruction]` families, and
 * the 8-byte-hash token-metadata / token-group interface instructions Token-2022 executes itself) mapped to
 * `token.extension` events with JSON-safe decoded data.
 *
 * Layouts: https://github.com/solana-program/token-2022/tree/main/interface/src/extension (one `instruction.rs`
 * per extension), https://github.com/solana-program/token-metadata/blob/main/interface/src/instruction.rs and
 * https://github.com/solana-program/token-group/blob/main/interface/src/instruction.rs; decoded by the
 * Codama-generated `@solana-program/token-2022` client.
 */
import {
  AccountState,
  ExtensionType,
  type ParsedToken2022Instruction,
  Token2022Instruction as I,
} from '../../vendor/solana-program-token-2022.js';
import type { Address } from '../../core/model.js';
import { jsonData, lowerFirst, optAddress } from '../common.js';
import type { DomainEvent, TracedInstruction } from '../events.js';

type Parsed = ParsedToken2022Instruction<string>;

/** [extension, action] of the instructions whose event is "decoded data of the first account's extension". */
const SIMPLE: Partial<Record<I, readonly [string, string]>> = {
  [I.InitializeImmutableOwner]: ['immutableOwner', 'initialize'],
  [I.InitializeMintCloseAuthority]: ['mintCloseAuthority', 'initialize'],
  [I.InitializeTransferFeeConfig]: ['transferFeeConfig', 'initialize'],
  [I.SetTransferFee]: ['transferFeeConfig', 'setTransferFee'],
  [I.EnableMemoTransfers]: ['memoTransfer', 'enable'],
  [I.DisableMemoTransfers]: ['memoTransfer', 'disable'],
  [I.InitializeNonTransferableMint]: ['nonTransferable', 'initialize'],
  [I.InitializeInterestBearingMint]: ['interestBearingConfig', 'initialize'],
  [I.UpdateRateInterestBearingMint]: ['interestBearingConfig', 'updateRate'],
  [I.EnableCpiGuard]: ['cpiGuard', 'enable'],
  [I.DisableCpiGuard]: ['cpiGuard', 'disable'],
  [I.InitializePermanentDelegate]: ['permanentDelegate', 'initialize'],
  [I.InitializeTransferHook]: ['transferHook', 'initialize'],
  [I.UpdateTransferHook]: ['transferHook', 'update'],
  [I.InitializeMetadataPointer]: ['metadataPointer', 'initialize'],
  [I.UpdateMetadataPointer]: ['metadataPointer', 'update'],
  [I.InitializeGroupPointer]: ['groupPointer', 'initialize'],
  [I.UpdateGroupPointer]: ['groupPointer', 'update'],
  [I.InitializeGroupMemberPointer]: ['groupMemberPointer', 'initialize'],
  [I.UpdateGroupMemberPointer]: ['groupMemberPointer', 'update'],
  [I.InitializeScaledUiAmountMint]: ['scaledUiAmountConfig', 'initialize'],
  [I.UpdateMultiplierScaledUiMint]: ['scaledUiAmountConfig', 'updateMultiplier'],
  [I.InitializePausableConfig]: ['pausableConfig', 'initialize'],
  [I.Pause]: ['pausableConfig', 'pause'],
  [I.Resume]: ['pausableConfig', 'resume'],
  [I.UpdateTokenMetadataUpdateAuthority]: ['tokenMetadata', 'updateAuthority'],
  [I.RemoveTokenMetadataKey]: ['tokenMetadata', 'removeKey'],
  [I.UpdateTokenGroupMaxSize]: ['tokenGroup', 'updateMaxSize'],
  [I.UpdateTokenGroupUpdateAuthority]: ['tokenGroup', 'updateAuthority'],
  [I.InitializePermissionedBurn]: ['permissionedBurn', 'initialize'],
};

/** Confidential-transfer families: recorded by instruction name only (their data is ciphertexts and proofs). */
function confidentialFamily(t: I): string | null {
  if (t >= I.InitializeConfidentialTransferMint && t <= I.ConfigureConfidentialTransferAccountWithRegistry) {
    return 'confidentialTransfer';
  }
  if (t >= I.InitializeConfidentialTransferFee && t <= I.DisableHarvestToMint) return 'confidentialTransferFee';
  if (t >= I.InitializeConfidentialMintBurn && t <= I.ApplyConfidentialPendingBurn) return 'confidentialMintBurn';
  if (t === I.PermissionedConfidentialBurn) return 'permissionedBurn';
  return null;
}

/**
 * Events for a decoded Token-2022 instruction outside the shared base set (plus `initializeImmutableOwner`, which
 * is a base-set number but a Token-2022 extension). Read-only or lamport-only instructions
 * (`emitTokenMetadata`, `withdrawExcessLamports`, `unwrapLamports`) yield nothing; `Batch` is handled by the caller.
 */
export function extensionEvents(ix: TracedInstruction, p: Parsed): DomainEvent[] {
  const program = ix.programId;
  const path = ix.path;
  const target = ix.accounts[0];
  const ext = (extension: string, action: string, data: Record<string, unknown>, on: Address = target): DomainEvent => ({
    kind: 'token.extension',
    path,
    program,
    target: on,
    extension,
    action,
    data,
  });

  const simple = SIMPLE[p.instructionType];
  if (simple) return [ext(simple[0], simple[1], 'data' in p ? jsonData(p.data) : {})];
  const family = confidentialFamily(p.instructionType);
  if (family) return [ext(family, lowerFirst(I[p.instructionType]), {})];

  switch (p.instructionType) {
    case I.TransferCheckedWithFee: {
      const { source, mint, destination, authority } = p.accounts;
      const { amount, decimals, fee } = p.data;
      return [
        {
          kind: 'token.transfer',
          path,
          program,
          source: source.address,
          destination: destination.address,
          authority: authority.address,
          amount,
          mint: mint.address,
          decimals,
          fee,
        },
        ext('transferFeeConfig', 'transferCheckedWithFee', {
          source: source.address,
          destination: destination.address,
          amount: amount.toString(),
          decimals,
          fee: fee.toString(),
        }, mint.address),
      ];
    }
    case I.WithdrawWithheldTokensFromMint:
      return [ext('transferFeeConfig', 'withdrawWithheldTokensFromMint', { destination: p.accounts.feeReceiver.address })];
    case I.WithdrawWithheldTokensFromAccounts: {
      // Accounts: mint, feeReceiver, authority, [multisig signers...], then `numTokenAccounts` sources.
      const n = p.data.numTokenAccounts;
      const sources = n > 0 ? ix.accounts.slice(Math.max(3, ix.accounts.length - n)) : [];
      return [
        ext('transferFeeConfig', 'withdrawWithheldTokensFromAccounts', {
          destination: p.accounts.feeReceiver.address,
          numTokenAccounts: n,
          sources,
        }),
      ];
    }
    case I.HarvestWithheldTokensToMint:
      return [ext('transferFeeConfig', 'harvestWithheldTokensToMint', { sources: ix.accounts.slice(1) })];
    case I.InitializeDefaultAccountState:
    case I.UpdateDefaultAccountState:
      return [
        ext('defaultAccountState', p.instructionType === I.InitializeDefaultAccountState ? 'initialize' : 'update', {
          state: lowerFirst(AccountState[p.data.state] ?? String(p.data.state)),
        }),
      ];
    case I.Reallocate:
      return [
        ext('reallocate', 'reallocate', {
          extensionTypes: p.data.newExtensionTypes.map((t) => lowerFirst(ExtensionType[t] ?? String(t))),
        }),
      ];
    case I.CreateNativeMint:
      return [ext('nativeMint', 'create', {}, p.accounts.nativeMint.address)];
    case I.InitializeTokenMetadata:
      return [
        ext('tokenMetadata', 'initialize', {
          name: p.data.name,
          symbol: p.data.symbol,
          uri: p.data.uri,
          updateAuthority: p.accounts.updateAuthority.address,
          mint: p.accounts.mint.address,
        }),
      ];
    case I.UpdateTokenMetadataField: {
      const f = p.data.field;
      return [
        ext('tokenMetadata', 'updateField', {
          field: f.__kind === 'Key' ? f.fields[0] : lowerFirst(f.__kind),
          value: p.data.value,
        }),
      ];
    }
    case I.InitializeTokenGroup:
      return [
        ext('tokenGroup', 'initialize', {
          mint: p.accounts.mint.address,
          updateAuthority: optAddress(p.data.updateAuthority),
          maxSize: p.data.maxSize.toString(),
        }),
      ];
    case I.InitializeTokenGroupMember:
      return [
        ext('tokenGroupMember', 'initialize', {
          memberMint: p.accounts.memberMint.address,
          group: p.accounts.group.address,
        }),
      ];
    case I.PermissionedBurn:
    case I.PermissionedBurnChecked:
      return [
        {
          kind: 'token.burn',
          path,
          program,
          mint: p.accounts.mint.address,
          account: p.accounts.account.address,
          amount: p.data.amount,
          decimals: 'decimals' in p.data ? p.data.decimals : null,
        },
      ];
    default:
      // EmitTokenMetadata (read-only), WithdrawExcessLamports and UnwrapLamports (lamports only).
      return [];
  }
}
