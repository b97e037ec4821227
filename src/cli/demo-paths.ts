/**
 * Names of the demo's files, apart from src/cli/demo-chain.ts so that `serve` without `--demo` can name them without
 * loading the built-in localnet (LiteSVM, the whole of @solana/kit).
 */

/** The snapshot directory's name inside SOLGATE_DATA_DIR. */
export const DEMO_SNAPSHOT_DIR = 'localnet-snapshot';
