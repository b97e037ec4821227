/** The ordered chain of async steps with a bounded backlog (src/core/ordered-chain.ts). */
import { describe, expect, it } from 'vitest';
import { orderedChain } from '../../src/core/ordered-chain.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('orderedChain', () => {
  it('starts each item at once and runs the steps in the order the items were added', async () => {
    const started: number[] = [];
    const done: number[] = [];
    const chain = orderedChain(10, () => new Error('over'), () => expect.unreachable());
    for (const [i, ms] of [[0, 30], [1, 0], [2, 10]]) {
      chain.add(() => {
        started.push(i);
        const ready = sleep(ms);
        return async () => {
          await ready;
          done.push(i);
        };
      });
    }
    expect(started).toEqual([0, 1, 2]);
    await sleep(60);
    expect(done).toEqual([0, 1, 2]);
  });

  it('ends through fail, once, when more than max items wait; later items are not started', async () => {
    const errors: string[] = [];
    const chain = orderedChain(2, () => new Error('over'), (e) => errors.push(e.message));
    let started = 0;
    const gate = sleep(10);
    for (let i = 0; i < 5; i++) {
      chain.add(() => {
        started++;
        return () => gate;
      });
    }
    expect(started).toBe(2);
    expect(errors).toEqual(['over']);
    expect(chain.ended).toBe(true);
  });

  it('frees the backlog as steps finish, and end() stops it with its own error', async () => {
    const errors: string[] = [];
    const chain = orderedChain(1, () => new Error('over'), (e) => errors.push(e.message));
    const ran: number[] = [];
    chain.add(() => async () => void ran.push(1));
    await sleep(0);
    chain.add(() => async () => {
      ran.push(2);
      chain.end(new Error('step failed'));
    });
    await sleep(0);
    chain.add(() => async () => void ran.push(3));
    chain.end(new Error('again'));
    await sleep(0);
    expect(ran).toEqual([1, 2]);
    expect(errors).toEqual(['step failed']);
  });
});
