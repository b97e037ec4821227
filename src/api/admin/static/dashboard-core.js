// solgate dashboard, shared part: the admin API client, DOM helpers, formatting and the page's state.
// The admin token lives in sessionStorage (this tab only) and is sent as a bearer token. Every value from the API is
// put in the page as text (textContent), never as HTML.

export const TOKEN_KEY = 'solgate.adminToken';
export const $ = (id) => document.getElementById(id);
const SVG_NS = 'http://www.w3.org/2000/svg';

export const state = {
  plans: [],
  keys: [],
  usageKeyId: null,
  editKeyId: null,
  deliveriesOf: null,
  deliveriesCursor: null,
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error + (body.details ? `: ${body.details}` : '') : `HTTP ${status}`);
    this.status = status;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

let onUnauthorized = () => {};

/** What a 401 from the API does (the page signs out); set once by dashboard.js. */
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

export async function api(method, path, body) {
  const headers = { authorization: `Bearer ${token()}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/admin/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => null);
  if (res.status === 401) {
    onUnauthorized('Your admin token was not accepted; sign in again.');
    throw new ApiError(401, data);
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export function el(tag, attrs = {}, ...children) {
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

export function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

export const fmtDate = (iso) => (iso ? iso.slice(0, 10) : '—');
export const fmtTime = (iso) => (iso ? iso.replace('T', ' ').slice(0, 19) + ' UTC' : '—');
export const fmtNum = (n) => (n === null || n === undefined ? '∞' : Number(n).toLocaleString('en-US'));

export function say(text, isError = false) {
  const m = $('message');
  m.textContent = text;
  m.classList.toggle('error', isError);
}

export function fail(err) {
  if (err instanceof ApiError && err.status === 401) return;
  say(err.message || String(err), true);
}

export function fillPlanSelect(select, selected) {
  select.replaceChildren(
    ...state.plans.map((p) => el('option', { value: p.name, selected: p.name === selected }, `${p.name} (${p.monthlyCredits === null ? 'unlimited' : fmtNum(p.monthlyCredits)} credits/month)`)),
  );
}
