// The console's frame: the login page, the header and a router over the
// location's hash (#/configurations, #/edit/NAME, #/content, #/try,
// #/history, #/usage), which keeps every page a link and the back button
// working.

import * as api from './api.js';
import { t, errorText } from './i18n.js';
import { h, releaseURLs, takeFlash } from './dom.js';
import { configurationsView } from './configurations.js';
import { editorView } from './editor.js';
import { contentView } from './content.js';
import { tryView } from './try.js';
import { usageView } from './usage.js';
import { historyView } from './history.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const account = document.getElementById('account');
const who = document.getElementById('who');

// The frame's words: the page itself is the same for every language.
for (const a of nav.querySelectorAll('a')) a.textContent = t(`nav.${a.dataset.page}`);
nav.setAttribute('aria-label', t('nav.label'));
document.getElementById('logout').textContent = t('logout');

const pages = {
  configurations: (signal) => configurationsView(signal),
  edit: (signal, name) => editorView(signal, name ? 'edit' : 'new', name),
  copy: (signal, name) => editorView(signal, 'copy', name),
  content: (signal) => contentView(signal),
  try: (signal) => tryView(signal),
  history: (signal) => historyView(signal),
  usage: (signal) => usageView(signal),
};

let current = new AbortController();
let shownPage = null;

async function render() {
  current.abort();
  current = new AbortController();
  const { signal } = current;
  releaseURLs();
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodePart);
  // A hash that is not well-formed (a stray %) is no page.
  const [page = 'configurations', ...args] = parts.includes(null) ? ['not-found'] : parts;
  const loggedIn = api.loggedIn();
  nav.hidden = !loggedIn;
  account.hidden = !loggedIn;
  if (!loggedIn) {
    shownPage = null;
    // Logging out renders twice (the session's end, then the hash's
    // change): the second must not wipe what was typed since the first.
    if (main.querySelector('form.login')) return;
    main.replaceChildren(loginView());
    main.querySelector('#username').focus();
    return;
  }
  for (const a of nav.querySelectorAll('a')) {
    const here = a.dataset.page === page || (a.dataset.page === 'configurations' && (page === 'edit' || page === 'copy'));
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const view = Object.hasOwn(pages, page) ? pages[page] : null;
  const flash = takeFlash();
  main.replaceChildren(h('p', { class: 'loading', role: 'status' }, t('loading')));
  let el;
  try {
    el = view ? await view(signal, ...args) : h('section', {}, h('h1', {}, t('notfound.title')), h('p', {}, t('notfound.text'), ' ', h('a', { href: '#/configurations' }, t('notfound.link'))));
  } catch (err) {
    el = h('section', {}, h('h1', {}, t('wrong.title')), h('p', { class: 'error', role: 'alert' }, errorText(err.code, err.message)));
  }
  if (signal.aborted) return;
  main.replaceChildren(...[flash, el].filter(Boolean));
  // A keyboard or screen-reader user starts at the new page, not at the
  // link that led there; the first render keeps the browser's own focus.
  if (shownPage !== null) (main.querySelector('[autofocus]') || main).focus();
  shownPage = page;
}

function decodePart(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function loginView() {
  const user = h('input', { id: 'username', name: 'username', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' });
  const pass = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password' });
  const error = h('p', { class: 'error', role: 'alert', id: 'login-error' });
  const button = h('button', { type: 'submit' }, t('login.button'));
  const form = h('form', {
    class: 'panel login', novalidate: true, 'aria-labelledby': 'login-title',
    onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = '';
      if (!user.value || !pass.value) {
        error.textContent = t('login.empty');
        (user.value ? pass : user).focus();
        return;
      }
      button.disabled = true;
      try {
        await api.login(user.value.trim(), pass.value);
        showWho();
        render();
      } catch (err) {
        error.textContent = loginMessage(err);
        pass.select();
        pass.focus();
      } finally {
        button.disabled = false;
      }
    },
  },
  h('h1', { id: 'login-title' }, t('login.title')),
  h('div', { class: 'field' }, h('label', { for: 'username' }, t('login.username')), user),
  h('div', { class: 'field' }, h('label', { for: 'password' }, t('login.password')), pass),
  error, button);
  return form;
}

function loginMessage(err) {
  switch (err.code) {
    case 'INVALID_CREDENTIALS': return t('login.wrong');
    case 'TOO_MANY_REQUESTS': return t('login.tooMany', { n: Math.ceil((err.retryAfter || 60) / 60) });
    default: return errorText(err.code, err.message);
  }
}

async function showWho() {
  who.textContent = api.username();
  try {
    const me = await api.getJSON('/v1/me');
    who.textContent = `${me.username} · ${me.company}`;
  } catch {
    // The name alone is enough; the page shows the error if the API is down.
  }
}

document.getElementById('logout').addEventListener('click', async () => {
  await api.logout();
  location.hash = '';
});
api.onSessionEnd(() => render());
window.addEventListener('hashchange', render);
// A file dropped beside a drop zone must not make the browser leave the
// console to show it.
for (const type of ['dragover', 'drop']) window.addEventListener(type, (e) => e.preventDefault());

if (api.loggedIn()) showWho();
render();
