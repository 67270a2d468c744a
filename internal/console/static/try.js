// The processing page: photos (one, fifty, or a dropped folder) sent
// through a configuration as asynchronous jobs, each with its progress,
// the batch's count, and each result with a before/after view, its times
// and a download; "Download all" saves the batch's results as one ZIP.

import { getJSON, request, ownPath } from './api.js';
import { h, objectURL, dropZone, localized, saveBlob } from './dom.js';
import { t, errorText, formatBytes } from './i18n.js';
import { rememberName, keepResult, downloadName, doneText, timingTable, warningList, compare, sleep } from './jobs.js';
import { zip } from './zip.js';

// Photos sent at once; the rest wait here rather than in the service's
// queue, which answers 503 when a company takes more than its share (a
// 503 or 429 is waited out and the photo sent again).
const AT_ONCE = 4;

export async function tryView(signal) {
  const configs = await getJSON('/v1/configuration/');
  const byName = new Map(configs.map((c) => [c.name, c]));
  const configSelect = h('select', { id: 'try-config' },
    configs.map((c) => {
      const text = localized(c.uiConfiguration?.nameDescriptions);
      return h('option', { value: c.name }, `${text?.name ? `${text.name} (${c.name})` : c.name} · ${t('credits', { n: c.cost })}`);
    }));
  const formatSelect = h('select', { id: 'try-format' },
    h('option', { value: '' }, t('try.formatAuto')),
    h('option', { value: 'jpeg' }, 'JPEG'), h('option', { value: 'png' }, 'PNG'), h('option', { value: 'webp' }, 'WebP'));
  const results = h('ul', { class: 'results', id: 'results' });
  const runs = [];
  const waiting = [];
  let running = 0;

  const bar = h('progress', { id: 'batch-progress', max: 1, value: 0, 'aria-label': t('try.batchProgress') });
  const count = h('p', { class: 'batch-count', id: 'batch-count', role: 'status', 'aria-live': 'polite' });
  const zipError = h('p', { class: 'error', role: 'alert' });
  const all = h('button', { type: 'button', id: 'download-all', disabled: true, onclick: async () => {
    zipError.textContent = '';
    all.disabled = true;
    try {
      const done = runs.filter((r) => r.blob);
      const files = done.map((r) => ({ name: downloadName(r.job), blob: r.blob, date: r.job.finishedDate }));
      const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
      saveBlob(await zip(files), `showroom-${configSelect.value}-${stamp}.zip`);
    } catch (err) {
      zipError.textContent = err.message;
    } finally {
      all.disabled = false;
    }
  } }, t('try.downloadAll'));
  const batch = h('div', { class: 'batch', id: 'batch', hidden: true }, count, bar,
    h('div', { class: 'actions' }, all, h('a', { class: 'button secondary', href: '#/history' }, t('try.toHistory'))), zipError);

  const update = () => {
    const done = runs.filter((r) => r.state === 'succeeded').length;
    const failed = runs.filter((r) => r.state === 'failed').length;
    batch.hidden = runs.length < 2;
    bar.max = runs.length || 1;
    bar.value = done + failed;
    count.textContent = `${t('try.count', { done: done + failed, n: runs.length })}${failed ? ` · ${t('try.failed', { n: failed })}` : ''}`;
    all.disabled = done === 0 || done + failed < runs.length;
    all.textContent = t('try.downloadAll', { n: done });
  };
  const next = () => {
    while (running < AT_ONCE && waiting.length && !signal.aborted) {
      running++;
      waiting.shift()().finally(() => {
        running--;
        update();
        next();
      });
    }
  };
  const zone = dropZone({
    id: 'try-photos', multiple: true, text: t('try.drop'),
    onFiles: (files) => {
      const config = byName.get(configSelect.value);
      const items = files.map((file) => new Run(file, config, formatSelect.value, signal, update));
      runs.push(...items);
      // The newest batch on top, each in the order it was chosen.
      results.prepend(...items.map((i) => i.el));
      if (runs.length === 1) items[0].open = true;
      waiting.push(...items.map((i) => () => i.run()));
      update();
      next();
    },
  });
  return h('section', { 'aria-labelledby': 'try-title' },
    h('div', { class: 'page-head' }, h('h1', { id: 'try-title' }, t('try.title'))),
    h('div', { class: 'grid2' },
      h('div', { class: 'field' }, h('label', { for: 'try-config' }, t('try.configuration')), configSelect),
      h('div', { class: 'field' }, h('label', { for: 'try-format' }, t('try.format')), formatSelect)),
    zone,
    h('p', { class: 'hint' }, t('try.charged')),
    batch,
    results);
}

// Run is one photo's trip through the service and its card on the page.
class Run {
  constructor(file, config, format, signal, changed) {
    Object.assign(this, { file, config, format, signal, changed, state: 'waiting' });
    this.original = objectURL(file);
    this.status = h('p', { class: 'job-status', role: 'status' }, t('job.waiting'));
    this.progress = h('progress', { 'aria-label': t('job.progress', { name: file.name }) });
    this.details = h('details', { class: 'result-details' }, h('summary', {}, t('job.show')));
    this.el = h('li', { class: 'result', 'data-file': file.name },
      h('img', { class: 'result-thumb', src: this.original, alt: '' }),
      h('div', { class: 'result-main' },
        h('div', { class: 'result-head' }, h('h3', {}, file.name),
          h('span', { class: 'meta' }, `${config.name} · ${formatBytes(file.size)}`)),
        this.status, this.progress),
      this.details);
  }

  set open(v) { this.details.open = v; }

  async run() {
    try {
      const q = new URLSearchParams({ async: 'true' });
      if (this.format) q.set('format', this.format);
      let job;
      for (;;) {
        this.state = 'sending';
        this.status.textContent = t('job.uploading');
        try {
          job = await (await request('POST', `/v1/process/single/${encodeURIComponent(this.config.name)}?${q}`, {
            body: this.file, headers: { 'Content-Type': this.file.type || 'application/octet-stream' },
          })).json();
          break;
        } catch (err) {
          // The company's share of the queue, or its rate, is used up
          // by the rest of the batch: wait as long as the service says.
          if (!['SERVICE_OVERLOADED', 'TOO_MANY_REQUESTS'].includes(err.code) || !err.retryAfter) throw err;
          this.status.textContent = t('job.busy');
          await sleep(err.retryAfter * 1000, this.signal);
        }
      }
      rememberName(job.id, this.file.name);
      this.el.dataset.job = job.id;
      while (job.status === 'queued' || job.status === 'running') {
        this.state = job.status;
        this.status.textContent = job.status === 'queued' ? t('job.queuedNow') : job.attempts > 1 ? t('job.runningAgain', { n: job.attempts }) : t('job.running');
        await sleep(400, this.signal);
        job = await getJSON(ownPath(job.href));
      }
      if (job.status !== 'succeeded') {
        this.fail(job.error?.errorCode, job.error?.message || job.status);
        return;
      }
      const blob = await (await request('GET', ownPath(job.result.href))).blob();
      keepResult(job.id, blob);
      this.done(job, blob);
    } catch (err) {
      if (!this.signal.aborted) this.fail(err.code, err.message);
    }
  }

  fail(code, message) {
    this.state = 'failed';
    this.progress.remove();
    this.el.classList.add('failed');
    this.status.textContent = `${t('job.failed', { message: errorText(code, message) })}${code ? ` (${code})` : ''}`;
    this.changed();
  }

  done(job, blob) {
    Object.assign(this, { job, blob, state: 'succeeded' });
    this.progress.remove();
    this.el.classList.add('succeeded');
    const url = objectURL(blob);
    const ext = downloadName(job).split('.').pop();
    this.el.querySelector('.result-thumb').src = url;
    this.status.textContent = `${doneText(job)} · ${t('credits', { n: job.cost })} · ${formatBytes(job.result.size)}`;
    if (job.warnings.length) this.el.classList.add('warned');
    this.el.querySelector('.result-main').append(warningList(job.warnings) || '',
      h('div', { class: 'actions' },
        h('a', { class: 'button', href: url, download: downloadName(job) }, t('job.download', { ext: ext.toUpperCase() })),
        h('a', { class: 'button secondary', href: this.original, download: this.file.name }, t('job.downloadOriginal'))));
    this.details.append(h('div', { class: 'result-body' },
      compare(this.original, url, this.file.name, this.config.configurations),
      h('div', { class: 'result-side' }, timingTable(job))));
    this.changed();
  }
}
