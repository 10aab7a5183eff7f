// Live mode: polls GET /frame (one request in flight at a time) and posts control messages
// to POST /control.

const HISTORY = 3600;

export class LiveLink {
  /**
   * @param {{onFrame: (live: object) => void, onStatus: (text: string, error: boolean) => void}} handlers
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.stopped = false;
    this.failures = 0;
    this.pendingGrab = null;
    this.grabInFlight = false;
    this.lastGrab = null;
    // Bumped on reset: frames asked for before it are dropped.
    this.epoch = 0;
  }

  start() {
    this.poll();
  }

  async poll() {
    if (this.stopped) return;
    const started = performance.now();
    const epoch = this.epoch;
    try {
      const response = await fetch('/frame', { cache: 'no-store' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const live = await response.json();
      if (this.failures > 0) this.handlers.onStatus('connected', false);
      this.failures = 0;
      if (epoch === this.epoch) this.handlers.onFrame(live);
    } catch (error) {
      this.failures += 1;
      if (this.failures === 1) this.handlers.onStatus(`server unreachable (${error.message}); retrying`, true);
    }
    const wait = this.failures > 0 ? 1000 : Math.max(0, 16 - (performance.now() - started));
    setTimeout(() => this.poll(), wait);
  }

  /** Sends a control message; resolves to the server's answer. */
  async send(message) {
    try {
      const response = await fetch('/control', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(message),
      });
      const answer = await response.json();
      if (!answer.ok) this.handlers.onStatus(`${message.type}: ${answer.error}`, true);
      return answer;
    } catch (error) {
      this.handlers.onStatus(`${message.type}: ${error.message}`, true);
      return { ok: false, error: error.message };
    }
  }

  /** Sends grab messages, at most one in flight; the latest target wins. */
  grab(message) {
    this.pendingGrab = message;
    this.lastGrab = message;
    if (this.grabInFlight) return;
    const next = async () => {
      while (this.pendingGrab) {
        const m = this.pendingGrab;
        this.pendingGrab = null;
        this.grabInFlight = true;
        await this.send(m);
        this.grabInFlight = false;
      }
    };
    next();
  }

  release() {
    this.pendingGrab = null;
    this.send({ type: 'release' });
  }
}

/** Appends a live frame to `scene` (frames and plot series), keeping the last HISTORY. */
export function appendLiveFrame(scene, live) {
  scene.frames.push(live.frame);
  const count = scene.frames.length;
  for (const [name, value] of Object.entries(live.plots || {})) {
    if (!scene.plots[name]) scene.plots[name] = new Array(count - 1).fill(null);
  }
  for (const [name, series] of Object.entries(scene.plots)) {
    const v = live.plots ? live.plots[name] : undefined;
    series.push(v === undefined ? null : v);
  }
  let dropped = 0;
  if (count > HISTORY) {
    dropped = count - HISTORY;
    scene.frames.splice(0, dropped);
    for (const series of Object.values(scene.plots)) series.splice(0, dropped);
  }
  return dropped;
}
