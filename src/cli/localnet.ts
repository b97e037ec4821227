/**
 * `solgate localnet [--port P] [--demo]`: only the built-in local chain's JSON-RPC (and its WebSocket PubSub on the
 * same port and on port + 1), until interrupted. The chain carries the Light Protocol (ZK Compression) programs and
 * genesis trees unless SOLGATE_LOCALNET_LIGHT=false.
 */
import { loadConfig } from '../config/index.js';
import { makeLogger } from './runtime.js';
import { startDemoChain } from './demo-chain.js';
import { UsageError } from './usage-error.js';

export async function runLocalnet(opts: { port?: number; demo: boolean }): Promise<number> {
  const config = loadConfig();
  const logger = makeLogger(config.logLevel);
  const port = opts.port ?? config.localnetPort;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0–65535');
  const chain = await startDemoChain({
    port, slotMs: config.localnetSlotMs, finalizedDepth: config.localnetFinalizedDepth, startSlot: 0, logger, workload: opts.demo, light: config.localnetLight,
  });
  console.log(`localnet JSON-RPC on ${chain.url} (faucet ${chain.faucet})${opts.demo ? `; demo wallets: ${chain.wallets.join(' ')}` : ''}`);
  const net = chain.localnet;
  console.log(`localnet WebSocket (PubSub) on ${net.wsUrl}${net.pubsubUrl ? ` and ${net.pubsubUrl} (port + 1, where web3.js Connection looks)` : ''}`);
  if (chain.lightGenesis) {
    console.log(`Light Protocol (ZK Compression) programs and genesis trees loaded${chain.light ? `; demo compressed-token mint: ${chain.light.mint}` : ''}`);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await chain.stop();
  return 0;
}
