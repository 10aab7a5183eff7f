// Headless Chromium checks of `stiction view RUN_DIR --html FILE` for a recorded run of the
// S4 stack (run by tests/browser/run.sh, which runs S4 for 120 steps and writes the HTML):
//
//   STICTION_CHROMIUM  the browser binary
//   STICTION_RUN_DIR   the run directory (its trajectory.csv is the reference)
//   STICTION_RUN_HTML  the HTML file `stiction view` wrote from it
//   STICTION_OUT       a directory for screenshots
//
// The page loads from file:// without console errors, its canvas is not blank, it has a
// frame per recorded step, and setFrame(last) (and setFrame(0)) show trajectory.csv's
// positions of that step to 1e-9, read from the CSV text, not from the page's data; at
// step 60 the contact overlay draws one point and one normal arrow per row of
// contact_forces.csv and one force arrow per row with a non-zero force.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

import {
  MIN_NON_BACKGROUND,
  MIN_STDDEV,
  assert,
  canvasStats,
  check,
  comparePositions,
  embeddedScene,
  launchChromium,
  runChecks,
  waitReady,
  watchConsole,
} from './common.mjs';

const CHROMIUM = process.env.STICTION_CHROMIUM;
const RUN_DIR = process.env.STICTION_RUN_DIR;
const HTML = process.env.STICTION_RUN_HTML;
const OUT = process.env.STICTION_OUT;

/** trajectory.csv grouped by step: [{ step, positions: Map(body name -> [x, y, z]) }]. */
function readTrajectory(path) {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const header = lines[0].split(',');
  const col = (name) => {
    const i = header.indexOf(name);
    assert(i >= 0, `trajectory.csv has no column ${name}`);
    return i;
  };
  const [step, body, x, y, z] = ['step', 'body', 'x', 'y', 'z'].map(col);
  const steps = [];
  for (const line of lines.slice(1)) {
    const f = line.split(',');
    const s = Number(f[step]);
    if (steps.length === 0 || steps[steps.length - 1].step !== s) steps.push({ step: s, positions: new Map() });
    steps[steps.length - 1].positions.set(f[body], [Number(f[x]), Number(f[y]), Number(f[z])]);
  }
  return steps;
}

/** contact_forces.csv: Map(step -> {count, loaded}), loaded = rows with a non-zero force. */
function readContacts(path) {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const header = lines[0].split(',');
  const step = header.indexOf('step');
  const force = ['force_x', 'force_y', 'force_z'].map((n) => header.indexOf(n));
  assert(step >= 0 && force.every((i) => i >= 0), `contact_forces.csv columns: ${header}`);
  const out = new Map();
  for (const line of lines.slice(1)) {
    const f = line.split(',');
    const s = Number(f[step]);
    if (!out.has(s)) out.set(s, { count: 0, loaded: 0 });
    const entry = out.get(s);
    entry.count += 1;
    if (force.some((i) => Number(f[i]) !== 0)) entry.loaded += 1;
  }
  return out;
}

async function main() {
  assert(CHROMIUM && RUN_DIR && HTML && OUT, 'STICTION_CHROMIUM, STICTION_RUN_DIR, STICTION_RUN_HTML and STICTION_OUT must be set (run tests/browser/run.sh)');
  const steps = readTrajectory(join(RUN_DIR, 'trajectory.csv'));
  const html = readFileSync(HTML, 'utf8');
  const data = embeddedScene(html);
  const names = data.bodies.map((b) => b.name);
  /** The CSV's positions of recorded step `k`, in the page's body order. */
  const expected = (k) => names.map((name) => {
    const p = steps[k].positions.get(name);
    assert(p, `trajectory.csv has no row for ${name} at step ${steps[k].step}`);
    return p;
  });
  const last = steps.length - 1;

  const browser = await launchChromium(chromium, CHROMIUM);
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  try {
    await check('run: the HTML holds the S4 run, a frame per recorded step', () => {
      assert(data.title === 's4-stack-20', `title ${data.title}`);
      assert(names.length === 21 && names[0] === 'ground' && names[20] === 'box19', `bodies ${names.join(' ')}`);
      assert(data.frames.length === steps.length, `${data.frames.length} frames for ${steps.length} recorded steps`);
      return `${names.length} bodies, ${data.frames.length} frames (steps ${steps[0].step} to ${steps[last].step}), ${Object.keys(data.plots).length} plots, HTML ${html.length} bytes`;
    });

    const page = await context.newPage();
    const errors = watchConsole(page);
    await check('run: the page loads from file:// and is ready', async () => {
      await page.goto(pathToFileURL(HTML).href);
      await waitReady(page);
      const count = await page.evaluate(() => window.stictionViewer.frameCount);
      assert(count === steps.length, `frameCount ${count}, ${steps.length} recorded steps`);
      return `frameCount ${count}`;
    });
    await check('run: the canvas is not blank', async () => {
      const s = await canvasStats(page, join(OUT, 'run-first.png'));
      assert(s.stddev > MIN_STDDEV, `luminance standard deviation ${s.stddev.toFixed(2)} <= ${MIN_STDDEV}`);
      assert(s.nonBackground > MIN_NON_BACKGROUND, `only ${(100 * s.nonBackground).toFixed(1)}% of pixels differ from the background`);
      return `${s.width}x${s.height}, luminance stddev ${s.stddev.toFixed(1)}, ${(100 * s.nonBackground).toFixed(1)}% non-background pixels`;
    });
    await check('run: setFrame(last) shows trajectory.csv\'s last step to 1e-9', async () => {
      const index = await page.evaluate((i) => window.stictionViewer.setFrame(i), last);
      assert(index === last, `frameIndex ${index}`);
      const positions = await page.evaluate(() => window.stictionViewer.bodyPositions());
      const worst = comparePositions(positions, expected(last));
      const first = await page.evaluate(() => (window.stictionViewer.setFrame(0), window.stictionViewer.bodyPositions()));
      comparePositions(first, expected(0));
      const moved = Math.abs(positions[20][2] - first[20][2]);
      assert(moved > 0, 'the top box did not move between the first and the last frame');
      await page.evaluate((i) => window.stictionViewer.setFrame(i), last);
      const s = await canvasStats(page, join(OUT, 'run-last.png'));
      assert(s.stddev > MIN_STDDEV, `blank at the last frame: ${s.stddev}`);
      return `${positions.length} bodies at step ${steps[last].step}, largest difference ${worst}; the top box moved ${moved.toExponential(2)} m`;
    });
    await check('run: the contact overlay draws one arrow per contact of contact_forces.csv', async () => {
      const rows = readContacts(join(RUN_DIR, 'contact_forces.csv'));
      const k = steps.findIndex((s) => s.step === 60);
      assert(k >= 0, 'no recorded step 60');
      const expect = rows.get(60) || { count: 0, loaded: 0 };
      assert(expect.count > 0, 'contact_forces.csv has no contacts at step 60');
      await page.evaluate((i) => window.stictionViewer.setFrame(i), k);
      const on = await page.evaluate(() => window.stictionViewer.contactCounts());
      assert(on.normals === expect.count, `${on.normals} normal arrows, ${expect.count} contacts in the CSV`);
      assert(on.points === expect.count, `${on.points} contact points drawn, ${expect.count} in the CSV`);
      assert(on.forces === expect.loaded, `${on.forces} force arrows, ${expect.loaded} contacts with a force in the CSV`);
      await page.screenshot({ path: join(OUT, 'run-contacts.png') });
      // Another step with another count, and the toggle.
      const first = await page.evaluate(() => (window.stictionViewer.setFrame(0), window.stictionViewer.contactCounts()));
      const zero = (rows.get(steps[0].step) || { count: 0 }).count;
      assert(first.normals === zero, `step ${steps[0].step}: ${first.normals} arrows, ${zero} contacts`);
      await page.evaluate((i) => window.stictionViewer.setFrame(i), k);
      await page.locator('input[data-toggle="contacts"]').uncheck();
      const off = await page.evaluate(() => window.stictionViewer.contactCounts());
      await page.locator('input[data-toggle="contacts"]').check();
      assert(off.normals === 0 && off.forces === 0 && off.points === 0, `toggled off: ${JSON.stringify(off)}`);
      return `step 60: ${expect.count} contacts in the CSV (${expect.loaded} with a force), drawn ${JSON.stringify(on)}; step ${steps[0].step}: ${zero}; none when off`;
    });
    await check('run: the boxes, drawn as one instanced mesh, are picked one by one', async () => {
      const info = await page.evaluate(() => {
        const v = window.stictionViewer.viewer;
        return { sets: v.instanceSets.map((set) => set.bodies.length) };
      });
      assert(info.sets.length === 1 && info.sets[0] === 20, `instanced sets ${JSON.stringify(info.sets)}`);
      const picked = [];
      // Boxes near the camera's height: the ray to a low box's centre meets the box above first.
      for (const b of [11, 15, 20]) {
        const at = await page.evaluate((body) => {
          const v = window.stictionViewer.viewer;
          const p = v.groups[body].position.clone().project(v.camera);
          const r = v.renderer.domElement.getBoundingClientRect();
          return { x: r.left + ((p.x + 1) / 2) * r.width, y: r.top + ((1 - p.y) / 2) * r.height };
        }, b);
        await page.mouse.click(at.x, at.y);
        const title = await page.locator('.sv-info h3').textContent();
        assert(title === names[b], `clicked ${names[b]}, the panel shows "${title}"`);
        picked.push(title);
      }
      await page.screenshot({ path: join(OUT, 'run-picked.png') });
      await page.mouse.click(5, 300);
      return `one instanced mesh of ${info.sets[0]} boxes; clicked ${picked.join(', ')}`;
    });
    await check('run: one plot per recorded series', async () => {
      // All the plots are tiles of one canvas, which names its series.
      const canvas = page.locator('canvas.sv-plot');
      assert(await canvas.count() === 1, 'not one plot canvas');
      const names = JSON.parse(await canvas.getAttribute('data-series'));
      const series = Object.keys(data.plots).length;
      assert(series >= 10, `${series} series`);
      assert(names.join() === Object.keys(data.plots).join(), `plots ${names.join()} for series ${Object.keys(data.plots).join()}`);
      // A click halfway along the second tile's curve (tiles 240 x 92 CSS px, 6 apart,
      // curves inset 6 px) shows the middle frame.
      const box = await canvas.boundingBox();
      await page.mouse.click(box.x + 246 + 6 + 114, box.y + 46);
      const index = await page.evaluate(() => window.stictionViewer.frameIndex);
      const middle = Math.round((data.frames.length - 1) / 2);
      assert(index === middle, `a click on the second plot's middle showed frame ${index}, not ${middle}`);
      await page.screenshot({ path: join(OUT, 'run-page.png') });
      return `${names.length} plots: ${names.join(', ')}; a click showed frame ${index}`;
    });
    await check('run: no console errors', () => {
      assert(errors.length === 0, errors.join('\n'));
    });
    await page.close();
  } finally {
    await browser.close();
  }
}

runChecks(main, join(OUT, 'view-run-result.txt'));
