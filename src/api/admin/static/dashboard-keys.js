// solgate dashboard: the API keys view (list, create, edit, rotate, revoke; a new secret is shown once).

import { $, api, el, fail, fillPlanSelect, fmtDate, fmtNum, say, state } from './dashboard-core.js';
import { loadUsage, showUsage } from './dashboard-usage.js';

const linesOf = (text) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
const expiryOf = (value) => (value ? value : null);

export async function loadKeys() {
  const { keys } = await api('GET', '/keys');
  state.keys = keys;
  renderKeys();
  if (state.usageKeyId) await loadUsage();
}

function renderKeys() {
  const body = $('keys-table').tBodies[0];
  body.replaceChildren(
    ...state.keys.map((k) => {
      const live = k.status === 'active';
      const quota = k.usage.monthlyCredits === null ? '' : ` / ${fmtNum(k.usage.monthlyCredits)}`;
      return el(
        'tr',
        { 'data-key-id': k.id, class: live ? '' : 'dim' },
        el('th', { scope: 'row' }, k.name),
        el('td', {}, el('code', {}, k.id)),
        el('td', {}, k.plan === k.effectivePlan ? k.plan : `${k.plan} (limits of ${k.effectivePlan})`),
        el('td', {}, k.allowedIps.length ? k.allowedIps.join(', ') : 'any'),
        el('td', {}, el('span', { class: `badge ${k.status}` }, k.status)),
        el('td', {}, fmtDate(k.expiresAt)),
        el('td', {}, fmtDate(k.createdAt)),
        el('td', {}, `${fmtNum(k.usage.credits)}${quota} (${fmtNum(k.usage.calls)} calls)`),
        el(
          'td',
          { class: 'row-actions' },
          el('button', { type: 'button', 'aria-label': `Usage of ${k.name}`, onclick: () => showUsage(k.id) }, 'Usage'),
          el('button', { type: 'button', 'aria-label': `Edit ${k.name}`, onclick: () => showEdit(k.id), disabled: !live && k.status !== 'expired' }, 'Edit'),
          el('button', { type: 'button', 'aria-label': `Rotate ${k.name}`, onclick: () => rotateKey(k), disabled: k.status === 'revoked' }, 'Rotate'),
          el('button', { type: 'button', class: 'danger', 'aria-label': `Revoke ${k.name}`, onclick: () => revokeKey(k), disabled: k.status === 'revoked' }, 'Revoke'),
        ),
      );
    }),
  );
  $('keys-empty').hidden = state.keys.length > 0;
}

function showNewKey(title, key) {
  $('new-key-title').textContent = title;
  $('new-key-value').textContent = key;
  $('new-key').hidden = false;
  $('copy-key').focus();
}

export function hideNewKey() {
  $('new-key-value').textContent = '';
  $('new-key').hidden = true;
}

export async function createKey(ev) {
  ev.preventDefault();
  const f = ev.target;
  try {
    const r = await api('POST', '/keys', {
      name: f.name.value,
      plan: f.plan.value,
      allowedIps: linesOf(f.allowedIps.value),
      expiresAt: expiryOf(f.expiresAt.value),
    });
    f.reset();
    fillPlanSelect($('create-plan'), r.record.plan);
    showNewKey(`New key “${r.record.name}”`, r.key);
    say(`Key “${r.record.name}” created.`);
    await loadKeys();
  } catch (err) {
    fail(err);
  }
}

async function revokeKey(k) {
  if (!confirm(`Revoke the key “${k.name}” (${k.id})? Every request with it will be refused at once. This cannot be undone.`)) return;
  try {
    await api('POST', `/keys/${encodeURIComponent(k.id)}/revoke`);
    say(`Key “${k.name}” revoked.`);
    await loadKeys();
  } catch (err) {
    fail(err);
  }
}

async function rotateKey(k) {
  if (!confirm(`Rotate the key “${k.name}” (${k.id})? The current secret stops working at once; the new one is shown once.`)) return;
  try {
    const r = await api('POST', `/keys/${encodeURIComponent(k.id)}/rotate`);
    showNewKey(`Rotated key “${r.record.name}”`, r.key);
    say(`Key “${k.name}” rotated.`);
    await loadKeys();
  } catch (err) {
    fail(err);
  }
}

function showEdit(id) {
  const k = state.keys.find((x) => x.id === id);
  if (!k) return;
  state.editKeyId = id;
  const f = $('edit-form');
  $('edit-title').textContent = `Edit key “${k.name}”`;
  f.name.value = k.name;
  fillPlanSelect($('edit-plan'), k.plan);
  f.allowedIps.value = k.allowedIps.join('\n');
  f.expiresAt.value = k.expiresAt ? k.expiresAt.slice(0, 10) : '';
  f.hidden = false;
  f.name.focus();
}

export async function saveEdit(ev) {
  ev.preventDefault();
  const f = ev.target;
  const k = state.keys.find((x) => x.id === state.editKeyId);
  if (!k) return;
  const changes = { name: f.name.value, plan: f.plan.value, allowedIps: linesOf(f.allowedIps.value) };
  const expiry = expiryOf(f.expiresAt.value);
  // Only a changed expiry is sent (an unchanged past expiry is not re-validated).
  if ((expiry ?? '') !== (k.expiresAt ? k.expiresAt.slice(0, 10) : '')) changes.expiresAt = expiry;
  try {
    await api('PATCH', `/keys/${encodeURIComponent(k.id)}`, changes);
    f.hidden = true;
    state.editKeyId = null;
    say(`Key “${changes.name}” updated.`);
    await loadKeys();
  } catch (err) {
    fail(err);
  }
}
