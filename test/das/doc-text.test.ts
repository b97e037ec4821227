/**
 * Stored documents answered as text (issue #21): `projectDocText` (api/das/doc-text.ts) must write exactly what the
 * parsed projection writes (`projectDoc` + `applyOffchainJson`, then JSON.stringify), and `stringifyRpc` must write a
 * `RawJson` as its text (and as its value anywhere else).
 */
import { describe, expect, it } from 'vitest';
import { projectDocText, topMembers } from '../../src/api/das/doc-text.js';
import { projectDoc } from '../../src/api/das/asset-docs.js';
import { defaultDisplayOptions, type AssetJson, type DisplayOptions } from '../../src/api/das/asset-json.js';
import { applyOffchainJson } from '../../src/api/das/offchain-content.js';
import { RawJson, stringifyRpc } from '../../src/api/wire/json.js';

/** What the parsed path answers for a stored document. */
function parsed(doc: string, opts: DisplayOptions, offchain: Record<string, unknown> | null): string {
  const a = projectDoc(JSON.parse(doc) as AssetJson, opts);
  const uri = (a.content as { json_uri?: unknown } | undefined)?.json_uri;
  if (offchain && typeof uri === 'string' && uri.trim() !== '') applyOffchainJson(a, offchain);
  return JSON.stringify(a);
}

const tricky = 'a "quoted" \\ back\\slash \\" ,"token_info":{"x":1} "grouping":[] } ] { [ \u2028 \ud800 é';
const docs: AssetJson[] = [
  // token_info first, last, in the middle; unverified groupings; strings and nested keys that look like members
  { token_info: { supply: 1, decimals: 0 }, id: 'A', content: { json_uri: 'https://x.test/1.json', files: [], metadata: { name: tricky }, links: {} }, grouping: [] },
  { id: 'B', grouping: [{ group_key: 'collection', group_value: 'C1', verified: false }, { group_key: 'collection', group_value: 'C2', verified: true }], token_info: { supply: 5 } },
  { interface: 'V1_NFT', id: 'C', content: { json_uri: '', metadata: { name: '"verified":false' } }, grouping: [{ group_key: 'collection', group_value: 'C3' }], token_info: { a: [1, { token_info: 2 }] }, mutable: true },
  { id: 'D', plugins: { app_data: { data: { token_info: 'x', grouping: [{ verified: false }], '0': 1, 'k\\"': [] } } }, grouping: [{ verified: false, group_key: 'collection', group_value: '"}' }] },
  { id: 'E', content: null, burnt: false, n: -1.5e-7, big: 1e21, e: {}, f: [], g: [[]] },
  { id: 'F', content: { json_uri: '  ', metadata: {} } },
  {},
];
const offchains: (Record<string, unknown> | null)[] = [
  null,
  { description: 'd "q"', image: 'https://x.test/a.png', attributes: [{ trait_type: 't', value: 1 }], properties: { files: [{ uri: 'https://x.test/a.mp4', type: 'video/mp4' }, 'https://x.test/b.gif'] } },
];

describe('projectDocText', () => {
  it('writes byte for byte what the parsed projection writes, for every document, option and off-chain document', () => {
    for (const d of docs) {
      const text = JSON.stringify(d);
      for (const showUnverifiedCollections of [false, true])
        for (const off of offchains) {
          const opts = { ...defaultDisplayOptions(), showUnverifiedCollections };
          expect(projectDocText(text, opts, off), `${text} ${showUnverifiedCollections}`).toBe(parsed(text, opts, off));
        }
    }
  });

  it('locates the top-level members only', () => {
    const text = JSON.stringify(docs[3]);
    expect([...topMembers(text)!.keys()]).toEqual(['id', 'plugins', 'grouping']);
    expect(topMembers('{}')!.size).toBe(0);
  });

  it('declines what is not an object text as JSON.stringify writes it', () => {
    const opts = defaultDisplayOptions();
    for (const bad of ['', '[]', 'null', '{"a":1', '{"a":1} ', '{ "a":1}', '{"a":"x}', '{"a":[1,2}', '{"a"}']) expect(projectDocText(bad, opts, null), bad).toBeNull();
  });
});

describe('RawJson in stringifyRpc', () => {
  it('is written as its text inside stringifyRpc, bigints or not', () => {
    const raw = new RawJson('{"b":"@solgate-raw-:0","c":[1,2]}');
    expect(stringifyRpc({ jsonrpc: '2.0', result: raw, id: 1 })).toBe('{"jsonrpc":"2.0","result":{"b":"@solgate-raw-:0","c":[1,2]},"id":1}');
    expect(stringifyRpc({ items: [raw, null, new RawJson('7')], n: 18446744073709551615n })).toBe(
      '{"items":[{"b":"@solgate-raw-:0","c":[1,2]},null,7],"n":18446744073709551615}',
    );
    expect(stringifyRpc([raw, { r: raw }])).toBe(`[${raw.text},{"r":${raw.text}}]`);
  });

  it('is its value anywhere else', () => {
    expect(JSON.stringify({ r: new RawJson('{"a":[1,{"b":null}]}') })).toBe('{"r":{"a":[1,{"b":null}]}}');
  });
});
