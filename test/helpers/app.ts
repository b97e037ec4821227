/** A gateway app over a fresh test database, with one API key, for `inject`-based tests. */
import pino from 'pino';
import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.js';
import { createApiKey } from '../../src/store/keys.js';
import { createFileTokenRegistry, type TokenInfo } from '../../src/pricing/token-registry.js';
import type { ApiDeps } from '../../src/api/deps.js';
import { createTestDb, type TestDb } from './db.js';

export interface TestApp {
  app: FastifyInstance;
  t: TestDb;
  key: string;
  tokens: Map<string, TokenInfo>;
  close(): Promise<void>;
}

/** `over`: deps to add, or a function of the test database returning them (e.g. a meter over that database). */
export async function createTestApp(over: Partial<ApiDeps> | ((db: TestDb['db']) => Partial<ApiDeps>) = {}): Promise<TestApp> {
  const t = await createTestDb();
  const extra = typeof over === 'function' ? over(t.db) : over;
  const tokens = new Map<string, TokenInfo>();
  const app = await buildApp({
    db: t.db,
    logger: pino({ level: 'silent' }),
    tokens: createFileTokenRegistry('/nonexistent/tokens.json', { overlay: tokens }),
    explorerTxUrl: 'https://explorer.test/tx/',
    ...extra,
  });
  const { key } = await createApiKey(t.db, { name: 'test' });
  return {
    app,
    t,
    key,
    tokens,
    async close() {
      await app.close();
      await t.drop();
    },
  };
}

/** GET `path` with the app's API key; expects 200 (the body in the failure message) and returns the JSON body. */
export async function getOk(ta: TestApp, path: string): Promise<any> {
  const r = await ta.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': ta.key } });
  expect(r.statusCode, `${path}: ${r.body}`).toBe(200);
  return r.json();
}
