// The configuration editor. Every control comes from the processor catalog
// (GET /v1/processors): a control per parameter type, with its default and
// range, named in the dealer's words (strings.json) with the API's name in
// small print. A share (0-1) is a slider in per cent, content a picker of
// the company's pictures, and the floor line and the car's size are
// dragged on a live preview. The service is the one validator: the form
// sends what is entered and shows each error of the answer's details at
// the field its JSON pointer names.

import { getJSON, sendJSON, ownPath } from './api.js';
import { h, flash, loadImage } from './dom.js';
import { t, lang, processorText, paramText, optionText, problemText } from './i18n.js';
import { placementPreview, useSample, cutoutSample } from './preview.js';
import { photoName, resultBlob } from './jobs.js';

const TYPES = ['EXTERIOR', 'INTERIOR', 'DETAIL'];
const LANGS = [['en', 'English'], ['de', 'Deutsch']];
// The processors with a live preview, and what it is of.
const PREVIEWS = { PlaceCarProcessor: 'place', AddBackgroundAndCropProcessor: 'background' };
// Processors whose result is the photo's car on transparency, in the
// photo's frame.
const CUTOUT_STEPS = new Set(['DetectCarMaskProcessor', 'DetectCarShadowProcessor', 'SemiTransparentWindowsProcessor']);

export async function editorView(signal, mode, name) {
  const [catalog, content, record, configs, recent] = await Promise.all([
    getJSON('/v1/processors'),
    getJSON('/v1/content/'),
    name ? getJSON(`/v1/configuration/${encodeURIComponent(name)}`) : null,
    getJSON('/v1/configuration/'),
    getJSON('/v1/process/jobs?limit=50'),
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
    TYPES.map((ty) => h('option', { value: ty }, t(`type.${ty}`))));
  const thumbs = content.filter((c) => c.contentType === 'THUMBNAIL' && c.company !== 'system');
  const thumbSelect = h('select', { id: 'config-thumbnail', value: mode === 'edit' ? record?.uiConfiguration?.thumbnail || '' : '' },
    h('option', { value: '' }, t('editor.noThumbnail')),
    thumbs.map((c) => h('option', { value: c.contentName }, c.contentName)));
  const texts = {};
  const textFields = LANGS.map(([lang, label]) => {
    const nd = record?.uiConfiguration?.nameDescriptions?.[lang] || {};
    texts[lang] = {
      name: h('input', { id: `nd-${lang}-name`, maxlength: 100, value: nd.name || '' }),
      description: h('textarea', { id: `nd-${lang}-description`, rows: 2, maxlength: 1000, value: nd.description || '' }),
    };
    return h('fieldset', { class: 'lang' }, h('legend', {}, label),
      field(t('name'), texts[lang].name, `/uiConfiguration/nameDescriptions/${lang}/name`),
      field(t('description'), texts[lang].description, `/uiConfiguration/nameDescriptions/${lang}/description`));
  });

  // The previews' sample car: the drawn one, or one of the company's own
  // recent photos cut out (a result of a configuration that neither
  // places the car nor puts anything behind it, so its transparency is
  // the car's outline).
  const cutouts = new Set(configs.filter((c) => c.configurations.every((s) => CUTOUT_STEPS.has(s.processorName))).map((c) => c.name));
  const samples = recent.jobs.filter((j) => j.status === 'succeeded' && j.result.mediaType === 'image/png' && cutouts.has(j.configuration)).slice(0, 10);
  useSample(null);
  const sampleError = h('span', { class: 'field-error' });
  const sampleSelect = h('select', { id: 'preview-sample', onchange: async () => {
    sampleError.textContent = '';
    const job = samples.find((j) => j.id === sampleSelect.value);
    try {
      useSample(job ? await cutoutSample(await resultBlob(job)) : null);
    } catch (err) {
      useSample(null);
      sampleError.textContent = err.message;
    }
    previews.forEach((p) => p.redraw());
    sampleField.dataset.shown = sampleSelect.value;
  } },
  h('option', { value: '' }, t('preview.drawn')),
  samples.map((j) => h('option', { value: j.id }, photoName(j.id) || t('history.photo', { id: j.id.slice(0, 8) }))));
  const sampleField = h('div', { class: 'field sample-field' },
    h('label', { for: 'preview-sample' }, t('preview.sample')), sampleSelect,
    h('span', { class: 'hint' }, samples.length ? t('preview.sampleHint') : t('preview.noSamples')), sampleError);

  const list = h('ol', { class: 'steps', id: 'steps', 'data-pointer': '/configurations' });
  const listError = h('p', { class: 'error', role: 'alert' });
  const addSelect = h('select', { id: 'add-processor', 'aria-label': t('editor.toAdd') },
    catalog.map((p) => h('option', { value: p.processorName }, `${processorText(p.processorName).name} (${p.processorName})`)));
  const formError = h('div', { class: 'error', role: 'alert', id: 'form-error' });
  const save = h('button', { type: 'submit', id: 'save' }, t('save'));
  // Pictures of the content, by name, loaded once for every picker and
  // preview.
  const pictures = new Map();
  function picture(c) {
    if (!pictures.has(c.contentName)) {
      const img = h('img', { alt: '', width: 120, height: 80 });
      const ready = loadImage(img, ownPath(c.fullPath)).then(() => img.decode().catch(() => {}));
      pictures.set(c.contentName, { img, ready });
    }
    return pictures.get(c.contentName);
  }

  // field wraps a control with its label, hint and error line; pointer is
  // the JSON pointer of the service's errors about it.
  function field(label, control, pointer, hint, wide, code) {
    // A slider's field is named by its input; a picker's by its group.
    const main = control.matches('.range') ? control.querySelector('input') : control;
    main.id ||= `f-${++fieldIDs}`;
    const hintEl = hint ? h('span', { class: 'hint', id: `${main.id}-hint` }, hint) : null;
    const err = h('span', { class: 'field-error', id: `${main.id}-error` });
    main.setAttribute('aria-describedby', [hintEl?.id, err.id].filter(Boolean).join(' '));
    const inline = main.type === 'checkbox';
    const group = main.matches('fieldset');
    const labelEl = h(group ? 'span' : 'label', { for: group ? null : main.id, class: 'label', id: `${main.id}-label` }, label,
      code ? h('span', { class: 'code api-name' }, code) : null);
    if (group) main.setAttribute('aria-labelledby', labelEl.id);
    // A changed value is no longer the one the service refused.
    const clear = () => {
      err.textContent = '';
      control.querySelectorAll?.('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
      main.removeAttribute('aria-invalid');
    };
    control.addEventListener('input', clear);
    control.addEventListener('change', clear);
    return h('div', { class: `field${inline ? ' inline' : ''}${wide ? ' wide' : ''}`, 'data-pointer': pointer },
      inline ? [control, labelEl] : [labelEl, control],
      hintEl, err);
  }

  const previews = [];
  function renderSteps(focusIndex, focusAction) {
    previews.length = 0;
    list.replaceChildren(...steps.map((step, i) => stepItem(step, i)));
    if (focusIndex != null) {
      const target = list.children[focusIndex]?.querySelector(`[data-action="${focusAction}"]:not([disabled])`)
        || list.children[focusIndex]?.querySelector('button:not([disabled])');
      target?.focus();
    }
  }

  function stepItem(step, i) {
    const proc = byName.get(step.processorName);
    const text = processorText(step.processorName);
    const title = `${i + 1}. ${text.name}`;
    const move = (to, action) => () => {
      const [s] = steps.splice(i, 1);
      steps.splice(to, 0, s);
      renderSteps(to, action);
    };
    const controls = {};
    const params = (proc?.parameters || []).map((p) => paramField(step, p, i, controls));
    const kind = PREVIEWS[step.processorName];
    let preview = null;
    if (kind && proc) {
      const param = (n) => proc.parameters.find((p) => p.name === n);
      const get = (n) => step.values[n] ?? param(n)?.default ?? 0;
      const set = (n, v) => {
        step.values[n] = v;
        controls[n]?.show(v);
      };
      preview = placementPreview(kind, get, set, () => sceneFor(i));
      for (const c of Object.values(controls)) c.changed = () => preview.redraw();
      previews.push(preview);
      // The background's picture arrives after the first drawing.
      const bg = kind === 'background' ? content.find((c) => c.contentName === step.values.background) : null;
      if (bg) picture(bg).ready.then(() => preview.redraw());
    }
    return h('li', { class: 'step', 'data-pointer': `/configurations/${i}`, 'data-processor': step.processorName },
      h('div', { class: 'step-head' },
        h('h3', {}, title, ' ', h('span', { class: 'code api-name' }, step.processorName)),
        h('div', { class: 'step-buttons' },
          h('button', { type: 'button', class: 'secondary small', 'data-action': 'up', disabled: i === 0, 'aria-label': t('editor.up', { step: title }), onclick: move(i - 1, 'up') }, '↑'),
          h('button', { type: 'button', class: 'secondary small', 'data-action': 'down', disabled: i === steps.length - 1, 'aria-label': t('editor.down', { step: title }), onclick: move(i + 1, 'down') }, '↓'),
          h('button', { type: 'button', class: 'secondary small', 'data-action': 'remove', 'aria-label': t('editor.removeLabel', { step: title }), onclick: () => {
            steps.splice(i, 1);
            renderSteps(Math.min(i, steps.length - 1), 'remove');
            if (!steps.length) addSelect.focus();
          } }, t('editor.remove')))),
      proc ? h('p', { class: 'description' }, text.description || proc.description) : h('p', { class: 'hint' }, t('editor.notInCatalog')),
      proc?.requires.length ? h('p', { class: 'hint' }, t('editor.needs', { list: proc.requires.map((r) => processorText(r).name).join(', ') })) : null,
      h('span', { class: 'field-error' }),
      preview ? h('div', { class: 'step-preview' }, preview, h('div', { class: 'params' }, params))
        : params.length ? h('div', { class: 'params' }, params) : null);
  }

  // sceneFor is what the preview of step i shows: the background an
  // earlier (or this) AddBackgroundAndCropProcessor uses, else the colour
  // set so far, on a canvas of the background's shape or a photo's (3:2).
  function sceneFor(i) {
    let sc = { aspect: 1.5, color: '#ffffff' };
    for (const s of steps.slice(0, i + 1)) {
      if (s.processorName === 'AddBackgroundAndCropProcessor') {
        const c = content.find((x) => x.contentName === s.values.background);
        const w = s.values.outputWidth;
        const hh = s.values.outputHeight;
        const aspect = w && hh ? w / hh : c ? c.width / c.height : 1.5;
        sc = { aspect, image: c ? picture(c).img : null, color: '#e5e7eb' };
      } else if (s.processorName === 'CleanBackgroundProcessor' || s.processorName === 'PlaceCarProcessor') {
        if (s.values.color || s.values.background) sc = { ...sc, image: null, color: s.values.color || s.values.background };
      }
    }
    return sc;
  }

  // paramField is the control for one parameter of the catalog; controls
  // gets its show(value), for the preview to move it.
  function paramField(step, p, i, controls) {
    const id = `p-${i}-${p.name}`;
    const v = step.values[p.name];
    const words = paramText(step.processorName, p.name);
    const set = (val) => {
      if (val === '' || val == null) delete step.values[p.name];
      else step.values[p.name] = val;
      controls[p.name]?.changed?.();
    };
    let control;
    const hint = [];
    if (p.type === 'boolean') {
      control = h('input', { type: 'checkbox', id, checked: v ?? p.default ?? false, onchange: () => set(control.checked) });
      if (v === undefined) set(p.default ?? false);
      hint.push(t(p.default ? 'editor.defaultOn' : 'editor.defaultOff'));
    } else if (p.kind === 'color') {
      // An untouched colour is left out, not sent as its default: a
      // PlaceCarProcessor without background keeps the background an
      // earlier processor set, where an explicit white would be refused.
      control = h('input', { type: 'color', id, value: String(v ?? p.default ?? '#FFFFFF').toLowerCase(), oninput: () => set(control.value.toUpperCase()) });
      hint.push(t('editor.default', { value: p.default }));
    } else if (p.kind === 'content') {
      control = contentPicker(id, p, v, set);
      if (!control.querySelector('input')) hint.push(t('editor.uploadFirst'));
    } else if (p.kind === 'enum') {
      const options = [...p.enum];
      if (v && !options.includes(v)) options.push(v);
      control = h('select', { id, value: v ?? p.default ?? '', onchange: () => set(control.value) },
        p.default === undefined ? h('option', { value: '' }, t('editor.choose')) : null,
        options.map((o) => h('option', { value: o }, optionText(o))));
      if (v === undefined && control.value) set(control.value);
      if (p.default !== undefined) hint.push(t('editor.default', { value: optionText(p.default) }));
    } else if (p.type === 'number' && p.minimum !== undefined && p.maximum <= 2 && (typeof v === 'number' || v === undefined)) {
      // A share or a factor: a slider in per cent, not a number to type.
      const readout = h('output', { for: id, class: 'readout' });
      const input = h('input', {
        type: 'range', id, min: p.minimum * 100, max: p.maximum * 100, step: 1,
        value: Math.round((v ?? p.default ?? p.minimum) * 100),
        oninput: () => {
          set(Number(input.value) / 100);
          readout.value = `${input.value} %`;
        },
      });
      readout.value = `${input.value} %`;
      control = h('div', { class: 'range' }, input, readout);
      controls[p.name] = { show: (val) => { input.value = Math.round(val * 100); readout.value = `${input.value} %`; } };
      if (v === undefined && p.default !== undefined) set(p.default);
      if (p.default !== undefined) hint.push(t('editor.default', { value: `${Math.round(p.default * 100)} %` }));
    } else if (p.type === 'number' || p.type === 'integer') {
      control = h('input', {
        type: 'text', id, inputmode: p.type === 'integer' ? 'numeric' : 'decimal', autocomplete: 'off',
        value: v ?? p.default ?? '', placeholder: p.default === undefined ? t('editor.automatic') : '',
        oninput: () => {
          // Not a number is sent as typed, for the service to say so.
          const x = control.value.trim().replace(',', '.');
          set(x === '' ? '' : Number.isNaN(Number(x)) ? control.value : Number(x));
        },
      });
      if (v === undefined && p.default !== undefined) set(p.default);
      if (p.default !== undefined) hint.push(t('editor.default', { value: p.default }));
      if (p.minimum !== undefined) hint.push(`${p.minimum} – ${p.maximum}${p.type === 'integer' ? ' px' : ''}`);
    } else {
      control = h('input', { id, value: v ?? p.default ?? '', oninput: () => set(control.value) });
    }
    if (p.required) hint.unshift(t('editor.required'));
    if (words.hint) hint.push(words.hint);
    else if (lang === 'en') hint.push(p.description);
    const f = field(words.name, control, `/configurations/${i}/${p.name}`, hint.join(' · '), false, p.name);
    return f;
  }

  // contentPicker chooses content by its picture: a radio button a
  // picture, the company's own and the built-in ones of the types the
  // parameter takes.
  function contentPicker(id, p, v, set) {
    const items = content.filter((c) => p.contentTypes.includes(c.contentType));
    const group = h('fieldset', { class: 'picker', id });
    for (const c of items) {
      const radio = h('input', {
        type: 'radio', name: id, id: `${id}-${c.contentName}`, value: c.contentName, checked: v === c.contentName,
        onchange: () => {
          set(c.contentName);
          renderSteps();
          document.getElementById(`${id}-${c.contentName}`)?.focus();
        },
      });
      const pic = picture(c).img.cloneNode();
      picture(c).ready.then(() => { pic.src = picture(c).img.src; });
      group.append(h('label', { class: 'pick', for: radio.id }, radio, pic,
        h('span', {}, c.contentName, c.company === 'system' ? h('span', { class: 'hint' }, ` · ${t('content.builtIn')}`) : null)));
    }
    if (v && !items.some((c) => c.contentName === v)) group.append(h('p', { class: 'hint' }, t('editor.missingContent', { name: v })));
    return group;
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
    // The service says each problem in English; the known ones are said
    // in the page's language.
    for (const d of details) d.problem = problemText(d.problem);
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
    if (formError.childNodes.length) formError.prepend(h('p', {}, t('editor.notSaved')));
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
        showErrors({ details: [{ pointer: '/name', problem: t('editor.enterName') }] });
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
        flash(t('editor.saved', { name: configName }));
        location.hash = '#/configurations';
      } catch (err) {
        showErrors(err);
      } finally {
        save.disabled = false;
      }
    },
  },
  h('div', { class: 'page-head' },
    h('h1', {}, mode === 'edit' ? t('editor.titleEdit', { name }) : mode === 'copy' ? t('editor.titleCopy', { name }) : t('configs.new'))),
  formError,
  h('div', { class: 'grid2' },
    field(t('name'), nameInput, '/name', mode === 'edit' ? t('editor.nameFixed') : t('editor.nameHint')),
    field(t('editor.type'), typeSelect, '/configurationType'),
    field(t('editor.thumbnail'), thumbSelect, '/uiConfiguration/thumbnail', thumbs.length ? null : t('editor.thumbnailHint'))),
  h('div', { class: 'grid2' }, textFields),
  h('h2', {}, t('editor.steps')),
  sampleField,
  list, listError,
  h('div', { class: 'add-step' },
    addSelect,
    h('button', { type: 'button', class: 'secondary', id: 'add-step', onclick: () => {
      steps.push({ processorName: addSelect.value, values: {} });
      renderSteps(steps.length - 1, 'remove');
      list.lastElementChild?.querySelector('input, select')?.focus();
    } }, t('editor.add'))),
  h('div', { class: 'form-actions' }, save, h('a', { class: 'button secondary', href: '#/configurations' }, t('cancel'))));
  renderSteps();
  return form;
}
