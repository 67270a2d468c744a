// The editor's live preview of where the car goes: a sample car on the
// canvas as PlaceCarProcessor or AddBackgroundAndCropProcessor would put
// it, redrawn at once while the floor line, the car's box or the margins
// are dragged. It follows the processors' rules (internal/pipeline:
// place_car.go, add_background.go) for a car seen from the side, whose
// wheels stand on one line; a photo at an angle stands a little lower, so
// the preview is a guide, and the result the judge.

import { h } from './dom.js';
import { t } from './i18n.js';

// The sample: a car drawn from the side, as wide as 2.6 of its heights,
// or a cutout of one of the company's own photos (useSample).
const drawn = drawSample(520, 200);
let sample = drawn;
let CAR_ASPECT = 2.6;

/**
 * useSample makes the previews show img (a canvas or bitmap of a car cut
 * out, cropped to it), or the drawn car when img is null.
 */
export function useSample(img) {
  sample = img || drawn;
  CAR_ASPECT = sample.width / sample.height;
}

/**
 * cutoutSample crops a cutout (a result with transparency) to its car: the
 * rows and columns with a pixel at least half opaque. Null when there is
 * no car or no transparency in it.
 */
export async function cutoutSample(blob) {
  const bmp = await createImageBitmap(blob);
  const scale = Math.min(1, 800 / bmp.width);
  const c = document.createElement('canvas');
  c.width = Math.round(bmp.width * scale);
  c.height = Math.round(bmp.height * scale);
  const g = c.getContext('2d', { willReadFrequently: true });
  g.drawImage(bmp, 0, 0, c.width, c.height);
  bmp.close();
  const { data } = g.getImageData(0, 0, c.width, c.height);
  let x0 = c.width, y0 = c.height, x1 = -1, y1 = -1, clear = 0;
  for (let y = 0; y < c.height; y++) {
    for (let x = 0; x < c.width; x++) {
      const a = data[(y * c.width + x) * 4 + 3];
      if (a < 128) {
        clear++;
        continue;
      }
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0 || clear === 0) return null;
  const out = document.createElement('canvas');
  out.width = x1 - x0 + 1;
  out.height = y1 - y0 + 1;
  out.getContext('2d').drawImage(c, x0, y0, out.width, out.height, 0, 0, out.width, out.height);
  return out;
}

function drawSample(w, h0) {
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h0;
  const g = c.getContext('2d');
  const y = (v) => v * h0;
  const x = (v) => v * w;
  g.fillStyle = '#b91c1c';
  g.beginPath();
  g.moveTo(x(0.02), y(0.82));
  g.lineTo(x(0.02), y(0.52));
  g.quadraticCurveTo(x(0.04), y(0.42), x(0.2), y(0.4));
  g.lineTo(x(0.33), y(0.1));
  g.quadraticCurveTo(x(0.36), y(0.02), x(0.45), y(0.02));
  g.lineTo(x(0.66), y(0.02));
  g.quadraticCurveTo(x(0.72), y(0.03), x(0.78), y(0.38));
  g.lineTo(x(0.95), y(0.44));
  g.quadraticCurveTo(x(0.99), y(0.48), x(0.99), y(0.6));
  g.lineTo(x(0.99), y(0.82));
  g.closePath();
  g.fill();
  g.fillStyle = '#cbd5e1';
  g.beginPath();
  g.moveTo(x(0.35), y(0.38));
  g.lineTo(x(0.42), y(0.12));
  g.lineTo(x(0.54), y(0.12));
  g.lineTo(x(0.54), y(0.38));
  g.closePath();
  g.moveTo(x(0.57), y(0.38));
  g.lineTo(x(0.57), y(0.12));
  g.lineTo(x(0.67), y(0.12));
  g.lineTo(x(0.73), y(0.38));
  g.closePath();
  g.fill();
  for (const cx of [0.2, 0.8]) {
    g.fillStyle = '#111827';
    g.beginPath();
    g.arc(x(cx), y(0.8), y(0.2), 0, 2 * Math.PI);
    g.fill();
    g.fillStyle = '#9ca3af';
    g.beginPath();
    g.arc(x(cx), y(0.8), y(0.1), 0, 2 * Math.PI);
    g.fill();
  }
  return c;
}

const WIDTH = 480;

/**
 * placementPreview returns the preview of one step. kind is "place" or
 * "background"; get(name) reads a parameter's value (its default when
 * unset), set(name, value) changes it; scene() says what the canvas shows:
 * { image, aspect, color } (a background image, the canvas's width over
 * height, a colour). The returned element has redraw(), to call when a
 * value changed elsewhere.
 */
export function placementPreview(kind, get, set, scene) {
  const canvas = h('canvas', {
    class: 'preview-canvas', tabindex: 0, role: 'img',
    'aria-label': t(kind === 'place' ? 'preview.placeLabel' : 'preview.backgroundLabel'),
  });
  const g = canvas.getContext('2d');
  let geo = null; // where the handles are, in canvas pixels
  let drag = null;

  const share = (v) => Math.round(Math.min(1, Math.max(0, v)) * 100) / 100;

  function layout() {
    const s = scene();
    const W = WIDTH;
    const H = Math.round(W / (s.aspect || 1.5));
    if (canvas.width !== W || canvas.height !== H) {
      canvas.width = W;
      canvas.height = H;
    }
    const line = get('horizonLine') * H;
    if (kind === 'place') {
      // place_car.go: the car scaled into carWidth × carHeight of the
      // canvas, centred, its wheels on the horizon unless its roof would
      // leave the canvas.
      const bw = get('carWidth') * W;
      const bh = get('carHeight') * H;
      const sc = Math.max(Math.min(bw / CAR_ASPECT, bh), 1);
      const ch = sc;
      const cw = sc * CAR_ASPECT;
      const ground = Math.max(Math.min(line, H), ch);
      return { s, W, H, line, car: { x: (W - cw) / 2, y: ground - ch, w: cw, h: ch },
        box: { x: (W - bw) / 2, y: ground - bh, w: bw, h: bh } };
    }
    // add_background.go's onFloor, for wheels on one line: the car as
    // large as the margins allow, its wheels a fifth of its height below
    // the wall-floor line (at most half the floor below that line).
    const top = get('marginTop') * H;
    const bot = (1 - get('marginBottom')) * H;
    const left = get('marginLeft') * W;
    const right = (1 - get('marginRight')) * W;
    let sc = Math.min((right - left) / CAR_ASPECT, bot - top);
    const room = bot - line;
    let ground;
    if (room <= 0) {
      sc = Math.max(sc, 1);
      ground = bot;
    } else {
      if (line > top) {
        sc = Math.min(sc, (line - top) / 0.8, (line + 0.5 * room - top));
      }
      sc = Math.max(sc, 1);
      ground = Math.max(line + Math.min(0.2 * sc, 0.5 * room), top + sc);
    }
    const cw = sc * CAR_ASPECT;
    return { s, W, H, line, car: { x: left + (right - left - cw) / 2, y: ground - sc, w: cw, h: sc },
      box: { x: left, y: top, w: right - left, h: bot - top } };
  }

  function draw() {
    geo = layout();
    const { s, W, H, line, car, box } = geo;
    g.clearRect(0, 0, W, H);
    if (s.image?.naturalWidth) {
      // Cover the canvas, as the background is scaled to cover the output.
      const sc = Math.max(W / s.image.naturalWidth, H / s.image.naturalHeight);
      const iw = s.image.naturalWidth * sc;
      const ih = s.image.naturalHeight * sc;
      g.drawImage(s.image, (W - iw) / 2, (H - ih) / 2, iw, ih);
    } else {
      g.fillStyle = s.color || '#ffffff';
      g.fillRect(0, 0, W, H);
    }
    // A soft shadow, then the car.
    g.fillStyle = 'rgb(0 0 0 / .25)';
    g.beginPath();
    g.ellipse(car.x + car.w / 2, car.y + car.h * 0.98, car.w * 0.48, car.h * 0.06, 0, 0, 2 * Math.PI);
    g.fill();
    g.drawImage(sample, car.x, car.y, car.w, car.h);
    // The box the car must fit, and the floor line.
    g.save();
    g.setLineDash([6, 4]);
    g.lineWidth = 2;
    g.strokeStyle = '#1d4ed8';
    g.strokeRect(box.x, box.y, box.w, box.h);
    g.strokeStyle = '#f59e0b';
    g.beginPath();
    g.moveTo(0, line);
    g.lineTo(W, line);
    g.stroke();
    g.restore();
    // The line's name on a dark label, readable on any background.
    g.font = '600 13px system-ui, sans-serif';
    const label = t('preview.floor');
    const ly = Math.max(4, line - 24);
    g.fillStyle = 'rgb(0 0 0 / .6)';
    g.fillRect(6, ly, g.measureText(label).width + 12, 20);
    g.fillStyle = '#fbbf24';
    g.fillText(label, 12, ly + 15);
    for (const [hx, hy] of handles(geo)) {
      g.fillStyle = '#fff';
      g.strokeStyle = '#1d4ed8';
      g.lineWidth = 2;
      g.beginPath();
      g.rect(hx - 6, hy - 6, 12, 12);
      g.fill();
      g.stroke();
    }
    g.beginPath();
    g.fillStyle = '#f59e0b';
    g.arc(W / 2, line, 7, 0, 2 * Math.PI);
    g.fill();
  }

  // handles are the box's drag points: its corners for the car's size,
  // the middle of its sides for the margins.
  function handles({ box }) {
    if (kind === 'place') return [[box.x, box.y], [box.x + box.w, box.y]];
    return [[box.x + box.w / 2, box.y], [box.x + box.w / 2, box.y + box.h], [box.x, box.y + box.h / 2], [box.x + box.w, box.y + box.h / 2]];
  }

  function point(e) {
    const r = canvas.getBoundingClientRect();
    return [(e.clientX - r.left) * (canvas.width / r.width), (e.clientY - r.top) * (canvas.height / r.height)];
  }

  function hit(x, y) {
    const near = 12 * (canvas.width / canvas.getBoundingClientRect().width || 1);
    const hs = handles(geo);
    const i = hs.findIndex(([hx, hy]) => Math.abs(hx - x) < near && Math.abs(hy - y) < near);
    if (i >= 0) return kind === 'place' ? 'corner' : ['top', 'bottom', 'left', 'right'][i];
    if (Math.abs(y - geo.line) < near) return 'line';
    return null;
  }

  function move(what, x, y) {
    const { W, H, box } = geo;
    if (what === 'line') set('horizonLine', share(y / H));
    else if (what === 'corner') {
      set('carWidth', share((2 * Math.abs(x - W / 2)) / W));
      set('carHeight', share((box.y + box.h - y) / H));
    } else if (what === 'top') set('marginTop', Math.min(0.45, share(y / H)));
    else if (what === 'bottom') set('marginBottom', Math.min(0.45, share(1 - y / H)));
    else if (what === 'left') set('marginLeft', Math.min(0.45, share(x / W)));
    else if (what === 'right') set('marginRight', Math.min(0.45, share(1 - x / W)));
    draw();
  }

  canvas.addEventListener('pointerdown', (e) => {
    const [x, y] = point(e);
    drag = hit(x, y);
    if (!drag) return;
    e.preventDefault();
    canvas.setPointerCapture(e.pointerId);
    move(drag, x, y);
  });
  canvas.addEventListener('pointermove', (e) => {
    const [x, y] = point(e);
    if (drag) move(drag, x, y);
    else canvas.style.cursor = { line: 'ns-resize', top: 'ns-resize', bottom: 'ns-resize', left: 'ew-resize', right: 'ew-resize', corner: 'nesw-resize' }[hit(x, y)] || 'default';
  });
  const end = () => { drag = null; };
  canvas.addEventListener('pointerup', end);
  canvas.addEventListener('pointercancel', end);
  // The keyboard: up and down move the floor line; left and right make
  // the car (or the space for it) smaller and larger.
  canvas.addEventListener('keydown', (e) => {
    const step = e.shiftKey ? 0.05 : 0.01;
    const add = (name, d, max = 1) => set(name, Math.min(max, share(get(name) + d)));
    if (e.key === 'ArrowUp') add('horizonLine', -step);
    else if (e.key === 'ArrowDown') add('horizonLine', step);
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      const d = e.key === 'ArrowLeft' ? -step : step;
      if (kind === 'place') {
        add('carWidth', d);
        add('carHeight', d);
      } else {
        for (const m of ['marginLeft', 'marginRight', 'marginTop', 'marginBottom']) add(m, -d / 2, 0.45);
      }
    } else return;
    e.preventDefault();
    draw();
  });

  const wrap = h('figure', { class: 'preview' }, canvas,
    h('figcaption', { class: 'hint' }, t(kind === 'place' ? 'preview.placeHint' : 'preview.backgroundHint')));
  wrap.redraw = draw;
  draw();
  return wrap;
}
