// What the processing page and the history share: a job's result fetched
// once per tab, its file name, its times, its warnings, and the
// before/after view.

import { request, ownPath, username } from './api.js';
import { h } from './dom.js';
import { t, processorText, warningText, formatSeconds } from './i18n.js';

export const EXTENSIONS = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

// The file names of the photos sent from this browser, by job id: the
// service keeps the photo, not its name, and a result is easier to find
// as "IMG_0412-default_white.jpg" than by its job id. Kept in
// localStorage per user (the last 2,000), so the history shows them on
// later visits too.
const NAMES_MAX = 2000;

function namesKey() { return `showroom.names.${username()}`; }

function readJSON(key, fallback) {
  try {
    return JSON.parse(localStorage.getItem(key) || 'null') ?? fallback;
  } catch {
    return fallback;
  }
}

export function rememberName(jobID, fileName) {
  const names = readJSON(namesKey(), {});
  names[jobID] = fileName;
  const ids = Object.keys(names);
  for (const id of ids.slice(0, Math.max(0, ids.length - NAMES_MAX))) delete names[id];
  try {
    localStorage.setItem(namesKey(), JSON.stringify(names));
  } catch {
    // A full storage loses only the names.
  }
}

export function photoName(jobID) {
  return readJSON(namesKey(), {})[jobID] || '';
}

/** downloadName is the name a result is saved under: the photo's name and the configuration. */
export function downloadName(job) {
  const ext = EXTENSIONS[job.result?.mediaType] || 'img';
  const stem = photoName(job.id).replace(/\.[^.]*$/, '') || job.id.slice(0, 12);
  return `${stem}-${job.configuration}.${ext}`;
}

// Results already fetched in this tab, by job id: a result never
// changes, so the history and a batch's ZIP need not ask twice.
const results = new Map();
const RESULTS_MAX = 60;

/** resultBlob fetches a succeeded job's result (once per tab). */
export async function resultBlob(job) {
  let p = results.get(job.id);
  if (!p) {
    p = request('GET', ownPath(job.result.href)).then((res) => res.blob());
    p.catch(() => results.delete(job.id));
    results.set(job.id, p);
    if (results.size > RESULTS_MAX) results.delete(results.keys().next().value);
  }
  return p;
}

export function keepResult(jobID, blob) {
  results.set(jobID, Promise.resolve(blob));
  if (results.size > RESULTS_MAX) results.delete(results.keys().next().value);
}

// Thumbnails made in this tab, by job id: a small JPEG of the result
// (and a limit on how many results are fetched at once to make them).
const thumbs = new Map();
const THUMBS_MAX = 1000;
let fetching = 0;
const queue = [];

/** thumbnail is a small picture of a succeeded job's result, made once per tab. */
export function thumbnail(job) {
  let p = thumbs.get(job.id);
  if (!p) {
    p = new Promise((resolve, reject) => queue.push({ job, resolve, reject }));
    p.catch(() => thumbs.delete(job.id));
    thumbs.set(job.id, p);
    if (thumbs.size > THUMBS_MAX) thumbs.delete(thumbs.keys().next().value);
    pump();
  }
  return p;
}

function pump() {
  while (fetching < 4 && queue.length) {
    const { job, resolve, reject } = queue.shift();
    fetching++;
    resultBlob(job).then(shrink).then(resolve, reject).finally(() => {
      fetching--;
      pump();
    });
  }
}

async function shrink(blob) {
  const bmp = await createImageBitmap(blob);
  const scale = Math.min(1, 480 / bmp.width, 360 / bmp.height);
  const c = document.createElement('canvas');
  c.width = Math.max(1, Math.round(bmp.width * scale));
  c.height = Math.max(1, Math.round(bmp.height * scale));
  const g = c.getContext('2d');
  g.drawImage(bmp, 0, 0, c.width, c.height);
  bmp.close();
  // PNG keeps a cutout's transparency; a photo is smaller as JPEG.
  return new Promise((resolve) => c.toBlob(resolve, blob.type === 'image/jpeg' ? 'image/jpeg' : 'image/png', 0.85));
}

/**
 * times is how long a job took, as the person who sent it saw it: the run
 * from its start to its end (the steps' own times would count the model's
 * wait twice, inside the detection and as ModelWait, and two steps that
 * run side by side once each), and the wait in the queue before it.
 */
export function times(job) {
  const run = job.finishedDate && job.startedDate ? job.finishedDate - job.startedDate : 0;
  const queued = job.startedDate ? job.startedDate - job.createdDate : 0;
  return { run, queued };
}

export function doneText(job) {
  const { run, queued } = times(job);
  const parts = [t('job.doneIn', { time: formatSeconds(run) })];
  if (queued >= 100) parts.push(t('job.queued', { time: formatSeconds(queued) }));
  return parts.join(' ');
}

/** timingTable is each step's time; the model's wait shown inside the detection, not beside it. */
export function timingTable(job) {
  const rows = job.timings.map((s) => {
    const wait = s.name === 'ModelWait';
    const label = wait ? t('timing.modelWait') : ['decode', 'render', 'encode'].includes(s.name) ? t(`timing.${s.name}`) : processorText(s.name).name;
    return h('tr', { class: wait ? 'sub' : null },
      h('td', {}, label, wait || label === s.name ? null : h('span', { class: 'code' }, ` ${s.name}`)),
      h('td', { class: 'num' }, s.ms.toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 })));
  });
  return h('table', { class: 'timings' },
    h('caption', {}, t('timing.caption')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('timing.step')), h('th', { scope: 'col', class: 'num' }, 'ms'))),
    h('tbody', {}, rows));
}

/** warningList shows what to check in a result before publishing it, or nothing for a clean photo. */
export function warningList(warnings) {
  if (!warnings?.length) return null;
  return h('ul', { class: 'warnings', 'aria-label': t('job.check') },
    warnings.map((w) => h('li', { title: `${w.code}: ${w.message}`, 'data-code': w.code }, warningText(w.code, w.message))));
}

// Processors after which the car is no longer where it was in the photo.
const MOVES = new Set(['PlaceCarProcessor', 'AddBackgroundAndCropProcessor', 'ResizeProcessor']);

/**
 * compare shows the original and the result so that the two line up.
 * When the result keeps the photo's frame (a cutout, a new colour behind
 * the car), a slider over the two: each pixel of the original lies under
 * the same pixel of the result. When the configuration moves, scales or
 * crops the car, no slider position could line the two up, so they stand
 * side by side at one height instead.
 */
export function compare(before, after, name, steps) {
  const moves = (steps || []).some((s) => MOVES.has(s.processorName));
  const afterImg = h('img', { class: 'after', src: after, alt: t('job.resultAlt', { name }) });
  const beforeImg = h('img', { class: 'before', src: before, alt: t('job.originalAlt', { name }) });
  const wrap = h('div', { class: 'compare-wrap' });
  const sideBySide = () => {
    wrap.replaceChildren(h('div', { class: 'side-by-side' },
      h('figure', {}, beforeImg, h('figcaption', {}, t('job.before'))),
      h('figure', {}, afterImg, h('figcaption', {}, t('job.after')))));
  };
  if (moves) {
    sideBySide();
    return wrap;
  }
  beforeImg.alt = '';
  const divider = h('div', { class: 'divider' });
  const box = h('div', { class: 'compare' }, afterImg, beforeImg, divider,
    h('span', { class: 'tag left' }, t('job.before')), h('span', { class: 'tag right' }, t('job.after')));
  const slider = h('input', { type: 'range', min: 0, max: 100, value: 50, class: 'slider', 'aria-label': t('job.slider', { name }) });
  const set = () => {
    beforeImg.style.clipPath = `inset(0 ${100 - slider.value}% 0 0)`;
    divider.style.left = `${slider.value}%`;
  };
  slider.addEventListener('input', set);
  const loaded = () => {
    if (!afterImg.naturalWidth || !beforeImg.naturalWidth) return;
    // A frame of another shape (an output size, a crop) cannot line up
    // either.
    const ra = afterImg.naturalWidth / afterImg.naturalHeight;
    const rb = beforeImg.naturalWidth / beforeImg.naturalHeight;
    if (Math.abs(ra - rb) > 0.01 * ra) {
      afterImg.alt = t('job.resultAlt', { name });
      beforeImg.alt = t('job.originalAlt', { name });
      sideBySide();
      return;
    }
    box.style.aspectRatio = `${afterImg.naturalWidth} / ${afterImg.naturalHeight}`;
  };
  afterImg.addEventListener('load', loaded);
  beforeImg.addEventListener('load', loaded);
  set();
  wrap.append(box, slider);
  return wrap;
}

export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new DOMException('left the page', 'AbortError'));
    }, { once: true });
  });
}
