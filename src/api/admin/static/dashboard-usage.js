// solgate dashboard: a key's usage (calls and credits per day as an SVG bar chart, and per method).

import { $, api, el, fail, fmtNum, state, svg } from './dashboard-core.js';

export async function showUsage(id) {
  state.usageKeyId = id;
  $('usage').hidden = false;
  await loadUsage();
  $('usage').scrollIntoView({ block: 'nearest' });
}

export async function loadUsage() {
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
