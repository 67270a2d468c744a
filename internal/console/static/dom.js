// Small helpers every page uses: building elements (never from HTML
// strings, so nothing the service returns is ever parsed as markup), images
// fetched with the token, drop zones, and messages carried to the next page.

import { request } from './api.js';

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

/**
 * dropZone is a place to drop image files on, which is also a button that
 * opens the file chooser (Enter or Space), so it works without a mouse.
 */
export function dropZone({ text, multiple = false, onFiles, id }) {
  id ||= `drop-${++zones}`;
  const input = h('input', {
    type: 'file', id, class: 'visually-hidden', multiple,
    accept: 'image/jpeg,image/png,image/webp',
    onchange: () => {
      const files = [...input.files];
      input.value = '';
      if (files.length) onFiles(files);
    },
  });
  const zone = h('label', { class: 'drop', for: id },
    h('span', { class: 'drop-text' }, text),
    h('span', { class: 'drop-hint' }, multiple ? 'Drop images here, or choose files' : 'Drop an image here, or choose a file'),
    input);
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const files = [...e.dataTransfer.files].filter((f) => f.type.startsWith('image/'));
    if (files.length) onFiles(multiple ? files : files.slice(0, 1));
  });
  return zone;
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
    } }, `Yes, ${label.toLowerCase()}`);
    const no = h('button', { type: 'button', class: 'secondary', onclick: () => {
      wrap.replaceChildren(ask);
      ask.focus();
    } }, 'Cancel');
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

export function formatDate(ms) {
  return ms ? new Date(ms).toLocaleString() : '—';
}

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
