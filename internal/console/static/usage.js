// The usage page: the company's credit balance, its recent charges and its
// recent jobs.

import { getJSON } from './api.js';
import { h, formatDate } from './dom.js';

export async function usageView() {
  const [usage, jobs] = await Promise.all([getJSON('/v1/usage'), getJSON('/v1/process/jobs?limit=20')]);
  return h('section', { 'aria-labelledby': 'usage-title' },
    h('div', { class: 'page-head' }, h('h1', { id: 'usage-title' }, 'Usage')),
    h('p', { class: 'balance', id: 'balance' },
      h('span', { class: 'label' }, 'Credit balance'),
      h('strong', {}, usage.unlimited ? 'Unlimited' : `${usage.balance} credit${usage.balance === 1 ? '' : 's'}`)),
    h('h2', {}, 'Recent jobs'),
    jobs.jobs.length ? table(['When', 'Configuration', 'Status', 'Credits', 'By', 'Message'],
      jobs.jobs.map((j) => [formatDate(j.createdDate), j.configuration, h('span', { class: `badge ${j.status}` }, j.status),
        j.status === 'succeeded' ? String(j.cost) : '0', j.createdBy, j.error?.message || (j.warnings || []).map((w) => w.message).join('; ')]), 'jobs')
      : h('p', { class: 'empty' }, 'No jobs yet.'),
    h('h2', {}, 'Recent charges'),
    usage.recentCharges.length ? table(['When', 'Configuration', 'Credits', 'Job'],
      usage.recentCharges.map((c) => [formatDate(c.date), c.configuration, String(c.amount), c.jobId]), 'charges')
      : h('p', { class: 'empty' }, 'No charges yet.'));
}

function table(heads, rows, id) {
  return h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': id }, h('table', { id },
    h('thead', {}, h('tr', {}, heads.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c)))))));
}
