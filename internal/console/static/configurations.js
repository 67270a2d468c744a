// The configurations page: the company's own and the predefined ones, with
// thumbnails and names in the browser's language.

import { getJSON, request, ownPath } from './api.js';
import { h, loadImage, localized, confirmButton } from './dom.js';

export async function configurationsView() {
  const list = await getJSON('/v1/configuration/');
  const own = list.filter((c) => c.company !== 'system');
  const predefined = list.filter((c) => c.company === 'system');
  return h('section', { 'aria-labelledby': 'configurations-title' },
    h('div', { class: 'page-head' },
      h('h1', { id: 'configurations-title' }, 'Configurations'),
      h('a', { class: 'button', href: '#/edit', id: 'new-configuration' }, 'New configuration')),
    h('h2', {}, 'Yours'),
    own.length ? h('ul', { class: 'cards', id: 'own-configurations' }, own.map(card))
      : h('p', { class: 'empty' }, 'None yet. Start from a predefined one (Copy) or make a new one.'),
    h('h2', {}, 'Predefined'),
    h('ul', { class: 'cards' }, predefined.map(card)));
}

function card(c) {
  const own = c.company !== 'system';
  const text = localized(c.uiConfiguration?.nameDescriptions);
  const img = h('img', { class: 'thumb', alt: '', width: 320, height: 240 });
  loadImage(img, ownPath(c.uiConfiguration?.thumbnailFullPath || `/v1/predefined/thumbnails/custom.png`));
  const error = h('p', { class: 'error', role: 'alert' });
  const li = h('li', { class: 'card', 'data-name': c.name },
    img,
    h('div', { class: 'card-body' },
      h('h3', {}, text?.name || c.name),
      text?.name ? h('p', { class: 'code' }, c.name) : null,
      text?.description ? h('p', { class: 'description' }, text.description) : null,
      h('p', { class: 'meta' },
        `${c.configurations.length} processor${c.configurations.length === 1 ? '' : 's'} · `,
        `${c.cost} credit${c.cost === 1 ? '' : 's'} a photo · ${c.configurationType}`),
      h('div', { class: 'actions' },
        own ? h('a', { class: 'button secondary', href: `#/edit/${encodeURIComponent(c.name)}`, 'aria-label': `Edit ${c.name}` }, 'Edit') : null,
        h('a', { class: 'button secondary', href: `#/copy/${encodeURIComponent(c.name)}`, 'aria-label': `Copy ${c.name}` }, 'Copy'),
        own ? confirmButton('Delete', `Delete ${c.name}?`, async () => {
          try {
            await request('DELETE', `/v1/configuration/${encodeURIComponent(c.name)}`);
            li.remove();
          } catch (err) {
            error.textContent = err.message;
          }
        }) : null),
      error));
  return li;
}
