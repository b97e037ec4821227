/** Sender settings from the configuration (SOLGATE_SENDER_*). */
import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { Db } from '../store/db.js';
import { createRouter } from './router.js';
import type { SenderDeps } from './routes.js';
import { DEFAULT_TIP_ACCOUNTS } from './validate.js';

/** The Sender's routes' dependencies, or null when no upstream RPC URL is configured. `fallbackRpcUrl`: SOLANA_RPC_URL or the demo localnet. */
export function senderDeps(config: Config, o: { db?: Db; logger?: Logger; fallbackRpcUrl?: string }): SenderDeps | null {
  const rpcUrls = config.senderRpcUrls.length ? config.senderRpcUrls : o.fallbackRpcUrl ? [o.fallbackRpcUrl] : [];
  if (!rpcUrls.length) return null;
  return {
    router: createRouter({
      rpcUrls,
      blockEngineUrl: config.senderBlockEngineUrl ?? null,
      statusUrl: config.senderStatusRpcUrl,
      upstreamTimeoutMs: config.senderUpstreamTimeoutMs,
      rebroadcastMs: config.senderRebroadcastMs,
      maxRebroadcastMs: config.senderMaxRebroadcastSeconds * 1000,
      logger: o.logger,
    }),
    policy: {
      tipAccounts: config.senderTipAccounts ?? DEFAULT_TIP_ACCOUNTS,
      minTipLamports: config.senderMinTipLamports,
      minTipSwqosLamports: config.senderMinTipSwqosLamports,
    },
    rateLimitPerSecond: config.senderRateLimit,
    db: o.db,
  };
}
