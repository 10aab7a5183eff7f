// One small plot per series, with a cursor at the current frame; clicking or dragging on a
// plot moves the timeline there. All the plots are tiles of ONE canvas, since every canvas
// that changes is one more layer for the compositor to upload and draw each frame, which a
// software renderer pays for in CPU time.

// Drawn on the CPU (willReadFrequently keeps a 2D canvas out of the GPU), since with a
// software GPU each accelerated line and glyph cost more than rasterising the canvas here.
const CONTEXT = { willReadFrequently: true };

const WIDTH = 240;
const HEIGHT = 92;
const GAP = 6;
const PAD = { left: 6, right: 6, top: 16, bottom: 6 };

export class Plots {
  /**
   * @param {HTMLElement} container
   * @param {(index: number) => void} seek called with a frame index
   */
  constructor(container, seek) {
    this.container = container;
    this.seek = seek;
    this.plots = [];
    this.count = 0;
    this.cursor = 0;
    this.columns = 0;
    this.ratio = window.devicePixelRatio || 1;
    this.canvas = null;
    // The tiles without their cursor and value, redrawn only when the series or layout change.
    this.background = document.createElement('canvas');
    this.dirty = true;
  }

  /** Replaces the series: `{name: number[]}` (null for a gap), `count` frames. */
  setSeries(series, count) {
    this.count = count;
    for (const [name, values] of Object.entries(series)) {
      let plot = this.plots.find((p) => p.name === name);
      if (!plot) {
        plot = { name, values: [] };
        this.plots.push(plot);
      }
      plot.values = values;
    }
    if (this.plots.length > 0 && !this.canvas) this.create();
    // The names in tile order (row by row), for tests and scripts.
    if (this.canvas) this.canvas.dataset.series = JSON.stringify(this.plots.map((p) => p.name));
    this.dirty = true;
    this.layout();
    this.draw();
  }

  create() {
    const canvas = document.createElement('canvas');
    canvas.className = 'sv-plot';
    this.canvas = canvas;
    // The tile under a press keeps the drag, even when the pointer leaves it.
    let dragged = null;
    const pick = (event, plot) => {
      if (this.count < 1 || plot === null) return;
      const rect = canvas.getBoundingClientRect();
      const { x } = this.origin(plot);
      const u = (event.clientX - rect.left - x - PAD.left) / (WIDTH - PAD.left - PAD.right);
      this.seek(Math.round(Math.min(1, Math.max(0, u)) * (this.count - 1)));
    };
    canvas.addEventListener('pointerdown', (event) => {
      dragged = this.tileAt(event);
      if (dragged === null) return;
      canvas.setPointerCapture(event.pointerId);
      pick(event, dragged);
    });
    canvas.addEventListener('pointermove', (event) => {
      if (event.buttons & 1) pick(event, dragged);
      const hovered = this.tileAt(event);
      canvas.title = hovered === null ? '' : hovered.name;
    });
    this.container.appendChild(canvas);
    new ResizeObserver(() => {
      if (this.layout()) this.draw();
    }).observe(this.container);
  }

  /** The plot under a pointer event, or null between tiles. */
  tileAt(event) {
    const rect = this.canvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const column = Math.floor(x / (WIDTH + GAP));
    const row = Math.floor(y / (HEIGHT + GAP));
    if (column < 0 || column >= this.columns || x - column * (WIDTH + GAP) > WIDTH) return null;
    if (row < 0 || y - row * (HEIGHT + GAP) > HEIGHT) return null;
    return this.plots[row * this.columns + column] || null;
  }

  /** The top left corner (CSS pixels) of a plot's tile. */
  origin(plot) {
    const i = this.plots.indexOf(plot);
    return { x: (i % this.columns) * (WIDTH + GAP), y: Math.floor(i / this.columns) * (HEIGHT + GAP) };
  }

  /** Fits the columns to the container's width; true if the canvas's size changed. */
  layout() {
    if (!this.canvas) return false;
    const style = getComputedStyle(this.container);
    const inner = this.container.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const columns = Math.max(1, Math.min(this.plots.length, Math.floor((inner + GAP) / (WIDTH + GAP))));
    const rows = Math.ceil(this.plots.length / columns);
    const width = columns * (WIDTH + GAP) - GAP;
    const height = rows * (HEIGHT + GAP) - GAP;
    if (columns === this.columns && this.canvas.height === Math.round(height * this.ratio)) return false;
    this.columns = columns;
    this.canvas.width = Math.round(width * this.ratio);
    this.canvas.height = Math.round(height * this.ratio);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    this.dirty = true;
    return true;
  }

  setCursor(index) {
    if (index === this.cursor) return;
    this.cursor = index;
    this.draw();
  }

  /** The plot's x coordinate (CSS pixels, in its tile) of frame `i`. */
  x(i) {
    const w = WIDTH - PAD.left - PAD.right;
    return PAD.left + (i / Math.max(1, this.count - 1)) * w;
  }

  /** Every tile's background and curve with its range, into the background canvas. */
  drawBackground() {
    const canvas = this.background;
    canvas.width = this.canvas.width;
    canvas.height = this.canvas.height;
    const g = canvas.getContext('2d', CONTEXT);
    const r = this.ratio;
    for (const plot of this.plots) {
      const o = this.origin(plot);
      g.setTransform(r, 0, 0, r, o.x * r, o.y * r);
      g.fillStyle = '#22252c';
      g.beginPath();
      g.roundRect(0, 0, WIDTH, HEIGHT, 4);
      g.fill();
      this.drawCurve(g, plot.values);
    }
    this.dirty = false;
  }

  drawCurve(g, values) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of values) {
      if (v === null || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    if (lo > hi) return;
    const h = HEIGHT - PAD.top - PAD.bottom;
    if (hi === lo) {
      hi += Math.abs(hi) * 0.5 + 1e-12;
      lo -= Math.abs(lo) * 0.5 + 1e-12;
    }
    const y = (v) => PAD.top + (1 - (v - lo) / (hi - lo)) * h;
    g.strokeStyle = '#6cb4ff';
    g.lineWidth = 1.25;
    g.beginPath();
    let pen = false;
    values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) {
        pen = false;
        return;
      }
      if (pen) g.lineTo(this.x(i), y(v));
      else g.moveTo(this.x(i), y(v));
      pen = true;
    });
    g.stroke();
    g.font = '11px system-ui, sans-serif';
    g.fillStyle = '#7d8594';
    g.textAlign = 'right';
    g.textBaseline = 'top';
    g.fillText(format(hi), WIDTH - PAD.right, 2);
    g.textBaseline = 'bottom';
    g.fillText(format(lo), WIDTH - PAD.right, HEIGHT - 1);
  }

  /** Copies the background, then draws each plot's cursor and current value. */
  draw() {
    if (!this.canvas || this.columns === 0) return;
    if (this.dirty) this.drawBackground();
    const g = this.canvas.getContext('2d', CONTEXT);
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, this.canvas.width, this.canvas.height);
    g.drawImage(this.background, 0, 0);
    const r = this.ratio;
    const x = this.x(this.cursor) + 0.5;
    g.strokeStyle = '#ffb454';
    g.lineWidth = 1;
    g.beginPath();
    for (const plot of this.plots) {
      const o = this.origin(plot);
      g.setTransform(r, 0, 0, r, o.x * r, o.y * r);
      g.moveTo(x, PAD.top);
      g.lineTo(x, HEIGHT - PAD.bottom);
    }
    g.stroke();
    g.fillStyle = '#c9cfd8';
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'top';
    for (const plot of this.plots) {
      const o = this.origin(plot);
      g.setTransform(r, 0, 0, r, o.x * r, o.y * r);
      const values = plot.values;
      const current = values[Math.min(this.cursor, Math.max(0, values.length - 1))];
      const text = current === null || current === undefined || !Number.isFinite(current) ? '-' : format(current);
      g.fillText(`${plot.name}: ${text}`, PAD.left, 2);
    }
  }
}

function format(v) {
  if (v !== 0 && (Math.abs(v) >= 1e4 || Math.abs(v) < 1e-2)) return v.toExponential(2);
  return Number(v.toFixed(3)).toString();
}
