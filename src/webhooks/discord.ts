/**
 * The `discord` webhook payload: one readable message in Discord's "Execute Webhook" body format
 * (https://discord.com/developers/docs/resources/webhook#execute-webhook: `{content, embeds[]}`), built from the
 * enhanced transaction. Respects Discord's limits (content 2000, title 256, description 4096, 25 fields of 1024
 * characters) so Discord never rejects it for size. Pure.
 */
import type { EnhancedTransaction } from '../enhanced/types.js';

export interface DiscordMessage {
  content: string;
  embeds: {
    title: string;
    description: string;
    url?: string;
    color: number;
    fields: { name: string; value: string; inline?: boolean }[];
    timestamp?: string;
    footer: { text: string };
  }[];
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
const short = (a: string) => (a.length > 12 ? `${a.slice(0, 4)}…${a.slice(-4)}` : a);
const sol = (lamports: number) => `${(lamports / 1e9).toLocaleString('en-US', { maximumFractionDigits: 9 })} SOL`;

/** The message for one transaction; `explorerTxUrl` prefixes the signature for the embed's link. */
export function discordMessage(tx: EnhancedTransaction, explorerTxUrl = 'https://orbmarkets.io/tx/'): DiscordMessage {
  const fields: DiscordMessage['embeds'][number]['fields'] = [
    { name: 'Type', value: tx.type, inline: true },
    { name: 'Source', value: tx.source, inline: true },
    { name: 'Fee', value: sol(tx.fee), inline: true },
    { name: 'Fee payer', value: tx.feePayer, inline: false },
  ];
  for (const t of tx.nativeTransfers.slice(0, 8))
    fields.push({ name: 'SOL transfer', value: clip(`${short(t.fromUserAccount)} → ${short(t.toUserAccount)}: ${sol(t.amount)}`, 1024) });
  for (const t of tx.tokenTransfers.slice(0, 8))
    fields.push({
      name: 'Token transfer',
      value: clip(`${short(t.fromUserAccount || t.fromTokenAccount || 'mint')} → ${short(t.toUserAccount || t.toTokenAccount || 'burn')}: ${t.tokenAmount} ${short(t.mint)}`, 1024),
    });
  const more = tx.nativeTransfers.length + tx.tokenTransfers.length - Math.min(8, tx.nativeTransfers.length) - Math.min(8, tx.tokenTransfers.length);
  if (more > 0) fields.push({ name: 'More', value: `${more} more transfers` });
  return {
    content: clip(`${tx.type} · ${tx.description || tx.signature}`, 2000),
    embeds: [
      {
        title: clip(`${tx.type} (${tx.source})`, 256),
        description: clip(tx.description || `Transaction ${tx.signature}`, 4096),
        url: `${explorerTxUrl}${tx.signature}`,
        color: tx.transactionError ? 0xe74c3c : 0x14f195,
        fields: fields.slice(0, 25),
        ...(tx.timestamp ? { timestamp: new Date(tx.timestamp * 1000).toISOString() } : {}),
        footer: { text: clip(`slot ${tx.slot} · ${tx.signature}`, 2048) },
      },
    ],
  };
}
