// solgate dashboard: plain browser JavaScript (no build step, no dependencies) over the admin JSON API
// (/admin/api, src/api/admin/api.ts). The admin token lives in sessionStorage (this tab only) and is sent as a bearer
// token. Every value from the API is put in the page as text (textContent), never as HTML.

const TOKEN_KEY = 'solgate.adminToken';
const $ = (id) => document.getElementById(id);
const SVG_NS = 'http://www.w3.org/2000/svg';

const state = {
  plans: [],
  keys: [],
  usageKeyId: null,
  editKeyId: null,
  deliveriesOf: null,
  deliveriesCursor: null,
};

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error + (body.details ? `: ${body.details}` : '') : `HTTP ${status}`);
    this.status = status;
  }
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

async function api(method, path, body) {
  const headers = { authorization: `Bearer ${token()}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/admin/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => null);
  if (res.status === 401) {
    signOut('Your admin token was not accepted; sign in again.');
    throw new ApiError(401, data);
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

const fmtDate = (iso) => (iso ? iso.slice(0, 10) : '—');
const fmtTime = (iso) => (iso ? iso.replace('T', ' ').slice(0, 19) + ' UTC' : '—');
const fmtNum = (n) => (n === null || n === undefined ? '∞' : Number(n).toLocaleString('en-US'));

function say(text, isError = false) {
  const m = $('message');
  m.textContent = text;
  m.classList.toggle('error', isError);
}

function fail(err) {
  if (err instanceof ApiError && err.status === 401) return;
  say(err.message || String(err), true);
}

// ---------- sign-in ----------

function showSignedIn(on) {
  $('sign-in').hidden = on;
  $('app').hidden = !on;
  $('sign-out').hidden = !on;
}

function signOut(reason) {
  sessionStorage.removeItem(TOKEN_KEY);
  showSignedIn(false);
  $('sign-in-error').textContent = reason || '';
  hideNewKey();
}

async function start() {
  try {
    const p = await api('GET', '/plans');
    state.plans = p.plans;
    fillPlanSelect($('create-plan'), p.plans.some((x) => x.name === 'developer') ? 'developer' : p.fallbackPlan);
    fillPlanSelect($('edit-plan'));
    showSignedIn(true);
    await Promise.all([loadKeys(), loadWebhooks()]);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) $('sign-in-error').textContent = `Could not reach the admin API: ${err.message}`;
  }
}

function fillPlanSelect(select, selected) {
  select.replaceChildren(
    ...state.plans.map((p) => el('option', { value: p.name, selected: p.name === selected }, `${p.name} (${p.monthlyCredits === null ? 'unlimited' : fmtNum(p.monthlyCredits)} credits/month)`)),
  );
}

// ---------- keys ----------

const linesOf = (text) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
const expiryOf = (value) => (value ? value : null);

async function loadKeys() {
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

function hideNewKey() {
  $('new-key-value').textContent = '';
  $('new-key').hidden = true;
}

async function createKey(ev) {
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

async function saveEdit(ev) {
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

// ---------- usage ----------

async function showUsage(id) {
  state.usageKeyId = id;
  $('usage').hidden = false;
  await loadUsage();
  $('usage').scrollIntoView({ block: 'nearest' });
}

async function loadUsage() {
  const id = state.usageKeyId;
  const k = state.keys.find((x) => x.id === id);
  const days = Number($('usage-days').value);
  const to = new Date();
  const from = new Date(to.getTime() - (days - 1) * 86_400_000);
  try {
    const u = await api('GET', `/keys/${encodeURIComponent(id)}/usage?from=${from.toISOString().slice(0, 10)}&to=${to.toISOString().slice(0, 10)}`);
    if (state.usageKeyId !== id) return;
    $('usage-title').textContent = `Usage of “${k ? k.name : id}”`;
    $('usage-total').textContent = `${u.from} to ${u.to}: ${fmtNum(u.total.calls)} ${u.total.calls === 1 ? 'call' : 'calls'}, ${fmtNum(u.total.credits)} credits`;
    drawChart(u, $('usage-measure').value);
    $('usage-methods').tBodies[0].replaceChildren(
      ...(u.methods.length
        ? u.methods.map((m) => el('tr', {}, el('th', { scope: 'row' }, m.method), el('td', {}, fmtNum(m.calls)), el('td', {}, fmtNum(m.credits))))
        : [el('tr', {}, el('td', { colspan: 3 }, 'No calls in this range.'))]),
    );
  } catch (err) {
    fail(err);
  }
}

/** A bar chart of calls (or credits) per day, drawn as inline SVG; each bar has a <title> tooltip. */
function drawChart(u, measure) {
  const W = 720, H = 220, left = 56, right = 8, top = 10, bottom = 28;
  const values = u.days.map((d) => d[measure]);
  const max = Math.max(1, ...values);
  // A "nice" tick step (1, 2 or 5 × a power of ten, at least 1: counts are integers) for about four gridlines.
  const raw = Math.max(1, max / 4);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((v) => v >= raw);
  const ticks = Math.max(1, Math.ceil(max / step));
  const axisMax = step * ticks;
  const plotW = W - left - right, plotH = H - top - bottom;
  const slot = plotW / values.length;
  const barW = Math.max(1, slot * 0.7);
  const label = `${measure === 'calls' ? 'Calls' : 'Credits'} per day from ${u.from} to ${u.to}; total ${fmtNum(u.total[measure])}`;
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label, class: 'bars' });
  chart.append(svg('title', {}, label));
  for (let i = 0; i <= ticks; i++) {
    const v = step * i;
    const y = top + plotH - (v / axisMax) * plotH;
    chart.append(svg('line', { x1: left, x2: W - right, y1: y, y2: y, class: 'grid' }));
    chart.append(svg('text', { x: left - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, fmtNum(v)));
  }
  u.days.forEach((d, i) => {
    const v = d[measure];
    const h = (v / axisMax) * plotH;
    const x = left + i * slot + (slot - barW) / 2;
    const bar = svg('rect', { x, y: top + plotH - h, width: barW, height: Math.max(h, v > 0 ? 1 : 0), class: 'bar', 'data-day': d.day, 'data-value': v });
    const methods = d.methods.map((m) => `\n${m.method}: ${fmtNum(m.calls)} calls, ${fmtNum(m.credits)} credits`).join('');
    bar.append(svg('title', {}, `${d.day}: ${fmtNum(d.calls)} calls, ${fmtNum(d.credits)} credits${methods}`));
    chart.append(bar);
    // Day labels every few days, counted back from the last day (always labelled).
    const every = Math.ceil(values.length / 8);
    if ((values.length - 1 - i) % every === 0)
      chart.append(svg('text', { x: left + i * slot + slot / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis' }, d.day.slice(5)));
  });
  $('usage-chart').replaceChildren(chart);
}

// ---------- webhooks ----------

async function loadWebhooks() {
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

async function showDeliveries(w) {
  state.deliveriesOf = w;
  state.deliveriesCursor = null;
  $('deliveries-title').textContent = `Delivery log of ${w.webhookURL}`;
  $('deliveries-table').tBodies[0].replaceChildren();
  $('deliveries').hidden = false;
  await loadDeliveries();
}

async function loadDeliveries() {
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

// ---------- wiring ----------

async function refreshAll() {
  try {
    await Promise.all([loadKeys(), loadWebhooks()]);
    if (state.deliveriesOf) await showDeliveries(state.deliveriesOf);
  } catch (err) {
    fail(err);
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = $('admin-token').value.trim();
    if (!t) return;
    sessionStorage.setItem(TOKEN_KEY, t);
    $('admin-token').value = '';
    $('sign-in-error').textContent = '';
    start();
  });
  $('sign-out').addEventListener('click', () => signOut(''));
  $('create-form').addEventListener('submit', createKey);
  $('edit-form').addEventListener('submit', saveEdit);
  $('edit-cancel').addEventListener('click', () => {
    $('edit-form').hidden = true;
    say('');
    state.editKeyId = null;
  });
  $('dismiss-key').addEventListener('click', hideNewKey);
  $('copy-key').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('new-key-value').textContent);
      say('Key copied to the clipboard.');
    } catch {
      say('Copying failed; select the key and copy it by hand.', true);
    }
  });
  $('refresh').addEventListener('click', refreshAll);
  $('usage-days').addEventListener('change', loadUsage);
  $('usage-measure').addEventListener('change', loadUsage);
  $('deliveries-more').addEventListener('click', loadDeliveries);
  if (token()) start();
});
