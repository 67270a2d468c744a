// The content page: backgrounds, thumbnails and posters, uploaded by drag
// and drop (or the file chooser) and shown as previews.

import { getJSON, request, ownPath } from './api.js';
import { h, loadImage, dropZone, confirmButton } from './dom.js';
import { t, formatBytes, formatDate, errorText } from './i18n.js';

const KINDS = ['BACKGROUND_SIMPLE', 'THUMBNAIL', 'POSTER'].map((type) => ({ type }));

export async function contentView() {
  const items = await getJSON('/v1/content/');
  return h('section', { 'aria-labelledby': 'content-title' },
    h('div', { class: 'page-head' }, h('h1', { id: 'content-title' }, t('content.title'))),
    KINDS.map((k) => kindSection(k, items.filter((c) => c.contentType === k.type))));
}

function kindSection(kind, items) {
  const grid = h('ul', { class: 'cards small', id: `content-${kind.type}` }, items.map(contentCard));
  const nameInput = h('input', { id: `name-${kind.type}`, autocomplete: 'off', spellcheck: 'false', maxlength: 64, 'aria-describedby': `name-${kind.type}-hint` });
  const status = h('p', { class: 'status', role: 'status' });
  const error = h('p', { class: 'error', role: 'alert' });
  const zone = dropZone({
    id: `file-${kind.type}`,
    text: t(`content.upload.${kind.type}`),
    onFiles: async ([file]) => {
      status.textContent = '';
      error.textContent = '';
      const name = nameInput.value.trim() || nameFromFile(file.name);
      status.textContent = t('content.uploading', { name });
      try {
        const res = await request('POST', `/v1/content/upload/${encodeURIComponent(name)}/${kind.type}`, {
          body: file, headers: { 'Content-Type': file.type || 'application/octet-stream' },
        });
        const rec = await res.json();
        grid.querySelector(`[data-name="${CSS.escape(rec.contentName)}"]`)?.remove();
        grid.prepend(contentCard(rec));
        nameInput.value = '';
        status.textContent = t(res.status === 201 ? 'content.uploaded' : 'content.replaced', { name: rec.contentName, w: rec.width, h: rec.height });
      } catch (err) {
        status.textContent = '';
        error.textContent = err.code === 'INVALID_NAME'
          ? t('content.badName', { name })
          : errorText(err.code, err.message);
      }
    },
  });
  return h('section', { class: 'kind', 'aria-labelledby': `title-${kind.type}` },
    h('h2', { id: `title-${kind.type}` }, t(`content.title.${kind.type}`)),
    h('p', { class: 'hint' }, t(`content.use.${kind.type}`)),
    h('div', { class: 'upload' },
      h('div', { class: 'field' },
        h('label', { for: nameInput.id }, t('name')),
        nameInput,
        h('span', { class: 'hint', id: `name-${kind.type}-hint` }, t('content.nameHint'))),
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
  const img = h('img', { class: 'thumb', alt: t('content.preview', { name: c.contentName }), width: 240, height: 160 });
  loadImage(img, ownPath(c.fullPath));
  const error = h('p', { class: 'error', role: 'alert' });
  const li = h('li', { class: 'card', 'data-name': c.contentName },
    img,
    h('div', { class: 'card-body' },
      h('h3', {}, c.contentName),
      h('p', { class: 'meta' }, `${c.width} × ${c.height} · ${formatBytes(c.size)}`),
      h('p', { class: 'meta' }, builtIn ? t('content.builtIn') : t('content.modified', { date: formatDate(c.lastModifiedDate), user: c.lastModifiedBy })),
      builtIn ? null : h('div', { class: 'actions' }, confirmButton(t('delete'), t('deleteQuestion', { name: c.contentName }), async () => {
        error.textContent = '';
        try {
          await request('DELETE', `/v1/content/${encodeURIComponent(c.contentName)}`);
          li.remove();
        } catch (err) {
          error.textContent = err.code === 'CONTENT_IN_USE'
            ? t('content.inUse', { name: c.contentName, by: inUseBy(err.message) })
            : errorText(err.code, err.message);
        }
      })),
      error));
  return li;
}

// inUseBy names the configurations from the service's CONTENT_IN_USE
// message, when it lists them.
function inUseBy(message) {
  const m = /configuration\(s\) (.+?);/.exec(message);
  return m ? t('content.usedBy', { list: m[1] }) : '';
}
