// solgate dashboard: the webhooks view (every key's webhooks, their counts, and each one's delivery log).

import { $, api, el, fail, fmtNum, fmtTime, state } from './dashboard-core.js';

export async function loadWebhooks() {
  const { webhooks } = await api('GET', '/webhooks');
  $('webhooks-table').tBodies[0].replaceChildren(
    ...webhooks.map((w) =>
      el(
        'tr',
        { 'data-webhook-id': w.webhookID },
        el('th', { scope: 'row', class: 'url' }, w.webhookURL),
        el('td', {}, `${w.keyName} `, el('code', {}, w.keyId)),
        el('td', {}, w.webhookType),
        el('td', {}, w.active ? 'active' : w.deactivatedReason ? `off: ${w.deactivatedReason}` : 'off'),
        el('td', {}, fmtNum(w.accountAddressCount)),
        el('td', {}, fmtNum(w.counts.pending)),
        el('td', {}, fmtNum(w.counts.delivered)),
        el('td', {}, fmtNum(w.counts.failed)),
        el('td', {}, fmtTime(w.lastAttemptAt)),
        el('td', {}, el('button', { type: 'button', 'aria-label': `Delivery log of ${w.webhookURL}`, onclick: () => showDeliveries(w) }, 'Delivery log')),
      ),
    ),
  );
  $('webhooks-empty').hidden = webhooks.length > 0;
}

export async function showDeliveries(w) {
  state.deliveriesOf = w;
  state.deliveriesCursor = null;
  $('deliveries-title').textContent = `Delivery log of ${w.webhookURL}`;
  $('deliveries-table').tBodies[0].replaceChildren();
  $('deliveries').hidden = false;
  await loadDeliveries();
}

export async function loadDeliveries() {
  const w = state.deliveriesOf;
  const q = state.deliveriesCursor ? `&before=${encodeURIComponent(state.deliveriesCursor)}` : '';
  try {
    const r = await api('GET', `/webhooks/${encodeURIComponent(w.webhookID)}/deliveries?limit=50${q}`);
    const rows = r.deliveries.map((d) =>
      el(
        'tr',
        {},
        el('td', {}, fmtTime(d.queuedAt)),
        el('td', {}, el('code', { title: d.signature }, `${d.signature.slice(0, 12)}…`)),
        el('td', {}, String(d.slot)),
        el('td', {}, el('span', { class: `badge ${d.state}` }, d.state)),
        el('td', {}, String(d.attempts)),
        el('td', {}, d.lastStatus === null ? '—' : String(d.lastStatus)),
        el('td', { class: 'err' }, d.lastError ?? ''),
        el(
          'td',
          {},
          d.attemptLog.length
            ? el(
                'details',
                {},
                el('summary', {}, `${d.attemptLog.length} attempt${d.attemptLog.length === 1 ? '' : 's'}`),
                el('ol', {}, ...d.attemptLog.map((a) => el('li', {}, `${fmtTime(a.at)} — ${a.ok ? 'ok' : 'failed'}${a.status === null ? '' : ` (HTTP ${a.status})`}, ${a.latencyMs} ms${a.error ? `: ${a.error}` : ''}`))),
              )
            : 'none yet',
        ),
      ),
    );
    $('deliveries-table').tBodies[0].append(...rows);
    $('deliveries-empty').hidden = $('deliveries-table').tBodies[0].rows.length > 0;
    state.deliveriesCursor = r.paginationToken;
    $('deliveries-more').hidden = !r.paginationToken;
  } catch (err) {
    fail(err);
  }
}
