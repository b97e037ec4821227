/**
 * Converts LiteSVM's napi error objects into the RPC JSON form of `TransactionError`, and renders the
 * human-readable text agave prints in preflight failures (`Transaction simulation failed: …`).
 *
 * LiteSVM exposes errors as `const enum` numbers (fieldless variants) or small classes
 * (`TransactionErrorInstructionError`, `InstructionErrorCustom`, …); the enum names are not available at
 * runtime, so the variant tables below mirror the order of `litesvm/dist/internal.d.ts` (1.5).
 */
import type { RpcTransactionError } from './types.js';

/** `TransactionErrorFieldless` in declaration order (index = numeric value). */
const TX_FIELDLESS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
] as const;

/** `InstructionErrorFieldless` in declaration order. */
const IX_FIELDLESS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged',
  'AccountNotExecutable', 'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync',
  'InvalidError', 'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId', 'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded',
  'InvalidSeeds', 'InvalidRealloc', 'ComputationalBudgetExceeded', 'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete', 'ProgramFailedToCompile', 'Immutable',
  'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner', 'ArithmeticOverflow', 'UnsupportedSysvar',
  'IllegalOwner', 'MaxAccountsDataAllocationsExceeded', 'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
] as const;

function ctorName(v: unknown): string {
  return (v as { constructor?: { name?: string } } | null)?.constructor?.name ?? '';
}

function instructionErrorToRpc(e: unknown): unknown {
  if (typeof e === 'number') return IX_FIELDLESS[e] ?? `InstructionError${e}`;
  const name = ctorName(e);
  const o = e as { code?: number; msg?: string };
  if (name === 'InstructionErrorCustom' || typeof o.code === 'number') return { Custom: o.code };
  if (name === 'InstructionErrorBorshIo' || typeof o.msg === 'string') return 'BorshIoError';
  return 'GenericError';
}

/** LiteSVM `FailedTransactionMetadata.err()` value → RPC JSON error. */
export function liteSvmErrorToRpc(e: unknown): RpcTransactionError {
  if (typeof e === 'number') return TX_FIELDLESS[e] ?? `TransactionError${e}`;
  const name = ctorName(e);
  const o = e as { index?: number; accountIndex?: number; err?: () => unknown };
  if (name === 'TransactionErrorInstructionError' || typeof o.err === 'function') {
    return { InstructionError: [o.index, instructionErrorToRpc(o.err!())] };
  }
  if (name === 'TransactionErrorDuplicateInstruction') return { DuplicateInstruction: o.index };
  if (name === 'TransactionErrorInsufficientFundsForRent') {
    return { InsufficientFundsForRent: { account_index: o.accountIndex } };
  }
  if (name === 'TransactionErrorProgramExecutionTemporarilyRestricted') {
    return { ProgramExecutionTemporarilyRestricted: { account_index: o.accountIndex } };
  }
  return String(e);
}

const TX_TEXT: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  CallChainTooDeep: 'Loader call chain is too deep',
  MissingSignatureForFee: 'Transaction requires a fee but has no signature present',
  InvalidAccountIndex: 'Transaction contains an invalid account reference',
  SignatureFailure: 'Transaction did not pass signature verification',
  InvalidProgramForExecution: 'This program may not be used for executing instructions',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  UnsupportedVersion: 'Transaction version is unsupported',
  InvalidWritableAccount: 'Transaction loads a writable account that cannot be written',
  TooManyAccountLocks: 'Transaction locked too many accounts',
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
  InvalidAddressLookupTableOwner: 'Transaction loads an address table account with an invalid owner',
  InvalidAddressLookupTableData: 'Transaction loads an address table account with invalid data',
  InvalidAddressLookupTableIndex: 'Transaction address table lookup uses an invalid index',
  InvalidRentPayingAccount: 'Transaction leaves an account with a lower balance than rent-exempt minimum',
  MaxLoadedAccountsDataSizeExceeded: 'Transaction exceeded max loaded accounts data size cap',
  UnbalancedTransaction: 'Sum of account balances before and after transaction do not match',
};

const IX_TEXT: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  InvalidAccountOwner: 'Invalid account owner',
  ArithmeticOverflow: 'Program arithmetic overflowed',
};

/** Lower-case words of a PascalCase variant name: the fallback text for variants not in the tables. */
function words(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/** Agave's `Display` text of a transaction error (used in preflight failure messages). */
export function describeTxError(err: RpcTransactionError): string {
  if (typeof err === 'string') return TX_TEXT[err] ?? words(err);
  if ('InstructionError' in err) {
    const [idx, ie] = err.InstructionError as [number, unknown];
    let text: string;
    if (typeof ie === 'string') text = IX_TEXT[ie] ?? words(ie);
    else if (ie && typeof ie === 'object' && 'Custom' in ie) text = `custom program error: 0x${(ie as { Custom: number }).Custom.toString(16)}`;
    else text = JSON.stringify(ie);
    return `Error processing Instruction ${idx}: ${text}`;
  }
  if ('InsufficientFundsForRent' in err) {
    const i = (err.InsufficientFundsForRent as { account_index: number }).account_index;
    return `Transaction results in an account (${i}) with insufficient funds for rent`;
  }
  if ('DuplicateInstruction' in err) {
    return `Transaction contains a duplicate instruction (${String(err.DuplicateInstruction)}) that is not allowed`;
  }
  return JSON.stringify(err);
}
