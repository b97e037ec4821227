/**
 * Bincode encoding of agave's `TransactionError` from its JSON-RPC form (`"AccountInUse"`,
 * `{"InstructionError":[0,{"Custom":1}]}`, …): what a Geyser plugin puts in `TransactionStatusMeta.err`.
 * The stand-in needs it to serve blocks it read over JSON-RPC; tests check it against the Yellowstone client's own
 * (Rust) decoder. Variant order is the enums' declaration order in agave (bincode writes the index as u32 LE).
 */

const TRANSACTION_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'InstructionError', 'CallChainTooDeep',
  'MissingSignatureForFee', 'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure',
  'ClusterMaintenance', 'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion',
  'InvalidWritableAccount', 'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'DuplicateInstruction', 'InsufficientFundsForRent',
  'MaxLoadedAccountsDataSizeExceeded', 'InvalidLoadedAccountsDataSizeLimit', 'ResanitizationNeeded',
  'ProgramExecutionTemporarilyRestricted', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
] as const;

const INSTRUCTION_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend', 'ExternalAccountDataModified',
  'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex', 'ExecutableModified', 'RentEpochModified',
  'NotEnoughAccountKeys', 'AccountDataSizeChanged', 'AccountNotExecutable', 'AccountBorrowFailed',
  'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'Custom', 'InvalidError', 'ExecutableDataModified',
  'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId', 'CallDepth', 'MissingAccount',
  'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc', 'ComputationalBudgetExceeded',
  'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete', 'ProgramFailedToCompile',
  'Immutable', 'IncorrectAuthority', 'BorshIoError', 'AccountNotRentExempt', 'InvalidAccountOwner',
  'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner', 'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits',
] as const;

class Writer {
  private readonly parts: number[] = [];
  u8(n: number) {
    this.parts.push(n & 0xff);
  }
  u32(n: number) {
    for (let i = 0; i < 4; i++) this.parts.push((n >>> (8 * i)) & 0xff);
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

function variant(list: readonly string[], name: string, what: string): number {
  const i = list.indexOf(name);
  if (i < 0) throw new Error(`unknown ${what} variant ${JSON.stringify(name)}`);
  return i;
}

function one(value: unknown, what: string): [string, unknown] {
  if (typeof value === 'string') return [value, undefined];
  if (value && typeof value === 'object' && Object.keys(value).length === 1) return Object.entries(value)[0] as [string, unknown];
  throw new Error(`${what}: unexpected ${JSON.stringify(value)}`);
}

function instructionError(w: Writer, value: unknown): void {
  const [name, inner] = one(value, 'InstructionError');
  w.u32(variant(INSTRUCTION_ERRORS, name, 'InstructionError'));
  // BorshIoError carried a string before agave 3 (unit variant since): written as the current runtime does.
  if (name === 'Custom') w.u32(Number(inner));
}

/** The bincode bytes of a JSON-RPC transaction error. */
export function encodeTransactionError(err: unknown): Uint8Array {
  const w = new Writer();
  const [name, inner] = one(err, 'TransactionError');
  w.u32(variant(TRANSACTION_ERRORS, name, 'TransactionError'));
  if (name === 'InstructionError') {
    const [index, ie] = inner as [number, unknown];
    w.u8(index);
    instructionError(w, ie);
  } else if (name === 'DuplicateInstruction') {
    w.u8(Number(inner));
  } else if (name === 'InsufficientFundsForRent' || name === 'ProgramExecutionTemporarilyRestricted') {
    w.u8(Number((inner as { account_index: number }).account_index));
  }
  return w.bytes();
}
