// The configuration editor. Every control comes from the processor catalog
// (GET /v1/processors): a control per parameter type, with its default and
// range. The service is the one validator: the form sends what is entered
// and shows each error of the answer's details at the field its JSON
// pointer names.

import { getJSON, sendJSON } from './api.js';
import { h, flash } from './dom.js';

const TYPES = ['EXTERIOR', 'INTERIOR', 'DETAIL'];
const LANGS = [['en', 'English'], ['de', 'Deutsch']];

export async function editorView(signal, mode, name) {
  const [catalog, content, record] = await Promise.all([
    getJSON('/v1/processors'),
    getJSON('/v1/content/'),
    name ? getJSON(`/v1/configuration/${encodeURIComponent(name)}`) : null,
  ]);
  const byName = new Map(catalog.map((p) => [p.processorName, p]));
  // The steps being edited: each a processor's name and its entered values.
  const steps = record ? record.configurations.map(({ processorName, ...values }) => ({ processorName, values }))
    : [{ processorName: catalog[0].processorName, values: {} }];
  let fieldIDs = 0;

  const nameInput = h('input', {
    id: 'config-name', name: 'name', autocomplete: 'off', spellcheck: 'false', maxlength: 64,
    value: mode === 'edit' ? name : '', readOnly: mode === 'edit', autofocus: mode !== 'edit',
  });
  const typeSelect = h('select', { id: 'config-type', value: record?.configurationType || 'EXTERIOR' },
    TYPES.map((t) => h('option', { value: t }, t[0] + t.slice(1).toLowerCase())));
  const thumbs = content.filter((c) => c.contentType === 'THUMBNAIL' && c.company !== 'system');
  const thumbSelect = h('select', { id: 'config-thumbnail', value: mode === 'edit' ? record?.uiConfiguration?.thumbnail || '' : '' },
    h('option', { value: '' }, 'None (a neutral picture)'),
    thumbs.map((c) => h('option', { value: c.contentName }, c.contentName)));
  const texts = {};
  const textFields = LANGS.map(([lang, label]) => {
    const nd = record?.uiConfiguration?.nameDescriptions?.[lang] || {};
    texts[lang] = {
      name: h('input', { id: `nd-${lang}-name`, maxlength: 100, value: nd.name || '' }),
      description: h('textarea', { id: `nd-${lang}-description`, rows: 2, maxlength: 1000, value: nd.description || '' }),
    };
    return h('fieldset', { class: 'lang' }, h('legend', {}, label),
      field('Name', texts[lang].name, `/uiConfiguration/nameDescriptions/${lang}/name`),
      field('Description', texts[lang].description, `/uiConfiguration/nameDescriptions/${lang}/description`));
  });

  const list = h('ol', { class: 'steps', id: 'steps', 'data-pointer': '/configurations' });
  const listError = h('p', { class: 'error', role: 'alert' });
  const addSelect = h('select', { id: 'add-processor', 'aria-label': 'Processor to add' },
    catalog.map((p) => h('option', { value: p.processorName }, p.processorName)));
  const formError = h('div', { class: 'error', role: 'alert', id: 'form-error' });
  const save = h('button', { type: 'submit', id: 'save' }, 'Save');

  // field wraps a control with its label, hint and error line; pointer is
  // the JSON pointer of the service's errors about it.
  function field(label, control, pointer, hint, wide) {
    control.id ||= `f-${++fieldIDs}`;
    const hintEl = hint ? h('span', { class: 'hint', id: `${control.id}-hint` }, hint) : null;
    const err = h('span', { class: 'field-error', id: `${control.id}-error` });
    control.setAttribute('aria-describedby', [hintEl?.id, err.id].filter(Boolean).join(' '));
    const inline = control.type === 'checkbox';
    return h('div', { class: `field${inline ? ' inline' : ''}${wide ? ' wide' : ''}`, 'data-pointer': pointer },
      inline ? [control, h('label', { for: control.id }, label)] : [h('label', { for: control.id }, label), control],
      hintEl, err);
  }

  function renderSteps(focusIndex, focusAction) {
    list.replaceChildren(...steps.map((step, i) => stepItem(step, i)));
    if (focusIndex != null) {
      const target = list.children[focusIndex]?.querySelector(`[data-action="${focusAction}"]:not([disabled])`)
        || list.children[focusIndex]?.querySelector('button:not([disabled])');
      target?.focus();
    }
  }

  function stepItem(step, i) {
    const proc = byName.get(step.processorName);
    const title = `${i + 1}. ${step.processorName}`;
    const move = (to, action) => () => {
      const [s] = steps.splice(i, 1);
      steps.splice(to, 0, s);
      renderSteps(to, action);
    };
    const params = (proc?.parameters || []).map((p) => paramField(step, p, i));
    return h('li', { class: 'step', 'data-pointer': `/configurations/${i}` },
      h('div', { class: 'step-head' },
        h('h3', {}, title),
        h('div', { class: 'step-buttons' },
          h('button', { type: 'button', class: 'secondary small', 'data-action': 'up', disabled: i === 0, 'aria-label': `Move ${title} up`, onclick: move(i - 1, 'up') }, '↑'),
          h('button', { type: 'button', class: 'secondary small', 'data-action': 'down', disabled: i === steps.length - 1, 'aria-label': `Move ${title} down`, onclick: move(i + 1, 'down') }, '↓'),
          h('button', { type: 'button', class: 'secondary small', 'data-action': 'remove', 'aria-label': `Remove ${title}`, onclick: () => {
            steps.splice(i, 1);
            renderSteps(Math.min(i, steps.length - 1), 'remove');
            if (!steps.length) addSelect.focus();
          } }, 'Remove'))),
      proc ? h('details', {}, h('summary', {}, 'What it does'), h('p', {}, proc.description),
        proc.requires.length ? h('p', { class: 'hint' }, `Needs earlier: ${proc.requires.join(', ')}.`) : null)
        : h('p', { class: 'hint' }, 'Not in the catalog.'),
      h('span', { class: 'field-error' }),
      params.length ? h('div', { class: 'params' }, params) : null);
  }

  // paramField is the control for one parameter of the catalog.
  function paramField(step, p, i) {
    const id = `p-${i}-${p.name}`;
    const v = step.values[p.name];
    const set = (val) => {
      if (val === '' || val == null) delete step.values[p.name];
      else step.values[p.name] = val;
    };
    let control;
    const hint = [];
    if (p.type === 'boolean') {
      control = h('input', { type: 'checkbox', id, checked: v ?? p.default ?? false, onchange: () => set(control.checked) });
      if (v === undefined) set(p.default ?? false);
      hint.push(`default ${p.default ? 'on' : 'off'}`);
    } else if (p.kind === 'color') {
      // An untouched colour is left out, not sent as its default: a
      // PlaceCarProcessor without background keeps the background an
      // earlier processor set, where an explicit white would be refused.
      control = h('input', { type: 'color', id, value: String(v ?? p.default ?? '#FFFFFF').toLowerCase(), oninput: () => set(control.value.toUpperCase()) });
      hint.push(`default ${p.default}`);
    } else if (p.kind === 'enum' || p.kind === 'content') {
      const options = p.kind === 'enum' ? p.enum : content.filter((c) => p.contentTypes.includes(c.contentType)).map((c) => c.contentName);
      if (v && !options.includes(v)) options.push(v);
      control = h('select', { id, value: v ?? p.default ?? '', onchange: () => set(control.value) },
        p.default === undefined ? h('option', { value: '' }, p.kind === 'content' ? `Choose ${p.contentTypes.join(' or ').toLowerCase().replace(/_/g, ' ')}` : 'Choose') : null,
        options.map((o) => h('option', { value: o }, o)));
      if (v === undefined && control.value) set(control.value);
      if (p.kind === 'content' && !options.length) hint.push('upload one under Content first');
      if (p.default !== undefined) hint.push(`default ${p.default}`);
    } else if (p.type === 'number' || p.type === 'integer') {
      control = h('input', {
        type: 'text', id, inputmode: p.type === 'integer' ? 'numeric' : 'decimal', autocomplete: 'off',
        value: v ?? p.default ?? '', placeholder: p.default === undefined ? 'automatic' : '',
        oninput: () => {
          // Not a number is sent as typed, for the service to say so.
          const t = control.value.trim().replace(',', '.');
          set(t === '' ? '' : Number.isNaN(Number(t)) ? control.value : Number(t));
        },
      });
      if (v === undefined && p.default !== undefined) set(p.default);
      if (p.default !== undefined) hint.push(`default ${p.default}`);
      if (p.minimum !== undefined) hint.push(`${p.minimum} – ${p.maximum}`);
    } else {
      control = h('input', { id, value: v ?? p.default ?? '', oninput: () => set(control.value) });
    }
    if (p.required) hint.unshift('required');
    const f = field(p.name, control, `/configurations/${i}/${p.name}`, hint.join(' · '));
    f.append(h('span', { class: 'hint description' }, p.description));
    return f;
  }

  function clearErrors() {
    formError.replaceChildren();
    for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  }

  // showError puts each problem at the element whose pointer is the
  // longest prefix of the problem's pointer, and focuses the first one.
  function showErrors(err) {
    const details = err.details.length ? err.details
      : [{ pointer: ['INVALID_NAME', 'RESERVED_NAME'].includes(err.code) ? '/name' : '', problem: err.message }];
    const places = [...form.querySelectorAll('[data-pointer]')];
    let first = null;
    for (const d of details) {
      const pointer = d.pointer.replace(/^\/(\d+)/, '/configurations/$1');
      const place = places.filter((p) => pointer === p.dataset.pointer || pointer.startsWith(`${p.dataset.pointer}/`))
        .sort((a, b) => b.dataset.pointer.length - a.dataset.pointer.length)[0];
      const slot = place && (place.matches('.field') ? place.querySelector('.field-error')
        : place.matches('li') ? place.querySelector(':scope > .field-error')
          : place === list ? listError : null);
      if (slot) {
        slot.textContent = slot.textContent ? `${slot.textContent}; ${d.problem}` : d.problem;
        const control = place.matches('.field') ? place.querySelector('input, select, textarea') : null;
        control?.setAttribute('aria-invalid', 'true');
        first ||= control || place.querySelector('button');
      } else {
        formError.append(h('p', {}, d.pointer ? `${d.pointer}: ${d.problem}` : d.problem));
      }
    }
    if (formError.childNodes.length) formError.prepend(h('p', {}, 'The configuration was not saved.'));
    (first || formError).focus?.();
    if (!first) formError.scrollIntoView({ block: 'center' });
  }

  const form = h('form', {
    class: 'editor', novalidate: true,
    onsubmit: async (e) => {
      e.preventDefault();
      clearErrors();
      const configName = nameInput.value.trim();
      if (!configName) {
        showErrors({ details: [{ pointer: '/name', problem: 'Enter a name: letters and digits.' }] });
        return;
      }
      const nameDescriptions = {};
      for (const [lang] of LANGS) {
        const n = texts[lang].name.value.trim();
        const d = texts[lang].description.value.trim();
        if (n || d) nameDescriptions[lang] = { name: n, description: d };
      }
      const body = {
        configurations: steps.map((s) => ({ processorName: s.processorName, ...s.values })),
        configurationType: typeSelect.value,
        uiConfiguration: { nameDescriptions, ...(thumbSelect.value ? { thumbnail: thumbSelect.value } : {}) },
      };
      save.disabled = true;
      try {
        await sendJSON('POST', `/v1/configuration/${encodeURIComponent(configName)}`, body);
        flash(`Saved ${configName}.`);
        location.hash = '#/configurations';
      } catch (err) {
        showErrors(err);
      } finally {
        save.disabled = false;
      }
    },
  },
  h('div', { class: 'page-head' },
    h('h1', {}, mode === 'edit' ? `Edit ${name}` : mode === 'copy' ? `New configuration from ${name}` : 'New configuration')),
  formError,
  h('div', { class: 'grid2' },
    field('Name', nameInput, '/name', mode === 'edit' ? 'the name cannot change; save a copy under another name from the list' : 'letters and digits, up to 64'),
    field('Type', typeSelect, '/configurationType'),
    field('Thumbnail', thumbSelect, '/uiConfiguration/thumbnail', thumbs.length ? null : 'upload a thumbnail under Content to pick one')),
  h('div', { class: 'grid2' }, textFields),
  h('h2', {}, 'Processors, in order'),
  list, listError,
  h('div', { class: 'add-step' },
    addSelect,
    h('button', { type: 'button', class: 'secondary', id: 'add-step', onclick: () => {
      steps.push({ processorName: addSelect.value, values: {} });
      renderSteps(steps.length - 1, 'remove');
      list.lastElementChild?.querySelector('input, select')?.focus();
    } }, 'Add processor')),
  h('div', { class: 'form-actions' }, save, h('a', { class: 'button secondary', href: '#/configurations' }, 'Cancel')));
  renderSteps();
  return form;
}
