// The configurations page: the company's own and the predefined ones, with
// thumbnails and names in the browser's language.

import { getJSON, request, ownPath } from './api.js';
import { h, loadImage, localized, confirmButton } from './dom.js';
import { t, errorText } from './i18n.js';

export async function configurationsView() {
  const list = await getJSON('/v1/configuration/');
  const own = list.filter((c) => c.company !== 'system');
  const predefined = list.filter((c) => c.company === 'system');
  return h('section', { 'aria-labelledby': 'configurations-title' },
    h('div', { class: 'page-head' },
      h('h1', { id: 'configurations-title' }, t('configs.title')),
      h('a', { class: 'button', href: '#/edit', id: 'new-configuration' }, t('configs.new'))),
    h('h2', {}, t('configs.yours')),
    own.length ? h('ul', { class: 'cards', id: 'own-configurations' }, own.map(card))
      : h('p', { class: 'empty' }, t('configs.none')),
    h('h2', {}, t('configs.predefined')),
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
        `${t('configs.steps', { n: c.configurations.length })} · ${t('configs.cost', { n: c.cost })} · ${t(`type.${c.configurationType}`)}`),
      h('div', { class: 'actions' },
        own ? h('a', { class: 'button secondary', href: `#/edit/${encodeURIComponent(c.name)}`, 'aria-label': t('configs.editLabel', { name: c.name }) }, t('edit')) : null,
        h('a', { class: 'button secondary', href: `#/copy/${encodeURIComponent(c.name)}`, 'aria-label': t('configs.copyLabel', { name: c.name }) }, t('copy')),
        own ? confirmButton(t('delete'), t('deleteQuestion', { name: c.name }), async () => {
          try {
            await request('DELETE', `/v1/configuration/${encodeURIComponent(c.name)}`);
            li.remove();
          } catch (err) {
            error.textContent = errorText(err.code, err.message);
          }
        }) : null),
      error));
  return li;
}
