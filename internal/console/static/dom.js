// Small helpers every page uses: building elements (never from HTML
// strings, so nothing the service returns is ever parsed as markup), images
// fetched with the token, drop zones, and messages carried to the next page.

import { request } from './api.js';
import { t, lang } from './i18n.js';

export { formatDate, formatBytes } from './i18n.js';

/** h builds an element: attributes (on* are listeners), then children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  let value;
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v == null) continue;
    if (k === 'value') value = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c != null && c !== false) el.append(c instanceof Node ? c : String(c));
  }
  if (value !== undefined) el.value = value;
  return el;
}

let urls = [];

/** objectURL shows blob in this page; the URL is released when the page changes. */
export function objectURL(blob) {
  const u = URL.createObjectURL(blob);
  urls.push(u);
  return u;
}

export function releaseURLs() {
  urls.forEach((u) => URL.revokeObjectURL(u));
  urls = [];
}

/** loadImage fetches path with the access token and shows it in img. */
export async function loadImage(img, path) {
  try {
    const res = await request('GET', path);
    img.src = objectURL(await res.blob());
  } catch (err) {
    img.alt = `(${err.message})`;
    img.classList.add('missing');
  }
}

let flashed = '';

/** flash keeps a message for the next page to show, e.g. "Saved". */
export function flash(message) { flashed = message; }

export function takeFlash() {
  const m = flashed;
  flashed = '';
  return m ? h('p', { class: 'flash', role: 'status' }, m) : null;
}

let zones = 0;

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];
const IMAGE_NAME = /\.(jpe?g|png|webp)$/i;

function isImage(f) {
  return IMAGE_TYPES.includes(f.type) || (!f.type && IMAGE_NAME.test(f.name));
}

/**
 * dropZone is a place to drop image files on, which is also a button that
 * opens the file chooser (Enter or Space), so it works without a mouse.
 * With multiple, a dropped folder counts with every image in it (and in
 * its folders), and a second button chooses a folder.
 */
export function dropZone({ text, multiple = false, onFiles, id }) {
  id ||= `drop-${++zones}`;
  const chosen = (input) => () => {
    // A folder's files in the order of their paths, as a drop's are.
    const path = (f) => f.webkitRelativePath || f.name;
    const files = [...input.files].filter(isImage).sort((a, b) => path(a).localeCompare(path(b), lang, { numeric: true }));
    input.value = '';
    if (files.length) onFiles(files);
  };
  const input = h('input', {
    type: 'file', id, class: 'visually-hidden', multiple,
    accept: IMAGE_TYPES.join(','),
  });
  input.addEventListener('change', chosen(input));
  const zone = h('label', { class: 'drop', for: id },
    h('span', { class: 'drop-text' }, text),
    h('span', { class: 'drop-hint' }, multiple ? t('drop.many') : t('drop.one')),
    input);
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', async (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const files = multiple ? await droppedFiles(e.dataTransfer) : [...e.dataTransfer.files].filter(isImage).slice(0, 1);
    if (files.length) onFiles(files);
  });
  if (!multiple) return zone;
  const folder = h('input', { type: 'file', id: `${id}-folder`, class: 'visually-hidden', webkitdirectory: true, multiple: true });
  folder.addEventListener('change', chosen(folder));
  return h('div', { class: 'drop-wrap' }, zone,
    h('label', { class: 'button secondary folder-button', for: folder.id }, t('drop.folder'), folder));
}

// droppedFiles is every image of a drop: files, and those in dropped
// folders, sorted by their path.
async function droppedFiles(dt) {
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length || entries.every((e) => e.isFile)) return [...dt.files].filter(isImage);
  const files = [];
  const walk = async (entry, path) => {
    if (entry.isFile) {
      const f = await new Promise((resolve, reject) => entry.file(resolve, reject)).catch(() => null);
      if (f && isImage(f)) files.push({ path: path + f.name, f });
      return;
    }
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject)).catch(() => []);
      if (!batch.length) break;
      for (const e of batch) await walk(e, `${path}${entry.name}/`);
    }
  };
  for (const e of entries) await walk(e, '');
  return files.sort((a, b) => a.path.localeCompare(b.path, lang, { numeric: true })).map((x) => x.f);
}

/** saveBlob offers blob to the user as a download called name. */
export function saveBlob(blob, name) {
  const u = URL.createObjectURL(blob);
  const a = h('a', { href: u, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own copy by the time the next task runs.
  setTimeout(() => URL.revokeObjectURL(u), 60_000);
}

/** confirmButton asks once more, in place, before doing something final. */
export function confirmButton(label, question, action) {
  const wrap = h('span', { class: 'confirm' });
  const ask = h('button', { type: 'button', class: 'danger', onclick: () => {
    const yes = h('button', { type: 'button', class: 'danger', onclick: async () => {
      yes.disabled = true;
      try {
        await action();
      } finally {
        wrap.replaceChildren(ask);
      }
    } }, t('confirm.yes', { action: label.toLowerCase() }));
    const no = h('button', { type: 'button', class: 'secondary', onclick: () => {
      wrap.replaceChildren(ask);
      ask.focus();
    } }, t('cancel'));
    wrap.replaceChildren(h('span', { class: 'question' }, question), yes, no);
    yes.focus();
  } }, label);
  wrap.append(ask);
  return wrap;
}

/** localized picks the nameDescriptions entry for the browser's languages, else English. */
export function localized(nameDescriptions) {
  const nd = nameDescriptions || {};
  const keys = Object.keys(nd);
  for (const lang of navigator.languages?.length ? navigator.languages : [navigator.language]) {
    const l = String(lang).toLowerCase();
    const hit = keys.find((k) => k.toLowerCase() === l) || keys.find((k) => k.toLowerCase() === l.split('-')[0]);
    if (hit) return nd[hit];
  }
  return nd.en || null;
}
