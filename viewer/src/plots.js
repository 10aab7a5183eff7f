// One small canvas plot per series, with a cursor at the current frame; clicking or
// dragging on a plot moves the timeline there.

const WIDTH = 240;
const HEIGHT = 92;
const PAD = { left: 6, right: 6, top: 16, bottom: 6 };

export class Plots {
  /**
   * @param {HTMLElement} container
   * @param {(index: number) => void} seek called with a frame index
   */
  constructor(container, seek) {
    this.container = container;
    this.seek = seek;
    this.plots = new Map();
    this.count = 0;
    this.cursor = 0;
  }

  /** Replaces the series: `{name: number[]}` (null for a gap), `count` frames. */
  setSeries(series, count) {
    this.count = count;
    for (const [name, values] of Object.entries(series)) {
      let plot = this.plots.get(name);
      if (!plot) {
        plot = this.create(name);
        this.plots.set(name, plot);
      }
      plot.values = values;
      plot.dirty = true;
    }
    this.drawAll();
  }

  create(name) {
    const canvas = document.createElement('canvas');
    const ratio = window.devicePixelRatio || 1;
    canvas.width = WIDTH * ratio;
    canvas.height = HEIGHT * ratio;
    canvas.style.width = `${WIDTH}px`;
    canvas.style.height = `${HEIGHT}px`;
    canvas.className = 'sv-plot';
    canvas.title = name;
    canvas.dataset.series = name;
    const plot = { name, canvas, ratio, values: [], dirty: true };
    const pick = (event) => {
      if (this.count < 1) return;
      const rect = canvas.getBoundingClientRect();
      const u = (event.clientX - rect.left - PAD.left) / (rect.width - PAD.left - PAD.right);
      this.seek(Math.round(Math.min(1, Math.max(0, u)) * (this.count - 1)));
    };
    canvas.addEventListener('pointerdown', (event) => {
      canvas.setPointerCapture(event.pointerId);
      pick(event);
    });
    canvas.addEventListener('pointermove', (event) => {
      if (event.buttons & 1) pick(event);
    });
    this.container.appendChild(canvas);
    return plot;
  }

  setCursor(index) {
    if (index === this.cursor) return;
    this.cursor = index;
    this.drawAll();
  }

  drawAll() {
    for (const plot of this.plots.values()) this.draw(plot);
  }

  /** The plot's x coordinate (CSS pixels) of frame `i`. */
  x(i) {
    const w = WIDTH - PAD.left - PAD.right;
    return PAD.left + (i / Math.max(1, this.count - 1)) * w;
  }

  /**
   * The plot without its cursor and value (the curve, its range), kept in an offscreen
   * canvas until the series change: moving the cursor then copies it and draws two things.
   */
  background(plot) {
    if (!plot.dirty && plot.background) return plot.background;
    const canvas = plot.background || document.createElement('canvas');
    canvas.width = plot.canvas.width;
    canvas.height = plot.canvas.height;
    const g = canvas.getContext('2d');
    const r = plot.ratio;
    g.setTransform(r, 0, 0, r, 0, 0);
    g.clearRect(0, 0, WIDTH, HEIGHT);
    const values = plot.values;
    let lo = Infinity;
    let hi = -Infinity;
    for (const v of values) {
      if (v === null || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    const h = HEIGHT - PAD.top - PAD.bottom;
    if (lo <= hi) {
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
    plot.background = canvas;
    plot.dirty = false;
    return canvas;
  }

  draw(plot) {
    const background = this.background(plot);
    const g = plot.canvas.getContext('2d');
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, plot.canvas.width, plot.canvas.height);
    g.drawImage(background, 0, 0);
    const r = plot.ratio;
    g.setTransform(r, 0, 0, r, 0, 0);
    // The cursor and the current value.
    const values = plot.values;
    const c = Math.min(this.cursor, Math.max(0, values.length - 1));
    g.strokeStyle = '#ffb454';
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(this.x(this.cursor) + 0.5, PAD.top);
    g.lineTo(this.x(this.cursor) + 0.5, HEIGHT - PAD.bottom);
    g.stroke();
    g.fillStyle = '#c9cfd8';
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'top';
    const current = values[c];
    const text = current === null || current === undefined || !Number.isFinite(current) ? '-' : format(current);
    g.fillText(`${plot.name}: ${text}`, PAD.left, 2);
  }
}

function format(v) {
  if (v !== 0 && (Math.abs(v) >= 1e4 || Math.abs(v) < 1e-2)) return v.toExponential(2);
  return Number(v.toFixed(3)).toString();
}
