// Reading the scene (inline JSON, or /scene.json from the server) and what is derived from
// its frames: velocities by finite differences, the contact force on a body, bounds.

export const DATA_ID = 'stiction-scene';

/**
 * Where the scene comes from and how to draw it: `{ source: 'inline' | 'server', live: bool,
 * quality: 'auto' | 'low' | 'high', adaptive: bool }` (the page's `?quality=` and
 * `?resolution=fixed` parameters, docs/viewer.md#rendering-cost).
 */
export function config() {
  const c = window.STICTION_CONFIG || {};
  const inline = document.getElementById(DATA_ID);
  const params = new URLSearchParams(window.location.search);
  const asked = params.get('quality');
  const quality = ['low', 'high'].includes(asked) ? asked : 'auto';
  const adaptive = params.get('resolution') !== 'fixed';
  return { source: inline ? 'inline' : c.source || 'server', live: !!c.live, quality, adaptive };
}

/** Loads and checks the scene. */
export async function loadScene(cfg) {
  let scene;
  if (cfg.source === 'inline') {
    scene = JSON.parse(document.getElementById(DATA_ID).textContent);
  } else {
    const response = await fetch('/scene.json', { cache: 'no-store' });
    if (!response.ok) throw new Error(`/scene.json: HTTP ${response.status}`);
    scene = await response.json();
  }
  return normalize(scene);
}

/** Fills the optional fields so the rest of the page need not check them. */
export function normalize(scene) {
  scene.title = scene.title || '';
  scene.up = scene.up || [0, 0, 1];
  scene.bodies = scene.bodies || [];
  scene.world_shapes = scene.world_shapes || [];
  scene.joints = scene.joints || [];
  scene.frames = scene.frames || [];
  scene.plots = scene.plots || {};
  for (const f of scene.frames) normalizeFrame(f, scene.bodies.length);
  return scene;
}

export function normalizeFrame(f, n) {
  f.sleeping = f.sleeping && f.sleeping.length === n ? f.sleeping : null;
  f.islands = f.islands && f.islands.length === n ? f.islands : null;
  f.contacts = f.contacts || [];
  return f;
}

/** Linear velocity of body `b` at frame `i`: recorded, else a central difference. */
export function velocity(frames, i, b) {
  const f = frames[i];
  if (f.velocities) return { value: f.velocities[b], estimated: false };
  const a = frames[Math.max(0, i - 1)];
  const c = frames[Math.min(frames.length - 1, i + 1)];
  const dt = c.time - a.time;
  if (!(dt > 0)) return { value: [0, 0, 0], estimated: true };
  const p = a.positions[b];
  const q = c.positions[b];
  return { value: [(q[0] - p[0]) / dt, (q[1] - p[1]) / dt, (q[2] - p[2]) / dt], estimated: true };
}

/** Total contact force on body `b` in frame `f` (force on B, minus it on A) and the count. */
export function contactForce(f, b) {
  const total = [0, 0, 0];
  let count = 0;
  for (const c of f.contacts) {
    const [a, bb] = c.bodies || [null, null];
    let sign = 0;
    if (bb === b) sign += 1;
    if (a === b) sign -= 1;
    if (a === b || bb === b) count += 1;
    if (sign !== 0) {
      total[0] += sign * c.force[0];
      total[1] += sign * c.force[1];
      total[2] += sign * c.force[2];
    }
  }
  return { force: total, count };
}

/**
 * A typical large contact force over all frames, for the arrows' scale: the 90th
 * percentile of the forces' magnitudes (impacts, a few steps long, would otherwise shrink
 * every resting force to nothing). Zero without contacts.
 */
export function typicalContactForce(frames) {
  const magnitudes = [];
  const stride = Math.max(1, Math.floor(frames.length / 400));
  for (let i = 0; i < frames.length; i += stride) {
    for (const c of frames[i].contacts) magnitudes.push(Math.hypot(c.force[0], c.force[1], c.force[2]));
  }
  if (magnitudes.length === 0) return 0;
  magnitudes.sort((a, b) => a - b);
  return magnitudes[Math.min(magnitudes.length - 1, Math.floor(magnitudes.length * 0.9))];
}

export function length3(v) {
  return Math.hypot(v[0], v[1], v[2]);
}

export function fmt(x, digits = 4) {
  if (x === null || x === undefined || Number.isNaN(x)) return '-';
  if (x !== 0 && (Math.abs(x) >= 1e5 || Math.abs(x) < 1e-3)) return x.toExponential(digits - 1);
  return x.toFixed(digits);
}

export function fmtVec(v, digits = 4) {
  return v.map((x) => fmt(x, digits)).join(', ');
}
