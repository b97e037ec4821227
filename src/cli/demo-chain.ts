/**
 * The demo chain of `serve --demo` and `localnet --demo`: the built-in localnet (LiteSVM) plus a demo workload.
 * Slots continue after the database's checkpoint, so restarting the demo on the same data directory never
 * rewinds the indexed chain (each run uses fresh wallets and mints).
 */
import type { Logger } from 'pino';
import { createLocalnet, startDemoWorkload, type Localnet, type DemoWorkload } from '../sources/localnet/index.js';

export interface DemoChain {
  url: string;
  faucet: string;
  wallets: string[];
  mints: { splToken: string; token2022: string };
  startSlot: number;
  localnet: Localnet;
  stop(): Promise<void>;
}

export async function startDemoChain(o: { port: number; slotMs: number; startSlot: number; logger: Logger; workload?: boolean }): Promise<DemoChain> {
  let net: Localnet;
  try {
    net = await createLocalnet({ port: o.port, slotMs: o.slotMs, startSlot: o.startSlot });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    o.logger.warn({ port: o.port }, 'localnet: port in use; using a free port');
    net = await createLocalnet({ port: 0, slotMs: o.slotMs, startSlot: o.startSlot });
  }
  let demo: DemoWorkload | null = null;
  try {
    if (o.workload !== false)
      demo = await startDemoWorkload(net.chain, { log: (message, context) => o.logger.debug(context ?? {}, `demo: ${message}`) });
  } catch (e) {
    await net.close();
    throw e;
  }
  return {
    url: net.url,
    faucet: net.chain.faucet.address,
    wallets: demo ? [...demo.wallets] : [],
    mints: demo ? { ...demo.mints } : { splToken: '', token2022: '' },
    startSlot: o.startSlot,
    localnet: net,
    async stop() {
      await demo?.stop();
      await net.close();
    },
  };
}
