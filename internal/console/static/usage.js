// The usage page: the company's credit balance, its recent charges and its
// recent jobs.

import { getJSON } from './api.js';
import { h } from './dom.js';
import { t, formatDate, errorText, warningText } from './i18n.js';

export async function usageView() {
  const [usage, jobs] = await Promise.all([getJSON('/v1/usage'), getJSON('/v1/process/jobs?limit=20')]);
  return h('section', { 'aria-labelledby': 'usage-title' },
    h('div', { class: 'page-head' }, h('h1', { id: 'usage-title' }, t('usage.title'))),
    h('p', { class: 'balance', id: 'balance' },
      h('span', { class: 'label' }, t('usage.balance')),
      h('strong', {}, usage.unlimited ? t('usage.unlimited') : t('credits', { n: usage.balance }))),
    h('h2', {}, t('usage.jobs')),
    jobs.jobs.length ? table([t('col.when'), t('col.configuration'), t('col.status'), t('col.credits'), t('col.by'), t('col.message')],
      jobs.jobs.map((j) => [formatDate(j.createdDate), j.configuration, h('span', { class: `badge ${j.status}` }, t(`status.${j.status}`)),
        j.status === 'succeeded' ? String(j.cost) : '0', j.createdBy,
        j.error ? errorText(j.error.errorCode, j.error.message) : (j.warnings || []).map((w) => warningText(w.code, w.message)).join('; ')]), 'jobs')
      : h('p', { class: 'empty' }, t('usage.noJobs')),
    h('p', {}, h('a', { href: '#/history' }, t('usage.toHistory'))),
    h('h2', {}, t('usage.charges')),
    usage.recentCharges.length ? table([t('col.when'), t('col.configuration'), t('col.credits'), t('col.job')],
      usage.recentCharges.map((c) => [formatDate(c.date), c.configuration, String(c.amount), c.jobId]), 'charges')
      : h('p', { class: 'empty' }, t('usage.noCharges')));
}

function table(heads, rows, id) {
  return h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': id }, h('table', { id },
    h('thead', {}, h('tr', {}, heads.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map((c) => h('td', {}, c)))))));
}
