// The history: the company's jobs, newest first (GET /v1/process/jobs, a
// page at a time), each with a thumbnail of its result, its status and
// warnings and a download. Results can be picked across pages and saved
// as one ZIP, made in the browser (zip.js) from the results the page
// fetches with the access token, as a single download is: the service
// needs no archive endpoint, builds nothing and holds nothing for it. The
// selection is kept in localStorage per user, so it survives other pages,
// more pages of the list and a later visit.

import { getJSON, ownPath, username } from './api.js';
import { h, objectURL, saveBlob } from './dom.js';
import { t, errorText, formatDate, formatBytes } from './i18n.js';
import { photoName, downloadName, resultBlob, thumbnail, warningList, doneText, sleep } from './jobs.js';
import { zip } from './zip.js';

const PAGE = 20;

function selectionKey() { return `showroom.selection.${username()}`; }

// The selection: job id -> what a ZIP needs of the job, so that a job
// picked on an earlier page (or visit) is saved without listing it again.
function loadSelection() {
  try {
    return new Map(Object.entries(JSON.parse(localStorage.getItem(selectionKey()) || '{}')));
  } catch {
    return new Map();
  }
}

function storeSelection(sel) {
  try {
    localStorage.setItem(selectionKey(), JSON.stringify(Object.fromEntries(sel)));
  } catch {
    // Full: the selection lives on in this page only.
  }
}

export async function historyView(signal) {
  const first = await getJSON(`/v1/process/jobs?limit=${PAGE}`);
  const selection = loadSelection();
  const grid = h('ul', { class: 'cards history', id: 'history' });
  const selCount = h('span', { id: 'selection-count', role: 'status' });
  const error = h('p', { class: 'error', role: 'alert' });
  const zipButton = h('button', { type: 'button', id: 'download-selected', onclick: async () => {
    error.textContent = '';
    zipButton.disabled = true;
    const jobs = [...selection.values()];
    try {
      const files = [];
      for (const [i, job] of jobs.entries()) {
        selCount.textContent = t('history.fetching', { i: i + 1, n: jobs.length });
        files.push({ name: downloadName(job), blob: await resultBlob(job), date: job.finishedDate });
      }
      const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
      saveBlob(await zip(files), `showroom-selection-${stamp}.zip`);
    } catch (err) {
      error.textContent = err.status === 404 ? t('history.gone') : errorText(err.code, err.message);
    } finally {
      refresh();
    }
  } });
  const clear = h('button', { type: 'button', class: 'secondary', id: 'clear-selection', onclick: () => {
    selection.clear();
    storeSelection(selection);
    for (const box of grid.querySelectorAll('input[type="checkbox"]')) box.checked = false;
    refresh();
  } }, t('history.clear'));
  const selectShown = h('button', { type: 'button', class: 'secondary', id: 'select-shown', onclick: () => {
    for (const box of grid.querySelectorAll('input[type="checkbox"]:not(:checked)')) box.click();
  } }, t('history.selectShown'));
  const refresh = () => {
    selCount.textContent = t('history.selected', { n: selection.size });
    zipButton.textContent = t('history.downloadSelected', { n: selection.size });
    zipButton.disabled = selection.size === 0;
    clear.disabled = selection.size === 0;
  };
  refresh();

  const watch = [];
  const card = (job) => {
    const name = photoName(job.id);
    const img = h('img', { class: 'thumb', alt: '', width: 240, height: 180, loading: 'lazy' });
    const body = h('div', { class: 'card-body' });
    const li = h('li', { class: `card job ${job.status}`, 'data-id': job.id }, h('div', { class: 'thumb-box' }, img), body);
    const fill = (j) => {
      li.className = `card job ${j.status}`;
      const box = j.status === 'succeeded' ? h('input', {
        type: 'checkbox', id: `pick-${j.id}`, checked: selection.has(j.id),
        onchange: () => {
          if (box.checked) selection.set(j.id, { id: j.id, configuration: j.configuration, finishedDate: j.finishedDate, result: j.result });
          else selection.delete(j.id);
          storeSelection(selection);
          refresh();
        },
      }) : null;
      body.replaceChildren(...[
        h('div', { class: 'job-head' },
          box,
          h('label', { for: box ? box.id : null, class: 'job-name' }, name || t('history.photo', { id: j.id.slice(0, 8) })),
          h('span', { class: `badge ${j.status}` }, t(`status.${j.status}`))),
        h('p', { class: 'meta' }, `${j.configuration} · ${formatDate(j.createdDate)} · ${j.createdBy}`),
        j.status === 'succeeded' ? h('p', { class: 'meta' }, `${doneText(j)} · ${formatBytes(j.result.size)}`) : null,
        j.error ? h('p', { class: 'error' }, errorText(j.error.errorCode, j.error.message)) : null,
        warningList(j.warnings),
        j.status === 'succeeded' ? h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'secondary small download', onclick: async (e) => {
            const b = e.currentTarget;
            b.disabled = true;
            try {
              saveBlob(await resultBlob(j), downloadName(j));
            } catch (err) {
              error.textContent = errorText(err.code, err.message);
            } finally {
              b.disabled = false;
            }
          } }, t('history.download', { ext: downloadName(j).split('.').pop().toUpperCase() }))) : null,
      ].filter(Boolean));
      if (j.status === 'succeeded') show(img, j);
      else img.alt = t(`status.${j.status}`);
    };
    fill(job);
    if (job.status === 'queued' || job.status === 'running') watch.push({ job, fill });
    return li;
  };
  // Thumbnails are fetched as their cards come into view.
  const seen = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      seen.unobserve(e.target);
      const job = e.target.job;
      thumbnail(job).then((blob) => {
        e.target.src = objectURL(blob);
      }, () => {
        e.target.classList.add('missing');
        e.target.alt = t('history.noThumb');
      });
    }
  }, { rootMargin: '200px' });
  signal.addEventListener('abort', () => seen.disconnect());
  function show(img, job) {
    img.job = job;
    seen.observe(img);
  }

  let next = first.next || '';
  const more = h('button', { type: 'button', class: 'secondary', id: 'more-jobs', hidden: !next, onclick: async () => {
    more.disabled = true;
    try {
      // next is the path of the next page.
      const page = await getJSON(ownPath(next));
      grid.append(...page.jobs.map(card));
      next = page.next || '';
      more.hidden = !next;
    } catch (err) {
      error.textContent = errorText(err.code, err.message);
    } finally {
      more.disabled = false;
    }
  } }, t('history.more'));
  grid.append(...first.jobs.map(card));
  poll(watch, signal);

  return h('section', { 'aria-labelledby': 'history-title' },
    h('div', { class: 'page-head' },
      h('h1', { id: 'history-title' }, t('history.title')),
      h('a', { class: 'button', href: '#/try' }, t('history.process'))),
    first.jobs.length ? h('div', { class: 'toolbar', role: 'group', 'aria-label': t('history.selection') },
      selCount, zipButton, selectShown, clear) : h('p', { class: 'empty' }, t('history.none')),
    error, grid, more);
}

// poll follows the jobs still queued or running until each is done.
async function poll(watch, signal) {
  try {
    while (watch.length && !signal.aborted) {
      await sleep(1500, signal);
      for (const w of [...watch]) {
        const j = await getJSON(ownPath(w.job.href));
        if (j.status === 'queued' || j.status === 'running') continue;
        watch.splice(watch.indexOf(w), 1);
        w.fill(j);
      }
    }
  } catch {
    // Leaving the page ends the polling; an error leaves the card as it was.
  }
}
