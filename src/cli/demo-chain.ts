/**
 * The demo chain of `serve --demo` and `localnet --demo`: the built-in localnet (LiteSVM) plus a demo workload.
 * Slots continue after the database's checkpoint, so restarting the demo on the same data directory never
 * rewinds the indexed chain (each run uses fresh wallets and mints). With `light` (SOLGATE_LOCALNET_LIGHT, on
 * by default) the chain carries the Light Protocol programs and genesis trees and the workload adds ZK
 * Compression activity; if the Light genesis cannot be loaded the chain starts without it (with a warning).
 */
import type { Logger } from 'pino';
import { createLocalnet, startDemoWorkload, type Localnet, type DemoWorkload, type LocalnetOptions } from '../sources/localnet/index.js';
import type { LightDemoInfo } from '../sources/localnet/demo.js';

export interface DemoChain {
  url: string;
  faucet: string;
  wallets: string[];
  mints: { splToken: string; token2022: string };
  /** The compressed activity (its compressed-token mint, counters), or null without Light. */
  light: LightDemoInfo | null;
  /** Whether the chain has the Light programs and genesis trees. */
  lightGenesis: boolean;
  startSlot: number;
  localnet: Localnet;
  stop(): Promise<void>;
}

export async function startDemoChain(o: {
  port: number; slotMs: number; startSlot: number; logger: Logger; workload?: boolean; light?: boolean;
}): Promise<DemoChain> {
  const start = async (opts: LocalnetOptions): Promise<Localnet> => {
    try {
      return await createLocalnet(opts);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      o.logger.warn({ port: opts.port }, 'localnet: port in use; using a free port');
      return createLocalnet({ ...opts, port: 0 });
    }
  };
  const base = { port: o.port, slotMs: o.slotMs, startSlot: o.startSlot };
  let net: Localnet;
  let lightGenesis = false;
  if (o.light) {
    try {
      net = await start({ ...base, light: true });
      lightGenesis = true;
      const l = net.chain.light;
      if (l) o.logger.debug({ version: l.version, programs: l.programs.length, accounts: l.accounts.length, readMs: Math.round(l.readMs), installMs: Math.round(l.installMs) }, 'localnet: Light genesis loaded');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw e;
      o.logger.warn({ err: e }, 'localnet: could not load the Light Protocol genesis; starting without ZK Compression');
      net = await start(base);
    }
  } else {
    net = await start(base);
  }
  let demo: DemoWorkload | null = null;
  try {
    if (o.workload !== false)
      demo = await startDemoWorkload(net.chain, {
        light: lightGenesis,
        log: (message, context, level) => o.logger[level ?? 'debug'](context ?? {}, `demo: ${message}`),
      });
  } catch (e) {
    await net.close();
    throw e;
  }
  return {
    url: net.url,
    faucet: net.chain.faucet.address,
    wallets: demo ? [...demo.wallets] : [],
    mints: demo ? { ...demo.mints } : { splToken: '', token2022: '' },
    light: demo?.light ?? null,
    lightGenesis,
    startSlot: o.startSlot,
    localnet: net,
    async stop() {
      await demo?.stop();
      await net.close();
    },
  };
}
