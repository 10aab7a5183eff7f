// Headless Chromium checks of a page of many spheres, drawn as impostors: S2 (1,000
// spheres of radius 0.5 m on a 10 x 10 x 10 grid at step 0) run for a few steps by
// tests/browser/run.sh and written with `stiction view RUN_DIR --html FILE`:
//
//   STICTION_CHROMIUM  the browser binary
//   STICTION_S2_RUN    the run directory (its scene.json and trajectory.csv are the reference)
//   STICTION_S2_HTML   the HTML file `stiction view` wrote from it
//   STICTION_OUT       a directory for screenshots
//
// Clicking an impostor sphere at its projected centre selects that body: the targets are
// chosen in this file from trajectory.csv's positions and the page's camera only (the nearest
// spheres whose line of sight no other sphere comes near), and each one's line of sight goes
// on through other spheres behind it, so a pick that took any sphere on the ray but the
// nearest, or the wrong instance, names another body. Playing draws between recorded frames
// on every animation frame; pausing shows the recorded frame's positions exactly.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

import {
  assert,
  check,
  comparePositions,
  launchChromium,
  runChecks,
  trajectoryByStep,
  waitReady,
  watchConsole,
} from './common.mjs';

const CHROMIUM = process.env.STICTION_CHROMIUM;
const RUN_DIR = process.env.STICTION_S2_RUN;
const HTML = process.env.STICTION_S2_HTML;
const OUT = process.env.STICTION_OUT;
/** How many spheres are clicked. */
const TARGETS = 4;

function sub(a, b) {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

function dot(a, b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/** Distance from `p` to the segment from `a` to `b`, and where along it (0 to 1) it is nearest. */
function toSegment(p, a, b) {
  const ab = sub(b, a);
  const t = Math.min(1, Math.max(0, dot(sub(p, a), ab) / dot(ab, ab)));
  const q = [a[0] + ab[0] * t, a[1] + ab[1] * t, a[2] + ab[2] * t];
  return { distance: Math.sqrt(dot(sub(p, q), sub(p, q))), t };
}

async function main() {
  assert(CHROMIUM && RUN_DIR && HTML && OUT, 'run tests/browser/run.sh (the environment is missing)');
  const sceneFile = JSON.parse(readFileSync(join(RUN_DIR, 'scene.json'), 'utf8'));
  const radius = new Map();
  for (const body of sceneFile.bodies) {
    const shape = body.shapes.length === 1 && body.shapes[0].type === 'sphere' ? body.shapes[0] : null;
    if (shape) radius.set(body.name, shape.radius);
  }
  const steps = trajectoryByStep(readFileSync(join(RUN_DIR, 'trajectory.csv'), 'utf8'));
  const firstStep = Math.min(...steps.keys());
  const start = steps.get(firstStep);

  const browser = await launchChromium(chromium, CHROMIUM);
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const errors = watchConsole(page);
    await page.goto(pathToFileURL(HTML).href);
    await waitReady(page);
    const names = await page.evaluate(() => window.stictionViewer.viewer.scene.bodies.map((b) => b.name));

    await check('spheres: S2\'s 1,000 spheres are one mesh of impostors', async () => {
      const sets = await page.evaluate(() => window.stictionViewer.viewer.instanceSets.map((s) => ({ n: s.bodies.length, impostor: !!s.mesh.userData.impostor })));
      assert(radius.size === 1000, `scene.json has ${radius.size} single-sphere bodies, 1000 expected`);
      assert(sets.length === 1 && sets[0].n === 1000 && sets[0].impostor, `instanced sets ${JSON.stringify(sets)}`);
      return `${sets[0].n} spheres in one impostor mesh`;
    });

    await check('spheres: clicking an impostor sphere selects that body', async () => {
      await page.evaluate(() => window.stictionViewer.setFrame(0));
      const eye = await page.evaluate(() => window.stictionViewer.viewer.camera.position.toArray());
      // The spheres of step 0 from trajectory.csv, nearest the camera first.
      const spheres = [...start.entries()]
        .filter(([name]) => radius.has(name))
        .map(([name, p]) => ({ name, p, r: radius.get(name), d: Math.sqrt(dot(sub(p, eye), sub(p, eye))) }))
        .sort((a, b) => a.d - b.d);
      const targets = [];
      for (const s of spheres) {
        // Unambiguous: no other sphere reaches within its radius plus 0.05 m of the line of
        // sight in front of the centre; meaningful: some sphere behind it lies on that line.
        let clear = true;
        let behind = 0;
        for (const o of spheres) {
          if (o === s) continue;
          const far = [eye[0] + (s.p[0] - eye[0]) * 3, eye[1] + (s.p[1] - eye[1]) * 3, eye[2] + (s.p[2] - eye[2]) * 3];
          const near = toSegment(o.p, eye, s.p);
          if (near.distance < o.r + 0.05 && near.t < 1) clear = false;
          const beyond = toSegment(o.p, s.p, far);
          if (beyond.t > 0 && beyond.distance < o.r * 0.9) behind += 1;
        }
        if (clear && behind > 0) targets.push({ ...s, behind });
        if (targets.length === TARGETS) break;
      }
      assert(targets.length === TARGETS, `only ${targets.length} spheres are clear in front and have spheres behind`);
      const clicked = [];
      for (const t of targets) {
        const at = await page.evaluate((p) => {
          const v = window.stictionViewer.viewer;
          const q = v.camera.position.clone().set(p[0], p[1], p[2]).project(v.camera);
          const r = v.renderer.domElement.getBoundingClientRect();
          return { x: r.left + ((q.x + 1) / 2) * r.width, y: r.top + ((1 - q.y) / 2) * r.height };
        }, t.p);
        await page.mouse.click(at.x, at.y);
        const shown = await page.evaluate(() => ({
          selected: window.stictionViewer.viewer.selected,
          title: document.querySelector('.sv-info.sv-shown h3') ? document.querySelector('.sv-info.sv-shown h3').textContent : null,
        }));
        assert(shown.title === t.name, `clicked ${t.name} at (${at.x.toFixed(1)}, ${at.y.toFixed(1)}), the panel shows "${shown.title}"`);
        assert(names[shown.selected] === t.name, `clicked ${t.name}, body ${shown.selected} (${names[shown.selected]}) is selected`);
        clicked.push(`${t.name} (${t.behind} behind)`);
      }
      await page.screenshot({ path: join(OUT, 'spheres-picked.png') });
      // Empty space above the pile selects nothing.
      await page.mouse.click(640, 40);
      const none = await page.evaluate(() => window.stictionViewer.viewer.selected);
      assert(none === null, `clicking the sky selected body ${none}`);
      return `clicked ${clicked.join(', ')}`;
    });

    await check('spheres: playing draws between frames, pausing shows the recorded frame', async () => {
      const n = await page.evaluate(() => window.stictionViewer.frameCount);
      assert(n >= 2, `${n} frames`);
      const sphere0 = names.indexOf('sphere_0');
      // At 0.1x the first recorded interval (1/6 s) lasts 1.7 s: 20 animation frames fit in it.
      const r = await page.evaluate((b) => new Promise((done) => {
        const v = window.stictionViewer.viewer;
        v.setFrame(0);
        v.speed = 0.1;
        const before = window.stictionViewer.draws.count;
        v.togglePlay();
        const samples = [];
        let ticks = 0;
        const tick = () => {
          ticks += 1;
          samples.push([v.index, v.groups[b].position.z]);
          if (ticks < 20 && v.playing) requestAnimationFrame(tick);
          else {
            if (v.playing) v.togglePlay();
            v.speed = 1;
            done({ samples, draws: window.stictionViewer.draws.count - before, ticks, index: v.index });
          }
        };
        requestAnimationFrame(tick);
      }), sphere0);
      const heights = r.samples.filter(([i]) => i === 0).map(([, z]) => z);
      const distinct = new Set(heights).size;
      assert(distinct >= 3, `while frame 0 was current sphere_0 was drawn at ${distinct} heights: ${heights.join(', ')}`);
      assert(r.draws >= r.ticks - 2, `${r.draws} draws in ${r.ticks} animation frames while playing`);
      // Paused: the recorded positions of the frame shown, from trajectory.csv.
      const shownStep = await page.evaluate(() => window.stictionViewer.frameStep);
      const expected = steps.get(shownStep);
      assert(expected, `no step ${shownStep} in trajectory.csv`);
      const positions = await page.evaluate(() => window.stictionViewer.bodyPositions());
      const worst = comparePositions(positions, names.map((name) => expected.get(name)));
      return `${r.draws} draws in ${r.ticks} frames, sphere_0 at ${distinct} heights within frame 0; paused at step ${shownStep}, positions within ${worst}`;
    });

    await check('spheres: no console errors', () => {
      assert(errors.length === 0, errors.join('\n'));
    });
    await page.close();
  } finally {
    await browser.close();
  }
}

runChecks(main, join(OUT, 'spheres-result.txt'));
