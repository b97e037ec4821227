// solgate dashboard: plain browser JavaScript modules (no build step, no dependencies) over the admin JSON API
// (/admin/api, src/api/admin/api.ts). This module signs in and out and wires the page; the views are
// dashboard-keys.js, dashboard-usage.js and dashboard-webhooks.js, the shared client and helpers dashboard-core.js.

import { $, ApiError, TOKEN_KEY, api, fail, fillPlanSelect, say, setUnauthorizedHandler, state, token } from './dashboard-core.js';
import { createKey, hideNewKey, loadKeys, saveEdit } from './dashboard-keys.js';
import { loadUsage } from './dashboard-usage.js';
import { loadDeliveries, loadWebhooks, showDeliveries } from './dashboard-webhooks.js';

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

setUnauthorizedHandler(signOut);

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
