// The console's words in the browser's language. strings.json holds every
// text of the pages in English and German (a test checks that both have
// the same keys, that every key the scripts use is there, and that every
// processor and parameter of the catalog has a name in both); the first
// of the browser's languages (navigator.languages, what it also sends as
// Accept-Language) that the console speaks wins, else English.

const all = await (await fetch('/console/strings.json', { credentials: 'omit' })).json();

/** The languages the console speaks, in the order it offers them. */
export const LANGUAGES = Object.keys(all);

function pick() {
  for (const l of navigator.languages?.length ? navigator.languages : [navigator.language]) {
    const base = String(l).toLowerCase().split('-')[0];
    if (Object.hasOwn(all, base)) return base;
  }
  return 'en';
}

/** lang is the language the pages are shown in: "en" or "de". */
export const lang = pick();
const words = all[lang];
const english = all.en;

/**
 * t is the text of key, its {name} placeholders filled from vars. A text
 * with forms ({"one": ..., "other": ...}) takes the form for vars.n.
 */
export function t(key, vars = {}) {
  let s = words.ui[key] ?? english.ui[key];
  if (s === undefined) return key;
  if (typeof s === 'object') s = s[new Intl.PluralRules(lang).select(vars.n ?? 0)] ?? s.other;
  return s.replace(/\{(\w+)\}/g, (m, k) => (Object.hasOwn(vars, k) ? formatValue(vars[k]) : m));
}

function formatValue(v) {
  return typeof v === 'number' ? v.toLocaleString(lang) : String(v);
}

/** processorText is a processor's human name and what it does, in lang. */
export function processorText(name) {
  return words.processors[name] || english.processors[name] || { name, description: '' };
}

/** paramText is a parameter's human name and hint, in lang. */
export function paramText(processor, param) {
  const w = words.processors[processor]?.parameters?.[param] || english.processors[processor]?.parameters?.[param];
  return w || { name: param };
}

/** optionText names an enum value (a poster's position, a resize's fit). */
export function optionText(value) {
  return words.options[value] || english.options[value] || value;
}

/**
 * errorText is an error of the service in lang: the console's own words for
 * the codes it knows, else the service's message (always English).
 */
export function errorText(code, message) {
  return words.errors[code] || message || english.errors[code] || code;
}

/** warningText is a result's warning in lang; the service's message says more (which sides, which angle). */
export function warningText(code, message) {
  return words.warnings[code] || message || code;
}

/**
 * problemText is a problem the service found in a configuration (always
 * English) in lang, for the forms it words them in; others stay as they are.
 */
export function problemText(problem) {
  for (const [pattern, text] of Object.entries(words.problems || {})) {
    const m = new RegExp(`^${pattern}$`).exec(problem);
    if (m) return text.replace(/\$(\d)/g, (_, i) => m[Number(i)]);
  }
  return problem;
}

export function formatDate(ms) {
  return ms ? new Date(ms).toLocaleString(lang, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
}

export function formatSeconds(ms) {
  return t('seconds', { s: (ms / 1000).toLocaleString(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
}

export function formatBytes(n) {
  const f = (v, d) => v.toLocaleString(lang, { maximumFractionDigits: d });
  if (n < 1024) return `${f(n, 0)} B`;
  if (n < 1024 * 1024) return `${f(n / 1024, 0)} KB`;
  return `${f(n / 1024 / 1024, 1)} MB`;
}

document.documentElement.lang = lang;
