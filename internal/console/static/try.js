// The try-it page: photos sent through a configuration as asynchronous
// jobs, each result beside its original with a before/after slider, the
// time of every step (the result's Server-Timing) and a download button.

import { getJSON, request, ownPath } from './api.js';
import { h, objectURL, dropZone, localized, formatBytes } from './dom.js';

const EXTENSIONS = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };
// Photos sent at once; the rest wait here rather than in the service's
// queue, which answers 503 when a company takes more than its share.
const AT_ONCE = 2;

export async function tryView(signal) {
  const configs = await getJSON('/v1/configuration/');
  const configSelect = h('select', { id: 'try-config' },
    configs.map((c) => h('option', { value: c.name },
      `${localized(c.uiConfiguration?.nameDescriptions)?.name || c.name}${localized(c.uiConfiguration?.nameDescriptions)?.name ? ` (${c.name})` : ''} · ${c.cost} credit${c.cost === 1 ? '' : 's'}`)));
  const formatSelect = h('select', { id: 'try-format' },
    h('option', { value: '' }, 'Automatic (JPEG, PNG with transparency)'),
    h('option', { value: 'jpeg' }, 'JPEG'), h('option', { value: 'png' }, 'PNG'), h('option', { value: 'webp' }, 'WebP'));
  const results = h('ul', { class: 'results', id: 'results', 'aria-live': 'polite' });
  const waiting = [];
  let running = 0;
  const next = () => {
    while (running < AT_ONCE && waiting.length && !signal.aborted) {
      running++;
      waiting.shift()().finally(() => {
        running--;
        next();
      });
    }
  };
  const zone = dropZone({
    id: 'try-photos', multiple: true, text: 'Car photos to process',
    onFiles: (files) => {
      for (const file of files) {
        const item = new Run(file, configSelect.value, formatSelect.value, signal);
        results.prepend(item.el);
        waiting.push(() => item.run());
      }
      next();
    },
  });
  return h('section', { 'aria-labelledby': 'try-title' },
    h('div', { class: 'page-head' }, h('h1', { id: 'try-title' }, 'Try it')),
    h('div', { class: 'grid2' },
      h('div', { class: 'field' }, h('label', { for: 'try-config' }, 'Configuration'), configSelect),
      h('div', { class: 'field' }, h('label', { for: 'try-format' }, 'Format'), formatSelect)),
    zone,
    h('p', { class: 'hint' }, 'Each photo is charged its configuration’s credits when it succeeds.'),
    results);
}

// Run is one photo's trip through the service and its card on the page.
class Run {
  constructor(file, config, format, signal) {
    Object.assign(this, { file, config, format, signal });
    this.original = objectURL(file);
    this.status = h('p', { class: 'job-status', role: 'status' }, 'Waiting to be sent…');
    this.progress = h('progress', { 'aria-label': `Progress of ${file.name}` });
    this.body = h('div', { class: 'result-body' }, h('img', { class: 'original', src: this.original, alt: `Original: ${file.name}` }));
    this.el = h('li', { class: 'result' },
      h('div', { class: 'result-head' }, h('h3', {}, file.name), h('span', { class: 'meta' }, `${config} · ${formatBytes(file.size)}`)),
      this.status, this.progress, this.body);
  }

  async run() {
    try {
      const q = new URLSearchParams({ async: 'true' });
      if (this.format) q.set('format', this.format);
      this.status.textContent = 'Uploading…';
      let job = await (await request('POST', `/v1/process/single/${encodeURIComponent(this.config)}?${q}`, {
        body: this.file, headers: { 'Content-Type': this.file.type || 'application/octet-stream' },
      })).json();
      while (job.status === 'queued' || job.status === 'running') {
        this.status.textContent = job.status === 'queued' ? 'Waiting in the queue…' : `Processing${job.attempts > 1 ? ` (attempt ${job.attempts})` : ''}…`;
        await sleep(400, this.signal);
        job = await getJSON(ownPath(job.href));
      }
      if (job.status !== 'succeeded') {
        this.fail(job.error?.message || `The job ended ${job.status}.`, job.error?.errorCode);
        return;
      }
      const res = await request('GET', ownPath(job.result.href));
      const timings = serverTiming(res.headers.get('Server-Timing'));
      const url = objectURL(await res.blob());
      this.done(job, url, timings);
    } catch (err) {
      if (!this.signal.aborted) this.fail(err.message, err.code);
    }
  }

  fail(message, code) {
    this.progress.remove();
    this.el.classList.add('failed');
    this.status.textContent = `Failed: ${message}${code ? ` (${code})` : ''}`;
  }

  done(job, url, timings) {
    this.progress.remove();
    this.el.classList.add('succeeded');
    const total = timings.reduce((s, t) => s + t.ms, 0);
    this.status.textContent = `Done in ${(total / 1000).toFixed(1)} s · ${job.cost} credit${job.cost === 1 ? '' : 's'} · ${formatBytes(job.result.size)}`;
    const ext = EXTENSIONS[job.result.mediaType] || 'img';
    const stem = this.file.name.replace(/\.[^.]*$/, '');
    this.body.replaceChildren(
      compare(this.original, url, this.file.name),
      h('div', { class: 'result-side' },
        h('a', { class: 'button', href: url, download: `${stem}-${job.configuration}.${ext}` }, `Download ${ext.toUpperCase()}`),
        h('a', { class: 'button secondary', href: this.original, download: this.file.name }, 'Download original'),
        warningList(job.warnings),
        h('table', { class: 'timings' },
          h('caption', {}, 'Time per step'),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'step'), h('th', { scope: 'col', class: 'num' }, 'ms'))),
          h('tbody', {}, timings.map((t) => h('tr', {}, h('td', {}, t.name), h('td', { class: 'num' }, t.ms.toFixed(1))))))));
  }
}

// warningList shows what to check in a result before publishing it (the
// job record's warnings), or nothing for a clean photo.
function warningList(warnings) {
  if (!warnings?.length) return null;
  return h('ul', { class: 'warnings', 'aria-label': 'Check before publishing' },
    warnings.map((w) => h('li', { title: w.code }, w.message)));
}

// compare shows the result with the original over it, cut off at the
// slider: left of it the original, right of it the result.
function compare(before, after, name) {
  const afterImg = h('img', { class: 'after', src: after, alt: `Result: ${name}` });
  const beforeImg = h('img', { class: 'before', src: before, alt: '' });
  const divider = h('div', { class: 'divider' });
  const box = h('div', { class: 'compare' }, afterImg, beforeImg, divider,
    h('span', { class: 'tag left' }, 'before'), h('span', { class: 'tag right' }, 'after'));
  const slider = h('input', { type: 'range', min: 0, max: 100, value: 50, class: 'slider', 'aria-label': `Before and after: how much of the original of ${name} to show` });
  const set = () => {
    beforeImg.style.clipPath = `inset(0 ${100 - slider.value}% 0 0)`;
    divider.style.left = `${slider.value}%`;
  };
  slider.addEventListener('input', set);
  afterImg.addEventListener('load', () => {
    box.style.aspectRatio = `${afterImg.naturalWidth} / ${afterImg.naturalHeight}`;
  });
  set();
  return h('div', { class: 'compare-wrap' }, box, slider);
}

// serverTiming reads a Server-Timing header: name;dur=12.3;desc="1", ...
export function serverTiming(header) {
  if (!header) return [];
  return header.split(',').map((part) => {
    const [name, ...params] = part.trim().split(';');
    const dur = params.map((p) => p.trim()).find((p) => p.startsWith('dur='));
    return { name, ms: dur ? Number(dur.slice(4)) : 0 };
  }).filter((t) => t.name);
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new DOMException('left the page', 'AbortError'));
    }, { once: true });
  });
}
