/**
 * Program log lines as the runtime writes them (`invoke [n]`, `Program log: …`, `consumed X of Y compute
 * units`, `success`/`failed`), derived from the executed instruction tree, so log volume per transaction is
 * mainnet-like (a routed swap writes 20–40 lines, a vote 2).
 */
import {
  AMM_PROGRAMS,
  ATA_PROGRAM,
  ORACLE_PROGRAM,
  ROUTER_PROGRAM,
  TOKEN_PROGRAM,
} from './population.js';

/** One executed instruction, in execution order, with its invocation depth and own compute units. */
export interface LogNode {
  program: string;
  data: Uint8Array | undefined;
  depth: number;
  cu: number;
}

const TOKEN_NAMES: Record<number, string> = {
  3: 'Transfer',
  9: 'CloseAccount',
  12: 'TransferChecked',
  17: 'SyncNative',
  18: 'InitializeAccount3',
  21: 'GetAccountDataSize',
  22: 'InitializeImmutableOwner',
};

/** Programs loaded by the BPF loader log their compute use; native ones (System, Vote, ComputeBudget) do not. */
function isBpf(program: string): boolean {
  return program === TOKEN_PROGRAM || program === ATA_PROGRAM || program === ROUTER_PROGRAM || program === ORACLE_PROGRAM || AMM_PROGRAMS.includes(program);
}

function bodyLines(n: LogNode): string[] {
  const d = n.data ?? new Uint8Array();
  if (n.program === TOKEN_PROGRAM) return [`Program log: Instruction: ${TOKEN_NAMES[d[0]] ?? 'Unknown'}`];
  if (n.program === ATA_PROGRAM) return ['Program log: CreateIdempotent'];
  if (n.program === ROUTER_PROGRAM) return n.depth === 1 ? ['Program log: Instruction: Route'] : [];
  if (n.program === ORACLE_PROGRAM) return ['Program log: Instruction: UpdatePrice', `Program log: price=${d[8] ?? 0}${d[9] ?? 0}${d[10] ?? 0}, conf=${d[11] ?? 0}`];
  if (AMM_PROGRAMS.includes(n.program)) {
    return [
      'Program log: Instruction: Swap',
      `Program log: swap_log: ${Buffer.from(d.subarray(0, 24)).toString('base64')}`,
    ];
  }
  return [];
}

/**
 * Log lines for `nodes` and the total compute units consumed. With `fail`, the last depth-1 instruction fails
 * with the custom error `fail.code` after its recorded CPIs.
 */
export function programLogs(
  nodes: LogNode[],
  limit: number,
  fail?: { code: number; message: string },
): { logs: string[]; consumed: number } {
  const logs: string[] = [];
  const stack: { node: LogNode; start: number; total: number }[] = [];
  let used = 0;
  const close = (failed: boolean) => {
    const e = stack.pop()!;
    if (stack.length) stack[stack.length - 1].total += e.total;
    if (isBpf(e.node.program)) {
      if (failed) logs.push(`Program log: ${fail!.message}`);
      logs.push(`Program ${e.node.program} consumed ${e.total} of ${limit - e.start} compute units`);
    }
    logs.push(failed ? `Program ${e.node.program} failed: custom program error: 0x${fail!.code.toString(16)}` : `Program ${e.node.program} success`);
  };
  for (const n of nodes) {
    while (stack.length && stack[stack.length - 1].node.depth >= n.depth) close(false);
    logs.push(`Program ${n.program} invoke [${n.depth}]`);
    logs.push(...bodyLines(n));
    stack.push({ node: n, start: used, total: n.cu });
    used += n.cu;
  }
  while (stack.length > 1) close(false);
  if (stack.length) close(fail !== undefined);
  return { logs, consumed: used };
}
