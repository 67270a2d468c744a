// The console's only way to the service: login, refresh and logout through
// the auth endpoints under /auth, and every /v1 call with the access token.
// Tokens live in sessionStorage (gone with the tab), never in a cookie, and
// every request goes to this page's own origin.

const AUTH = '/auth';
const KEY = 'showroom.session';
const system = document.querySelector('meta[name="showroom-system"]')?.content || 'showroom';

/** An error answer of the service: the contract's error body. */
export class APIError extends Error {
  constructor(status, body, retryAfter) {
    super(body?.message || `The service answered ${status}.`);
    this.status = status;
    this.code = body?.errorCode || '';
    this.details = Array.isArray(body?.details) ? body.details : [];
    this.retryAfter = retryAfter;
  }
}

let session = null;
try {
  session = JSON.parse(sessionStorage.getItem(KEY) || 'null');
} catch {
  sessionStorage.removeItem(KEY);
}
let timer = 0;
let refreshing = null;
const ended = new Set();

/** Calls fn when the session ends: logout, or a refresh token refused. */
export function onSessionEnd(fn) { ended.add(fn); }

export function loggedIn() { return session !== null; }
export function username() { return session?.username || ''; }

async function errorOf(res) {
  const body = await res.json().catch(() => null);
  return new APIError(res.status, body, Number(res.headers.get('Retry-After')) || 0);
}

async function authCall(path, body) {
  const res = await fetch(AUTH + path, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body), credentials: 'omit', cache: 'no-store',
  });
  if (!res.ok) throw await errorOf(res);
  return res.status === 204 ? null : res.json();
}

function keep(tok, user) {
  session = {
    access: tok.access_token,
    refresh: tok.refresh_token || session?.refresh,
    expiresAt: Date.now() + tok.expires_in * 1000,
    username: user || session?.username,
  };
  sessionStorage.setItem(KEY, JSON.stringify(session));
  schedule();
}

// schedule refreshes the access token before it expires: a tenth of its
// life early, at most five minutes, so an open console never sees a 401.
function schedule() {
  clearTimeout(timer);
  if (!session) return;
  const left = session.expiresAt - Date.now();
  const early = Math.min(5 * 60 * 1000, left / 10);
  timer = setTimeout(() => refresh().catch(() => {}), Math.max(0, Math.min(left - early, 2 ** 31 - 1)));
}

function end() {
  clearTimeout(timer);
  session = null;
  refreshing = null;
  sessionStorage.removeItem(KEY);
  ended.forEach((fn) => fn());
}

export async function login(user, password) {
  keep(await authCall('/login', { username: user, password, system }), user);
}

/** Gets a new access token; a refused refresh token ends the session. */
export function refresh() {
  if (!session) return Promise.reject(new APIError(401, { errorCode: 'UNAUTHORIZED', message: 'Please log in.' }));
  if (refreshing) return refreshing;
  // The answer counts only for the session that asked: a logout (or
  // another login) while the refresh was on its way must not bring the
  // ended session back.
  const asked = session;
  const p = authCall('/refresh', { refresh_token: asked.refresh })
    .then((tok) => {
      if (session !== asked) throw new APIError(401, { errorCode: 'UNAUTHORIZED', message: 'Please log in.' });
      keep(tok);
    })
    .catch((err) => {
      if (err.status === 401 && session === asked) end();
      throw err;
    })
    .finally(() => { if (refreshing === p) refreshing = null; });
  refreshing = p;
  return refreshing;
}

/** Ends the session here and revokes its refresh token at the service. */
export async function logout() {
  const token = session?.refresh;
  end();
  if (token) await authCall('/logout', { refresh_token: token }).catch(() => {});
}

/**
 * Sends a request with the access token; answers the Response when it is a
 * success, throws APIError otherwise. An expired token is refreshed and the
 * request sent once more.
 */
export async function request(method, path, { body, headers = {} } = {}) {
  for (let attempt = 0; ; attempt++) {
    if (!session) throw new APIError(401, { errorCode: 'UNAUTHORIZED', message: 'Please log in.' });
    if (session.expiresAt - Date.now() < 30_000) await refresh();
    if (!session) throw new APIError(401, { errorCode: 'UNAUTHORIZED', message: 'Please log in.' });
    const sent = session;
    const res = await fetch(path, {
      method, body, credentials: 'omit', cache: 'no-store',
      headers: { ...headers, Authorization: `Bearer ${sent.access}` },
    });
    if (res.ok) return res;
    const err = await errorOf(res);
    if (res.status === 401) {
      if (err.code === 'TOKEN_EXPIRED' && attempt === 0) {
        await refresh();
        continue;
      }
      // A refused token ends its own session, not one begun since.
      if (session === sent) end();
    }
    throw err;
  }
}

export async function getJSON(path) {
  return (await request('GET', path)).json();
}

export async function sendJSON(method, path, value) {
  const res = await request(method, path, {
    body: JSON.stringify(value), headers: { 'Content-Type': 'application/json' },
  });
  return res.status === 204 ? null : res.json();
}

/**
 * The path of an absolute URL the service gave (a FULLPATH: link), so that
 * the console asks its own origin even when --public-url names another.
 */
export function ownPath(fullPath) {
  const u = new URL(String(fullPath || '').replace(/^FULLPATH:/, ''), location.origin);
  return u.pathname + u.search;
}

// A reloaded page keeps its tab's session; an expired access token is
// refreshed at once.
schedule();
