// The stiction viewer: a recorded (or live) scene drawn with three.js, a timeline, toggles
// for contacts, joints, islands, sleep and body frames, plots linked to the timeline, and
// the body under the pointer described. docs/viewer.md describes the page and its data.

import {
  AxesHelper,
  Color,
  DirectionalLight,
  Group,
  HemisphereLight,
  Matrix4,
  MeshStandardMaterial,
  Object3D,
  PCFShadowMap,
  PerspectiveCamera,
  Plane,
  Raycaster,
  Scene,
  Vector2,
  Vector3,
  WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

import { config, contactForce, fmt, fmtVec, length3, loadScene, typicalContactForce, normalizeFrame, velocity } from './data.js';
import { appendLiveFrame, LiveLink } from './live.js';
import { LitMaterial, updateViewLights } from './lowcost.js';
import { Overlays } from './overlays.js';
import { Plots } from './plots.js';
import { instanceKey, instancedShapeMesh, planeMesh, shapeMesh, shapeReach } from './shapes.js';
import { injectStyle } from './style.js';

const PALETTE = [
  0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0x86bcb6,
];
const ISLAND_PALETTE = [
  0xe6194b, 0x3cb44b, 0xffe119, 0x4363d8, 0xf58231, 0x911eb4, 0x46f0f0, 0xf032e6, 0xbcf60c, 0xfabebe,
  0x008080, 0xe6beff, 0x9a6324, 0xfffac8, 0x800000, 0xaaffc3,
];
const STATIC_COLOR = 0x9ea3ab;
const NO_ISLAND_COLOR = 0x8a8f98;
const SLEEP_COLOR = new Color(0x30333a);
const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 4];
/** Bodies of one identical shape drawn as one instanced mesh from this many on. */
const INSTANCE_MIN = 16;
/** WebGL renderers that draw on the CPU: the page switches to its low-cost mode on them. */
const SOFTWARE_RENDERER = /swiftshader|llvmpipe|softpipe|lavapipe|software/i;
/** Adaptive resolution: the drawing buffer's scales, tried in turn while frames are slow. */
const RESOLUTION_SCALES = [1, 0.75, 0.5];
/** Frames of continuous drawing averaged before the resolution changes. */
const ADAPT_FRAMES = 30;
/** Slower than this (ms a frame, 50 fps) lowers the resolution... */
const SLOW_FRAME_MS = 20;
/** ... and faster than this (57 fps, about the display's rate) raises it again. */
const FAST_FRAME_MS = 17.5;

/** A WebGL 2 context on a new canvas, with three.js's default attributes. */
function openContext(antialias) {
  const canvas = document.createElement('canvas');
  const gl = canvas.getContext('webgl2', {
    alpha: false, depth: true, stencil: false, antialias, premultipliedAlpha: true,
    preserveDrawingBuffer: false, powerPreference: 'default',
  });
  return gl ? { canvas, gl } : null;
}

/** The name of the GPU (or software renderer) behind a context. */
function rendererName(gl) {
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
}

// The test hook, there before anything loads: tests wait for `ready`.
const api = {
  ready: false,
  error: null,
  firstFrameAt: null,
  viewer: null,
  get frameIndex() {
    return this.viewer ? this.viewer.index : 0;
  },
  get frameCount() {
    return this.viewer ? this.viewer.scene.frames.length : 0;
  },
  bodyPositions() {
    return this.viewer ? this.viewer.bodyPositions() : [];
  },
  setFrame(i) {
    if (this.viewer) this.viewer.setFrame(i);
    return this.frameIndex;
  },
  /** The step number of the frame shown (null before the first frame). */
  get frameStep() {
    const f = this.viewer ? this.viewer.frame() : null;
    return f ? f.step : null;
  },
  /** What the contact overlay draws now: `{points, normals, forces}` (zeros when off). */
  contactCounts() {
    return this.viewer ? this.viewer.overlays.contactCounts() : { points: 0, normals: 0, forces: 0 };
  },
  /** Live: the newest frame's statistics from the server (`LiveStats`) and `realTime`. */
  get liveStats() {
    return this.viewer && this.viewer.liveStats ? { ...this.viewer.liveStats, realTime: this.viewer.realTime } : null;
  },
  /** How the page draws: `{mode: 'low-cost' | 'full', renderer, software, antialias, shadows, pixelRatio}`. */
  get rendering() {
    return this.viewer ? this.viewer.rendering : null;
  },
  /** Frames drawn so far and the milliseconds the page spent issuing them (not the GPU's). */
  get draws() {
    return this.viewer ? { count: this.viewer.drawCount, ms: this.viewer.drawMs } : { count: 0, ms: 0 };
  },
  /** Live: the last grab message sent (`{body, target, point}`), null before any. */
  get lastGrab() {
    return this.viewer && this.viewer.link ? this.viewer.link.lastGrab : null;
  },
};
window.stictionViewer = api;

function el(tag, className, parent, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

class Viewer {
  constructor(scene, cfg) {
    this.scene = scene;
    this.live = cfg.live;
    this.quality = cfg.quality;
    this.adaptive = cfg.adaptive;
    this.index = 0;
    this.playing = false;
    this.speed = 1;
    this.playTime = 0;
    this.livePlaying = false;
    this.liveStats = null;
    this.realTime = null;
    // (wall ms, simulated s) of recent live frames, for the real-time factor shown.
    this.clockSamples = [];
    // The page draws only when something changed (a frame, the camera, a colour, the size).
    this.dirty = true;
    this.drawCount = 0;
    this.drawMs = 0;
    this.hovered = null;
    this.selected = null;
    this.fitted = false;
    this.options = { contacts: true, joints: true, islands: false, sleeping: true, frames: false, forceScale: 1 };
    this.buildDom();
    this.buildThree();
    this.buildBodies();
    this.fitView();
    this.plots = new Plots(this.plotBox, (i) => this.setFrame(i));
    this.plots.setSeries(this.scene.plots, this.scene.frames.length);
    this.bindInput();
    this.setFrame(0);
    this.last = performance.now();
    requestAnimationFrame((t) => this.loop(t));
  }

  // ---- page -----------------------------------------------------------------------------

  buildDom() {
    document.title = this.scene.title ? `${this.scene.title} - stiction viewer` : 'stiction viewer';
    const top = el('div', 'sv-top', document.body);
    el('span', 'sv-title', top, this.scene.title || 'stiction viewer');
    el('span', '', top, `${this.scene.bodies.length} bodies, ${this.scene.joints.length} joints${this.live ? ', live' : ''}`);
    this.status = el('span', 'sv-status', top, '');
    // Says when adaptive resolution draws fewer pixels than the canvas has.
    this.resolutionNote = el('span', 'sv-resolution', top, '');
    this.view = el('div', 'sv-view', document.body);
    this.info = el('div', 'sv-info', this.view);
    const toggles = el('div', 'sv-toggles', this.view);
    const toggle = (key, label) => {
      const l = el('label', '', toggles);
      const box = el('input', '', l);
      box.type = 'checkbox';
      box.checked = this.options[key];
      box.dataset.toggle = key;
      box.addEventListener('change', () => {
        this.options[key] = box.checked;
        this.applyFrame();
      });
      l.appendChild(document.createTextNode(` ${label}`));
    };
    toggle('contacts', 'contacts: points, normals, forces');
    toggle('joints', 'joint anchors and axes');
    toggle('islands', 'colour by island');
    toggle('sleeping', 'dim sleeping bodies');
    toggle('frames', 'body frames');
    const scaleLabel = el('label', '', toggles, 'force scale ');
    const scale = el('input', '', scaleLabel);
    scale.type = 'range';
    scale.min = '-2';
    scale.max = '2';
    scale.step = '0.1';
    scale.value = '0';
    scale.addEventListener('input', () => {
      this.options.forceScale = Math.pow(10, Number(scale.value));
      this.applyFrame();
    });
    el('div', 'sv-hint', this.view, this.live
      ? 'drag: orbit, right-drag: pan, wheel: zoom, click: select, shift-drag a body: pull it'
      : 'drag: orbit, right-drag: pan, wheel: zoom, click: select; space: play, arrows: step');

    const bar = el('div', 'sv-bar', document.body);
    const button = (text, title, action) => {
      const b = el('button', '', bar, text);
      b.title = title;
      b.addEventListener('click', () => {
        action();
        // Keys (space, arrows) go to the page's shortcuts, not to the last button clicked.
        b.blur();
      });
      return b;
    };
    button('|\u25c0', 'first frame (Home)', () => this.setFrame(0));
    button('\u25c0', 'previous frame (left arrow)', () => this.stepBy(-1));
    this.playButton = button('\u25b6', 'play / pause (space)', () => this.togglePlay());
    button('\u25b6|', 'next frame (right arrow)', () => this.stepForward());
    if (this.live) button('\u21ba', 'reset the simulation', () => this.resetLive());
    this.speedSelect = el('select', '', bar);
    this.speedSelect.title = 'playback speed';
    for (const s of SPEEDS) {
      const o = el('option', '', this.speedSelect, `${s}x`);
      o.value = String(s);
      if (s === 1) o.selected = true;
    }
    this.speedSelect.addEventListener('change', () => {
      this.speed = Number(this.speedSelect.value);
      // Live, the server paces the stepping: slow motion is fewer steps per second there.
      if (this.live) this.link.send({ type: 'speed', speed: this.speed });
      this.speedSelect.blur();
    });
    if (this.live) {
      this.solverSelect = el('select', 'sv-solver', bar);
      this.solverSelect.title = 'stepper: exact (Dantzig pivoting) or iterative (Gauss-Seidel sweeps)';
      for (const name of ['exact', 'iterative']) el('option', '', this.solverSelect, name).value = name;
      this.solverSelect.addEventListener('change', () => this.switchSolver(this.solverSelect.value));
    }
    this.timeline = el('input', 'sv-timeline', bar);
    this.timeline.type = 'range';
    this.timeline.min = '0';
    this.timeline.step = '1';
    this.timeline.addEventListener('input', () => this.setFrame(Number(this.timeline.value)));
    this.frameLabel = el('span', 'sv-frame', bar, '');
    this.plotBox = el('div', 'sv-plots', document.body);
    if (this.live) this.statsBox = el('div', 'sv-stats', this.view);
  }

  setStatus(text, error) {
    this.status.textContent = text;
    this.status.classList.toggle('sv-error', !!error);
  }

  // ---- three.js -------------------------------------------------------------------------

  buildThree() {
    const up = new Vector3(...this.scene.up).normalize();
    Object3D.DEFAULT_UP.copy(up);
    this.up = up;
    // Low-cost mode (docs/viewer.md#rendering-cost) on a software renderer, or when asked
    // for with ?quality=low: no antialiasing, no shadows, one pixel per CSS pixel. The
    // renderer is known only from a context: a first one without antialiasing is kept in
    // low-cost mode and replaced by one with antialiasing otherwise.
    let opened = openContext(false);
    const name = opened ? rendererName(opened.gl) : 'unknown';
    const software = SOFTWARE_RENDERER.test(name);
    const lowCost = this.quality === 'low' || (this.quality !== 'high' && software);
    if (opened && !lowCost) {
      const lose = opened.gl.getExtension('WEBGL_lose_context');
      if (lose) lose.loseContext();
      opened = openContext(true);
    }
    this.renderer = new WebGLRenderer(opened ? { canvas: opened.canvas, context: opened.gl } : { antialias: !lowCost });
    const pixelRatio = lowCost ? 1 : Math.min(window.devicePixelRatio || 1, 2);
    this.renderer.setPixelRatio(pixelRatio);
    this.lowCost = lowCost;
    this.basePixelRatio = pixelRatio;
    this.rendering = {
      mode: lowCost ? 'low-cost' : 'full', renderer: name, software,
      antialias: this.renderer.getContext().getContextAttributes().antialias, shadows: !lowCost, pixelRatio,
      adaptive: this.adaptive, scale: 1,
    };
    // Adaptive resolution's state: the scale in use, the recent frame times, when it last
    // changed and how long fast frames must last before it is raised again.
    this.scaleLevel = 0;
    this.slowFps = 0;
    this.frameTimes = new Float64Array(ADAPT_FRAMES);
    this.frameTimeCount = 0;
    this.scaleChangedAt = 0;
    this.scaleRaisedAt = -Infinity;
    this.raiseAfterMs = 4000;
    this.drewLast = false;
    this.renderer.shadowMap.enabled = !lowCost;
    this.renderer.shadowMap.type = PCFShadowMap;
    this.view.insertBefore(this.renderer.domElement, this.view.firstChild);
    this.three = new Scene();
    this.three.background = new Color(0x2a2e36);
    this.camera = new PerspectiveCamera(45, 1, 0.01, 1000);
    this.camera.up.copy(up);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = true;
    this.controls.dampingFactor = 0.15;
    const hemi = new HemisphereLight(0xdde6ff, 0x3a3228, 1.4);
    hemi.position.copy(up);
    this.three.add(hemi);
    this.sun = new DirectionalLight(0xffffff, 2.2);
    this.sun.castShadow = !lowCost;
    this.sun.shadow.mapSize.set(2048, 2048);
    this.three.add(this.sun, this.sun.target);
    this.raycaster = new Raycaster();
    this.pointer = new Vector2();
    const resize = () => {
      const w = Math.max(1, this.view.clientWidth);
      const h = Math.max(1, this.view.clientHeight);
      this.renderer.setSize(w, h, false);
      this.camera.aspect = w / h;
      this.camera.updateProjectionMatrix();
      this.dirty = true;
    };
    new ResizeObserver(resize).observe(this.view);
    resize();
  }

  buildBodies() {
    this.groups = [];
    this.materials = [];
    this.pickable = [];
    this.reach = [];
    this.axes = [];
    // Many bodies of one shape (a pile of spheres, a pyramid of boxes) are one draw call.
    const keys = this.scene.bodies.map((body) => {
      const solid = body.shapes.filter((shape) => shape.kind !== 'plane');
      return solid.length === 1 && body.shapes.length === 1 ? instanceKey(solid[0]) : null;
    });
    const members = new Map();
    keys.forEach((key, b) => {
      if (key !== null) members.set(key, [...(members.get(key) || []), b]);
    });
    this.instanceSets = [];
    this.detached = [];
    this.framesShown = false;
    const instanceOf = new Map();
    for (const bodies of members.values()) {
      if (bodies.length < INSTANCE_MIN) continue;
      const { mesh, pose } = instancedShapeMesh(this.scene.bodies[bodies[0]].shapes[0], bodies.length, this.lowCost);
      mesh.userData.instances = bodies;
      this.three.add(mesh);
      this.pickable.push(mesh);
      const set = { mesh, pose, bodies };
      this.instanceSets.push(set);
      bodies.forEach((b, index) => instanceOf.set(b, { set, index }));
    }
    this.scene.bodies.forEach((body, b) => {
      const group = new Group();
      group.name = body.name;
      const base = body.kind === 'dynamic' ? PALETTE[b % PALETTE.length] : STATIC_COLOR;
      const instance = instanceOf.get(b);
      if (instance) {
        const reach = Math.max(shapeReach(body.shapes[0]), 0.02);
        this.addBodyGroup(group, reach, { list: [], base: new Color(base), instance });
        return;
      }
      const material = this.bodyMaterial(base);
      const materials = [material];
      let reach = 0;
      for (const shape of body.shapes) {
        if (shape.kind === 'plane') {
          this.pendingPlanes = this.pendingPlanes || [];
          this.pendingPlanes.push({ shape, body: b });
          continue;
        }
        const mesh = shapeMesh(shape, material);
        if (!mesh) continue;
        if (mesh.material !== material) materials.push(mesh.material);
        mesh.userData.body = b;
        group.add(mesh);
        this.pickable.push(mesh);
        reach = Math.max(reach, shapeReach(shape));
      }
      this.addBodyGroup(group, Math.max(reach, 0.02), { list: materials, base: new Color(base) });
    });
    this.worldGroup = new Group();
    this.three.add(this.worldGroup);
    const worldMaterial = this.lowCost ? new LitMaterial({ color: STATIC_COLOR }) : new MeshStandardMaterial({ color: STATIC_COLOR, roughness: 0.8 });
    this.worldPlanes = [];
    for (const shape of this.scene.world_shapes) {
      if (shape.kind === 'plane') {
        this.worldPlanes.push(shape);
        continue;
      }
      const mesh = shapeMesh(shape, worldMaterial);
      if (mesh) this.worldGroup.add(mesh);
    }
  }

  /** A body's material: lit per vertex in low-cost mode (lowcost.js), else the standard one. */
  bodyMaterial(colour) {
    if (this.lowCost) return new LitMaterial({ color: colour });
    return new MeshStandardMaterial({ color: colour, roughness: 0.55, metalness: 0.05 });
  }

  /** Adds a body's group with its frame axes (hidden until toggled), sized by `reach`, and
   * records its materials entry, reach and axes at the body's index. */
  addBodyGroup(group, reach, materials) {
    const axes = new AxesHelper(reach * 1.4);
    axes.material.depthTest = false;
    axes.renderOrder = 4;
    axes.visible = false;
    group.add(axes);
    // A body drawn by an instanced mesh has only its axes in its group: the group joins the
    // scene only while they are shown, so that a thousand empty groups are not traversed
    // and their matrices not recomputed on every draw.
    if (materials.instance) this.detached.push(group);
    else this.three.add(group);
    this.groups.push(group);
    this.materials.push(materials);
    this.reach.push(reach);
    this.axes.push(axes);
  }

  /** Centre and radius of everything that moves (all frames) and of world geometry. */
  bounds() {
    const min = new Vector3(Infinity, Infinity, Infinity);
    const max = new Vector3(-Infinity, -Infinity, -Infinity);
    const grow = (p, r) => {
      min.min(new Vector3(p[0] - r, p[1] - r, p[2] - r));
      max.max(new Vector3(p[0] + r, p[1] + r, p[2] + r));
    };
    const frames = this.scene.frames;
    const stride = Math.max(1, Math.floor(frames.length / 200));
    for (let i = 0; i < frames.length; i += stride) {
      frames[i].positions.forEach((p, b) => grow(p, this.reach[b]));
    }
    if (frames.length > 0) frames[frames.length - 1].positions.forEach((p, b) => grow(p, this.reach[b]));
    for (const shape of this.scene.world_shapes) {
      if (shape.kind === 'plane') continue;
      grow((shape.pose && shape.pose.position) || [0, 0, 0], shapeReach(shape));
    }
    if (!(min.x <= max.x)) return { centre: new Vector3(0, 0, 0), radius: 1 };
    const centre = min.clone().add(max).multiplyScalar(0.5);
    return { centre, radius: Math.max(0.25, min.distanceTo(max) / 2) };
  }

  fitView() {
    const { centre, radius } = this.bounds();
    this.centre = centre;
    this.radius = radius;
    const up = this.up;
    const any = Math.abs(up.x) < 0.9 ? new Vector3(1, 0, 0) : new Vector3(0, 1, 0);
    const e1 = any.clone().addScaledVector(up, -any.dot(up)).normalize();
    const e2 = new Vector3().crossVectors(up, e1);
    const dir = e1.clone().multiplyScalar(0.55).addScaledVector(e2, -1).addScaledVector(up, 0.6).normalize();
    const distance = radius / Math.sin((this.camera.fov * Math.PI) / 360) * 1.1;
    this.camera.position.copy(centre).addScaledVector(dir, distance);
    this.camera.near = Math.max(1e-3, distance / 500);
    this.camera.far = distance * 50 + radius * 100;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(centre);
    this.controls.update();
    // The sun: above and to the side; its shadow box holds the scene.
    const sunDir = up.clone().multiplyScalar(1).addScaledVector(e1, 0.45).addScaledVector(e2, -0.3).normalize();
    this.sun.position.copy(centre).addScaledVector(sunDir, radius * 4);
    this.sun.target.position.copy(centre);
    const cam = this.sun.shadow.camera;
    cam.left = cam.bottom = -radius * 1.6;
    cam.right = cam.top = radius * 1.6;
    cam.near = radius * 0.5;
    cam.far = radius * 8;
    cam.updateProjectionMatrix();
    this.sun.shadow.bias = -0.0005;
    this.sun.shadow.normalBias = radius * 0.004;
    // Planes: squares around the scene.
    if (this.planeMeshes) for (const m of this.planeMeshes) this.worldGroup.remove(m);
    this.planeMeshes = [];
    // Low-cost mode: a smaller square, since every ground pixel costs a software renderer;
    // the squares of its checkers are as large as the full mode's.
    const full = Math.max(10, radius * 8);
    const half = this.lowCost ? Math.max(5, radius * 3) : full;
    const tile = Math.max(0.25, Math.pow(10, Math.round(Math.log10(full / 10))));
    for (const shape of this.worldPlanes) {
      const mesh = planeMesh(shape, half, [centre.x, centre.y, centre.z], this.lowCost, tile);
      this.planeMeshes.push(mesh);
      this.worldGroup.add(mesh);
    }
    if (this.pendingPlanes) {
      for (const { shape, body } of this.pendingPlanes) {
        // In the body frame: the plane's pose is relative to the body.
        this.groups[body].add(planeMesh(shape, half, [0, 0, 0], this.lowCost, tile));
      }
      this.pendingPlanes = null;
    }
    if (this.overlays) {
      this.three.remove(this.overlays.contactGroup, this.overlays.jointGroup);
    }
    this.overlays = new Overlays(this.three, radius);
    const typical = typicalContactForce(this.scene.frames);
    this.forceUnit = typical > 0 ? (radius * 0.25) / typical : 0;
    this.fitted = this.scene.frames.length > 0;
    this.dirty = true;
  }

  // ---- frames ---------------------------------------------------------------------------

  frame() {
    return this.scene.frames[this.index];
  }

  setFrame(i) {
    const n = this.scene.frames.length;
    if (n === 0) {
      this.index = 0;
      this.applyFrame();
      return;
    }
    const index = Math.max(0, Math.min(n - 1, Math.round(Number(i) || 0)));
    this.index = index;
    this.playTime = this.scene.frames[index].time;
    this.applyFrame();
  }

  stepBy(delta) {
    this.playing = false;
    this.setFrame(this.index + delta);
  }

  stepForward() {
    if (this.live && this.index >= this.scene.frames.length - 1) {
      this.link.send({ type: 'step' });
      return;
    }
    this.stepBy(1);
  }

  togglePlay() {
    if (this.live) {
      this.link.send({ type: this.livePlaying ? 'pause' : 'play' });
      return;
    }
    const n = this.scene.frames.length;
    if (n < 2) return;
    if (!this.playing && this.index >= n - 1) this.setFrame(0);
    this.playing = !this.playing;
    this.playTime = this.frame().time;
    // Paused, the bodies are where the recorded frame has them, not between two frames.
    if (!this.playing) this.applyFrame();
    this.updateBar();
  }

  async resetLive() {
    const clear = () => {
      this.link.epoch += 1;
      this.scene.frames.length = 0;
      for (const key of Object.keys(this.scene.plots)) this.scene.plots[key].length = 0;
      this.index = 0;
    };
    clear();
    await this.link.send({ type: 'reset' });
    // Frames asked for while the reset was on its way are dropped too.
    clear();
  }

  /** Asks the server for another stepper; the select follows the server's answer. */
  async switchSolver(name) {
    this.solverPending = name;
    const answer = await this.link.send({ type: 'solver', solver: name });
    this.solverPending = null;
    if (!answer.ok && this.liveStats) this.solverSelect.value = this.liveStats.solver;
    this.solverSelect.blur();
  }

  bodyPositions() {
    return this.groups.map((g) => [g.position.x, g.position.y, g.position.z]);
  }

  applyFrame() {
    const f = this.frame();
    if (f) {
      f.positions.forEach((p, b) => {
        const g = this.groups[b];
        if (!g) return;
        g.position.set(p[0], p[1], p[2]);
        const q = f.orientations[b];
        g.quaternion.set(q[1], q[2], q[3], q[0]);
      });
      this.updateInstances();
    }
    this.updateColours(f);
    for (const axes of this.axes) axes.visible = this.options.frames;
    if (this.framesShown !== this.options.frames) {
      this.framesShown = this.options.frames;
      for (const group of this.detached) {
        if (this.framesShown) this.three.add(group);
        else this.three.remove(group);
      }
    }
    this.overlays.showContacts(f, this.options.contacts, this.forceUnit * this.options.forceScale);
    this.overlays.showJoints(this.scene.joints, f, this.options.joints);
    this.updateBar();
    this.plots.setCursor(this.index);
    this.updateInfo();
    this.dirty = true;
  }

  /** Instance matrices from the bodies' groups (body pose times the shape's pose). */
  updateInstances() {
    const m = this.instanceMatrix || (this.instanceMatrix = new Matrix4());
    for (const set of this.instanceSets) {
      const bodies = set.bodies;
      if (set.mesh.setCentreAt) {
        // Impostors need only the shape's centre: no matrices to compose and multiply.
        const offset = set.offset || (set.offset = new Vector3().setFromMatrixPosition(set.pose));
        const c = this.scratchCentre || (this.scratchCentre = new Vector3());
        for (let i = 0; i < bodies.length; i += 1) {
          const g = this.groups[bodies[i]];
          set.mesh.setCentreAt(i, c.copy(offset).applyQuaternion(g.quaternion).add(g.position));
        }
      } else {
        for (let i = 0; i < bodies.length; i += 1) {
          const g = this.groups[bodies[i]];
          g.updateMatrix();
          m.multiplyMatrices(g.matrix, set.pose);
          set.mesh.setMatrixAt(i, m);
        }
      }
      set.mesh.instanceMatrix.needsUpdate = true;
      // Recomputed when asked for (sorting, picking); impostors keep none.
      if (set.mesh.isInstancedMesh) set.mesh.boundingSphere = null;
    }
  }

  /**
   * While playing, the bodies between recorded frames `i` and `i + 1` at `alpha` (0 to 1):
   * positions linearly, orientations by normalised linear interpolation (the shorter way;
   * close to slerp for the small turns between two frames, without its trigonometry), so
   * playback moves smoothly at the display's rate however sparsely the run was recorded.
   * Overlays, plots and the panel stay frame i's.
   */
  interpolate(i, alpha) {
    const a = this.scene.frames[i];
    const c = this.scene.frames[i + 1];
    for (let b = 0; b < this.groups.length; b += 1) {
      const pa = a.positions[b];
      const pc = c.positions[b];
      const qa = a.orientations[b];
      const qc = c.orientations[b];
      const g = this.groups[b];
      g.position.set(pa[0] + (pc[0] - pa[0]) * alpha, pa[1] + (pc[1] - pa[1]) * alpha, pa[2] + (pc[2] - pa[2]) * alpha);
      const ka = 1 - alpha;
      const kc = qa[0] * qc[0] + qa[1] * qc[1] + qa[2] * qc[2] + qa[3] * qc[3] < 0 ? -alpha : alpha;
      g.quaternion.set(qa[1] * ka + qc[1] * kc, qa[2] * ka + qc[2] * kc, qa[3] * ka + qc[3] * kc, qa[0] * ka + qc[0] * kc).normalize();
    }
    this.updateInstances();
    this.dirty = true;
  }

  updateColours(f) {
    const colour = this.colour || (this.colour = new Color());
    const lift = this.lift || (this.lift = new Color());
    this.materials.forEach((m, b) => {
      const kind = this.scene.bodies[b].kind;
      if (this.options.islands && kind === 'dynamic') {
        const island = f && f.islands ? f.islands[b] : null;
        colour.set(island === null || island === undefined ? NO_ISLAND_COLOR : ISLAND_PALETTE[island % ISLAND_PALETTE.length]);
      } else {
        colour.copy(m.base);
      }
      if (this.options.sleeping && f && f.sleeping && f.sleeping[b]) colour.lerp(SLEEP_COLOR, 0.65);
      const highlight = b === this.selected ? 0x3a3a18 : b === this.hovered ? 0x262626 : 0x000000;
      if (m.instance) {
        // No emissive per instance: the highlight is added to the colour.
        m.instance.set.mesh.setColorAt(m.instance.index, colour.add(lift.setHex(highlight)));
        return;
      }
      for (const material of m.list) {
        material.color.copy(colour);
        material.emissive.setHex(highlight);
      }
    });
    for (const set of this.instanceSets) {
      if (set.mesh.instanceColor) set.mesh.instanceColor.needsUpdate = true;
    }
    this.dirty = true;
  }

  updateBar() {
    const n = this.scene.frames.length;
    this.timeline.max = String(Math.max(0, n - 1));
    this.timeline.value = String(this.index);
    const f = this.frame();
    this.frameLabel.textContent = f
      ? `frame ${this.index + 1}/${n}  step ${f.step}  t = ${f.time.toFixed(3)} s`
      : 'no frames';
    const playing = this.live ? this.livePlaying : this.playing;
    this.playButton.textContent = playing ? '||' : '\u25b6';
  }

  updateInfo() {
    const b = this.selected !== null ? this.selected : this.hovered;
    const f = this.frame();
    if (b === null || !f) {
      this.info.classList.remove('sv-shown');
      return;
    }
    const body = this.scene.bodies[b];
    const v = velocity(this.scene.frames, this.index, b);
    const w = f.angular_velocities ? f.angular_velocities[b] : null;
    const contact = contactForce(f, b);
    const rows = [
      ['kind', `${body.kind}${body.mass ? `, ${fmt(body.mass, 3)} kg` : ''}`],
      ['position', `${fmtVec(f.positions[b])} m`],
      ['orientation', `${fmtVec(f.orientations[b])} (w, x, y, z)`],
      ['velocity', `${fmtVec(v.value, 3)} m/s${v.estimated ? ' (finite difference)' : ''}`],
      ['speed', `${fmt(length3(v.value), 3)} m/s`],
    ];
    if (w) rows.push(['angular velocity', `${fmtVec(w, 3)} rad/s`]);
    rows.push(['contact force', `${fmtVec(contact.force, 3)} N (${contact.count} points, |F| = ${fmt(length3(contact.force), 3)} N)`]);
    if (f.sleeping) rows.push(['asleep', f.sleeping[b] ? 'yes' : 'no']);
    if (f.islands) rows.push(['island', f.islands[b] === null ? 'none' : String(f.islands[b])]);
    this.info.replaceChildren();
    el('h3', '', this.info, `${body.name}${this.selected === b ? '' : ' (hover)'}`);
    const table = el('table', '', this.info);
    for (const [k, val] of rows) {
      const tr = el('tr', '', table);
      el('td', '', tr, k);
      el('td', '', tr, val);
    }
    this.info.classList.add('sv-shown');
  }

  // ---- input ----------------------------------------------------------------------------

  pick(event) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    this.pointer.set(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
    this.raycaster.setFromCamera(this.pointer, this.camera);
    const hit = this.raycaster.intersectObjects(this.pickable, false)[0];
    if (!hit) return null;
    const instances = hit.object.userData.instances;
    return { body: instances ? instances[hit.instanceId] : hit.object.userData.body, point: hit.point };
  }

  bindInput() {
    const canvas = this.renderer.domElement;
    let down = null;
    let grabbing = null;
    canvas.addEventListener('pointermove', (event) => {
      if (grabbing) {
        this.raycaster.setFromCamera(this.pointerOf(event), this.camera);
        const target = new Vector3();
        if (this.raycaster.ray.intersectPlane(grabbing.plane, target)) {
          this.link.grab({ type: 'grab', body: grabbing.body, target: target.toArray(), point: grabbing.point });
        }
        return;
      }
      const hit = event.buttons ? null : this.pick(event);
      const hovered = hit ? hit.body : null;
      if (hovered !== this.hovered) {
        this.hovered = hovered;
        canvas.style.cursor = hovered === null ? '' : 'pointer';
        this.updateColours(this.frame());
        this.updateInfo();
      }
    });
    canvas.addEventListener('pointerleave', () => {
      if (this.hovered !== null) {
        this.hovered = null;
        this.updateColours(this.frame());
        this.updateInfo();
      }
    });
    canvas.addEventListener('pointerdown', (event) => {
      down = { x: event.clientX, y: event.clientY };
      if (this.live && event.shiftKey && event.button === 0) {
        const hit = this.pick(event);
        if (hit && this.scene.bodies[hit.body].kind === 'dynamic') {
          const normal = new Vector3();
          this.camera.getWorldDirection(normal);
          grabbing = { body: hit.body, point: hit.point.toArray(), plane: new Plane().setFromNormalAndCoplanarPoint(normal, hit.point) };
          this.controls.enabled = false;
          canvas.setPointerCapture(event.pointerId);
          this.link.grab({ type: 'grab', body: hit.body, target: hit.point.toArray(), point: hit.point.toArray() });
        }
      }
    });
    canvas.addEventListener('pointerup', (event) => {
      if (grabbing) {
        grabbing = null;
        this.controls.enabled = true;
        this.link.release();
        return;
      }
      if (down && Math.hypot(event.clientX - down.x, event.clientY - down.y) < 5 && event.button === 0) {
        const hit = this.pick(event);
        this.selected = hit ? hit.body : null;
        this.updateColours(this.frame());
        this.updateInfo();
      }
      down = null;
    });
    window.addEventListener('keydown', (event) => {
      if (event.target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(event.target.tagName) && event.target.type !== 'range') return;
      if (event.key === ' ') {
        this.togglePlay();
      } else if (event.key === 'ArrowRight') {
        this.stepForward();
      } else if (event.key === 'ArrowLeft') {
        this.stepBy(-1);
      } else if (event.key === 'Home') {
        this.setFrame(0);
      } else if (event.key === 'End') {
        this.setFrame(this.scene.frames.length - 1);
      } else {
        return;
      }
      event.preventDefault();
    });
  }

  pointerOf(event) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    return new Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
  }

  // ---- live -----------------------------------------------------------------------------

  startLive() {
    this.link = new LiveLink({
      onFrame: (live) => this.onLiveFrame(live),
      onStatus: (text, error) => this.setStatus(text, error),
    });
    this.link.start();
  }

  onLiveFrame(live) {
    normalizeFrame(live.frame, this.scene.bodies.length);
    const n = this.scene.frames.length;
    const following = n === 0 || this.index >= n - 1;
    const last = n > 0 ? this.scene.frames[n - 1] : null;
    const changed = !last || last.step !== live.frame.step;
    if (changed) {
      const dropped = appendLiveFrame(this.scene, live);
      if (!following) this.index = Math.max(0, this.index - dropped);
    } else {
      // Paused: the same step again; refresh it in place (contacts after a reset, grabs).
      this.scene.frames[n - 1] = live.frame;
    }
    this.livePlaying = live.playing;
    if (live.stats) this.showStats(live);
    if (live.error) this.setStatus(live.error, true);
    else if (this.status.classList.contains('sv-error') && this.link.failures === 0) this.setStatus('', false);
    if (!this.fitted) this.fitView();
    // The arrows' scale follows the forces seen, growing only when they would be too long.
    const typical = typicalContactForce([live.frame]);
    if (typical * this.forceUnit > this.radius * 0.5 || this.forceUnit === 0) {
      this.forceUnit = typical > 0 ? (this.radius * 0.25) / typical : 0;
    }
    this.plots.setSeries(this.scene.plots, this.scene.frames.length);
    if (following) this.index = this.scene.frames.length - 1;
    this.applyFrame();
  }

  /** The statistics panel: the last step's figures, the energy and the real-time factor. */
  showStats(live) {
    const s = live.stats;
    this.liveStats = s;
    if (this.solverSelect && !this.solverPending && this.solverSelect.value !== s.solver) this.solverSelect.value = s.solver;
    const now = performance.now();
    const samples = this.clockSamples;
    // The server's clock, not the arrival time: a busy page receives frames late and unevenly.
    if (!live.playing) samples.length = 0;
    else samples.push([now, live.frame.time, s.clock]);
    while (samples.length > 2 && now - samples[0][0] > 2000) samples.shift();
    const span = samples.length > 1 ? samples[samples.length - 1][2] - samples[0][2] : 0;
    this.realTime = span > 0.25 ? (samples[samples.length - 1][1] - samples[0][1]) / span : null;
    const effort = s.solver === 'exact' ? `${s.pivots} pivots${s.sweeps ? `, ${s.sweeps} sweeps (fallback)` : ''}` : `${s.sweeps} sweeps`;
    const rows = [
      ['stepper', `${s.solver}, ${s.speed}x`],
      ['step time', s.step_ms === null ? '-' : `${s.step_ms.toFixed(3)} ms`],
      ['contacts', String(s.contacts)],
      ['rows', `${s.rows} in ${s.islands} islands`],
      ['solve', effort],
      ['residual', s.residual === null ? '-' : fmt(s.residual, 3)],
      ['energy', `${fmt(s.energy, 4)} J (kinetic ${fmt(s.kinetic_energy, 3)})`],
      ['real time', this.realTime === null ? '-' : `${this.realTime.toFixed(2)}x`],
    ];
    this.statsBox.replaceChildren();
    el('h3', '', this.statsBox, `last step (${live.frame.step})`);
    const table = el('table', '', this.statsBox);
    for (const [k, v] of rows) {
      const tr = el('tr', '', table);
      el('td', '', tr, k);
      el('td', '', tr, v).dataset.stat = k;
    }
  }

  // ---- loop -----------------------------------------------------------------------------

  loop(now) {
    const elapsed = now - this.last;
    const dt = Math.min(0.1, elapsed / 1000);
    this.last = now;
    if (this.playing && !this.live) this.advance(dt);
    // OrbitControls says whether the camera moved (a drag, the damping after it).
    if (this.controls.update()) this.dirty = true;
    const drawing = this.dirty;
    if (drawing) this.render();
    // Only frames drawn back to back (playing, orbiting) say how fast drawing is.
    if (drawing && this.drewLast && this.adaptive) this.adaptResolution(elapsed, now);
    this.drewLast = drawing;
    requestAnimationFrame((t) => this.loop(t));
  }

  advance(dt) {
    const frames = this.scene.frames;
    const n = frames.length;
    const timed = n > 1 && frames[n - 1].time > frames[0].time;
    this.playTime += dt * this.speed * (timed ? 1 : 60);
    let i = this.index;
    if (timed) {
      while (i + 1 < n && frames[i + 1].time <= this.playTime) i += 1;
    } else {
      i = Math.min(n - 1, Math.floor(this.playTime));
    }
    if (i >= n - 1) {
      i = n - 1;
      this.playing = false;
    }
    if (i !== this.index || !this.playing) {
      const time = this.playTime;
      this.index = i;
      this.applyFrame();
      this.playTime = time;
    }
    if (this.playing) {
      const alpha = timed ? (this.playTime - frames[i].time) / (frames[i + 1].time - frames[i].time) : this.playTime - i;
      this.interpolate(i, Math.min(1, Math.max(0, alpha)));
    }
  }

  /**
   * Adaptive resolution: after ADAPT_FRAMES frames drawn back to back, a mean frame time
   * above SLOW_FRAME_MS draws the next frames with fewer pixels (RESOLUTION_SCALES), one
   * below FAST_FRAME_MS with more again once `raiseAfterMs` has passed since the last change;
   * that wait doubles (up to a minute) whenever raising made frames slow again, so a scene
   * at the edge does not flicker between two resolutions. The page says when it is lowered.
   */
  adaptResolution(elapsed, now) {
    this.frameTimes[this.frameTimeCount] = elapsed;
    this.frameTimeCount += 1;
    if (this.frameTimeCount < ADAPT_FRAMES) return;
    let sum = 0;
    for (let k = 0; k < ADAPT_FRAMES; k += 1) sum += this.frameTimes[k];
    const mean = sum / ADAPT_FRAMES;
    this.frameTimeCount = 0;
    let level = this.scaleLevel;
    if (mean > SLOW_FRAME_MS && level < RESOLUTION_SCALES.length - 1) {
      level += 1;
      if (now - this.scaleRaisedAt < 5000) this.raiseAfterMs = Math.min(60000, this.raiseAfterMs * 2);
    } else if (mean < FAST_FRAME_MS && level > 0 && now - this.scaleChangedAt > this.raiseAfterMs) {
      level -= 1;
      this.scaleRaisedAt = now;
    } else {
      return;
    }
    this.setResolutionLevel(level, now, 1000 / mean);
  }

  setResolutionLevel(level, now, fps) {
    // The note gives the rate that made it lower the resolution, not the faster one of a raise.
    if (level > this.scaleLevel) this.slowFps = fps;
    this.scaleLevel = level;
    this.scaleChangedAt = now;
    const scale = RESOLUTION_SCALES[level];
    const ratio = this.basePixelRatio * scale;
    this.renderer.setPixelRatio(ratio);
    this.rendering.pixelRatio = ratio;
    this.rendering.scale = scale;
    this.resolutionNote.textContent = scale < 1
      ? `drawing at ${Math.round(scale * 100)} % resolution (frames were slow: ${this.slowFps.toFixed(0)} fps)`
      : '';
    this.resolutionNote.title = 'adaptive resolution: fewer pixels while frames take longer than 20 ms; add ?resolution=fixed to the address to turn it off';
    this.dirty = true;
  }

  render() {
    const started = performance.now();
    // The light directions in the view frame for the impostors and the vertex-lit materials.
    this.camera.updateMatrixWorld();
    updateViewLights(this.camera, this.sun, this.up);
    this.renderer.render(this.three, this.camera);
    this.drawMs += performance.now() - started;
    this.drawCount += 1;
    this.dirty = false;
  }
}

async function main() {
  injectStyle();
  const cfg = config();
  let scene;
  try {
    scene = await loadScene(cfg);
  } catch (error) {
    api.error = String(error && error.message ? error.message : error);
    const box = el('div', 'sv-top', document.body);
    el('span', 'sv-status sv-error', box, `could not load the scene: ${api.error}`);
    console.error('stiction viewer:', error);
    return;
  }
  const viewer = new Viewer(scene, cfg);
  api.viewer = viewer;
  if (cfg.live) viewer.startLive();
  viewer.render();
  // Milliseconds from navigation start to the first frame drawn: the page-open benchmark.
  api.firstFrameAt = performance.now();
  api.ready = true;
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => main());
} else {
  main();
}
