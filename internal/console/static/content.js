// The content page: backgrounds, thumbnails and posters, uploaded by drag
// and drop (or the file chooser) and shown as previews.

import { getJSON, request, ownPath } from './api.js';
import { h, loadImage, dropZone, confirmButton, formatBytes, formatDate } from './dom.js';

const KINDS = [
  { type: 'BACKGROUND_SIMPLE', title: 'Backgrounds', one: 'background', use: 'the scene a car is placed in (AddBackgroundAndCropProcessor)' },
  { type: 'THUMBNAIL', title: 'Thumbnails', one: 'thumbnail', use: 'the picture a configuration is shown with' },
  { type: 'POSTER', title: 'Posters', one: 'poster', use: 'a logo or sign laid over results (AddPosterProcessor)' },
];

export async function contentView() {
  const items = await getJSON('/v1/content/');
  return h('section', { 'aria-labelledby': 'content-title' },
    h('div', { class: 'page-head' }, h('h1', { id: 'content-title' }, 'Content')),
    KINDS.map((k) => kindSection(k, items.filter((c) => c.contentType === k.type))));
}

function kindSection(kind, items) {
  const grid = h('ul', { class: 'cards small', id: `content-${kind.type}` }, items.map(contentCard));
  const nameInput = h('input', { id: `name-${kind.type}`, autocomplete: 'off', spellcheck: 'false', maxlength: 64, 'aria-describedby': `name-${kind.type}-hint` });
  const status = h('p', { class: 'status', role: 'status' });
  const error = h('p', { class: 'error', role: 'alert' });
  const zone = dropZone({
    id: `file-${kind.type}`,
    text: `Upload a ${kind.one}`,
    onFiles: async ([file]) => {
      status.textContent = '';
      error.textContent = '';
      const name = nameInput.value.trim() || nameFromFile(file.name);
      status.textContent = `Uploading ${name}…`;
      try {
        const res = await request('POST', `/v1/content/upload/${encodeURIComponent(name)}/${kind.type}`, {
          body: file, headers: { 'Content-Type': file.type || 'application/octet-stream' },
        });
        const rec = await res.json();
        grid.querySelector(`[data-name="${CSS.escape(rec.contentName)}"]`)?.remove();
        grid.prepend(contentCard(rec));
        nameInput.value = '';
        status.textContent = `${res.status === 201 ? 'Uploaded' : 'Replaced'} ${rec.contentName} (${rec.width} × ${rec.height}).`;
      } catch (err) {
        status.textContent = '';
        error.textContent = err.code === 'INVALID_NAME'
          ? `“${name}” is not a usable name: use 1 to 64 letters and digits only (no spaces, dots or dashes).`
          : err.message;
      }
    },
  });
  return h('section', { class: 'kind', 'aria-labelledby': `title-${kind.type}` },
    h('h2', { id: `title-${kind.type}` }, kind.title),
    h('p', { class: 'hint' }, `${kind.title[0]}${kind.title.slice(1).toLowerCase()} are ${kind.use}. JPEG, PNG or WebP.`),
    h('div', { class: 'upload' },
      h('div', { class: 'field' },
        h('label', { for: nameInput.id }, 'Name'),
        nameInput,
        h('span', { class: 'hint', id: `name-${kind.type}-hint` }, 'letters and digits; empty: from the file name; an existing name is replaced')),
      zone),
    status, error, grid);
}

// nameFromFile makes a content name from a file name: its letters and
// digits, without the extension.
function nameFromFile(file) {
  return file.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9]/g, '').slice(0, 64) || `upload${Date.now()}`;
}

function contentCard(c) {
  const builtIn = c.company === 'system';
  const img = h('img', { class: 'thumb', alt: `Preview of ${c.contentName}`, width: 240, height: 160 });
  loadImage(img, ownPath(c.fullPath));
  const error = h('p', { class: 'error', role: 'alert' });
  const li = h('li', { class: 'card', 'data-name': c.contentName },
    img,
    h('div', { class: 'card-body' },
      h('h3', {}, c.contentName),
      h('p', { class: 'meta' }, `${c.width} × ${c.height} · ${formatBytes(c.size)}`),
      h('p', { class: 'meta' }, builtIn ? 'built in' : `${formatDate(c.lastModifiedDate)} by ${c.lastModifiedBy}`),
      builtIn ? null : h('div', { class: 'actions' }, confirmButton('Delete', `Delete ${c.contentName}?`, async () => {
        error.textContent = '';
        try {
          await request('DELETE', `/v1/content/${encodeURIComponent(c.contentName)}`);
          li.remove();
        } catch (err) {
          error.textContent = err.code === 'CONTENT_IN_USE'
            ? `${c.contentName} cannot be deleted while a configuration uses it. ${inUseBy(err.message)}Change those configurations to use something else, or delete them, then delete ${c.contentName}.`
            : err.message;
        }
      })),
      error));
  return li;
}

// inUseBy names the configurations from the service's CONTENT_IN_USE
// message, when it lists them.
function inUseBy(message) {
  const m = /configuration\(s\) (.+?);/.exec(message);
  return m ? `It is used by: ${m[1]}. ` : '';
}
