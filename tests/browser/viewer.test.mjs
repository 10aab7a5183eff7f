// Headless Chromium checks of the stiction viewer page (run by tests/browser/run.sh, which
// builds the example and passes the paths in the environment):
//
//   STICTION_CHROMIUM  the browser binary
//   STICTION_EXAMPLE   the falling_stack example binary (crates/viewer/examples)
//   STICTION_OUT       a directory for the HTML, JSON and screenshots
//
// Each check prints one line; the run ends with "N passed, N failed" and exits 1 on any
// failure.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
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
  launchChromium,
  runChecks,
  waitReady,
  watchConsole,
} from './common.mjs';

const CHROMIUM = process.env.STICTION_CHROMIUM;
const EXAMPLE = process.env.STICTION_EXAMPLE;
const OUT = process.env.STICTION_OUT;
const FRAMES = 120;
/** Starts the example in a serving mode; resolves with the child and the page's URL. */
function startExample(mode) {
  const child = spawn(EXAMPLE, [mode, '--stdin', '--frames', String(FRAMES)], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${mode}: no address printed within 60 s`)), 60000);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const match = line.match(/(http:\/\/127\.0\.0\.1:\d+\/)/);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`${mode}: the example exited (${code}) before serving`)));
  });
}

function stopExample(child) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the server did not stop within 10 s of its standard input closing'));
    }, 10000);
    child.removeAllListeners('exit');
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`the server exited with ${code === null ? signal : code}`));
    });
    child.stdin.end();
  });
}

// ---- the checks --------------------------------------------------------------------------

async function main() {
  assert(CHROMIUM && EXAMPLE && OUT, 'STICTION_CHROMIUM, STICTION_EXAMPLE and STICTION_OUT must be set (run tests/browser/run.sh)');
  const htmlPath = join(OUT, 'falling_stack.html');
  const jsonPath = join(OUT, 'falling_stack.json');
  const data = JSON.parse(readFileSync(jsonPath, 'utf8'));
  const last = data.frames.length - 1;
  const browser = await launchChromium(chromium, CHROMIUM);
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  try {
    await check('the data: a stack of boxes, 120 frames', () => {
      assert(data.frames.length === FRAMES, `${data.frames.length} frames`);
      assert(data.bodies.length >= 5, `${data.bodies.length} bodies`);
      const html = readFileSync(htmlPath, 'utf8');
      const inline = html.match(/<script type="application\/json" id="stiction-scene">([\s\S]*?)<\/script>/);
      assert(inline, 'the HTML holds no inline scene');
      const embedded = JSON.parse(inline[1]);
      assert(JSON.stringify(embedded) === JSON.stringify(data), 'the HTML\'s data differs from the JSON file');
      return `${data.bodies.length} bodies, ${data.frames.length} frames, HTML ${html.length} bytes with the same data`;
    });

    const page = await context.newPage();
    const errors = watchConsole(page);
    await check('file: the page loads from file:// and is ready', async () => {
      await page.goto(pathToFileURL(htmlPath).href);
      await waitReady(page);
      const count = await page.evaluate(() => window.stictionViewer.frameCount);
      assert(count === FRAMES, `frameCount ${count}`);
      return `frameCount ${count}`;
    });
    await check('file: the canvas is not blank', async () => {
      const s = await canvasStats(page, join(OUT, 'file-first.png'));
      assert(s.stddev > MIN_STDDEV, `luminance standard deviation ${s.stddev.toFixed(2)} <= ${MIN_STDDEV}`);
      assert(s.nonBackground > MIN_NON_BACKGROUND, `only ${(100 * s.nonBackground).toFixed(1)}% of pixels differ from the background`);
      return `${s.width}x${s.height}, luminance stddev ${s.stddev.toFixed(1)}, ${(100 * s.nonBackground).toFixed(1)}% non-background pixels, ${s.colours} colours`;
    });
    await check('file: setFrame(last) shows the data\'s last frame to 1e-9', async () => {
      const index = await page.evaluate((i) => window.stictionViewer.setFrame(i), last);
      assert(index === last, `frameIndex ${index}`);
      const positions = await page.evaluate(() => window.stictionViewer.bodyPositions());
      const worst = comparePositions(positions, data.frames[last].positions);
      const first = await page.evaluate(() => (window.stictionViewer.setFrame(0), window.stictionViewer.bodyPositions()));
      comparePositions(first, data.frames[0].positions);
      await page.evaluate((i) => window.stictionViewer.setFrame(i), last);
      return `${positions.length} bodies, largest difference ${worst}`;
    });
    await check('file: toggles, plots and the info panel', async () => {
      const toggles = await page.locator('input[data-toggle]').count();
      assert(toggles === 5, `${toggles} toggles`);
      for (let i = 0; i < toggles; i += 1) await page.locator('input[data-toggle]').nth(i).click();
      for (let i = 0; i < toggles; i += 1) await page.locator('input[data-toggle]').nth(i).click();
      // All the plots are tiles of one canvas, which names its series.
      assert(await page.locator('canvas.sv-plot').count() === 1, 'not one plot canvas');
      const names = JSON.parse(await page.locator('canvas.sv-plot').getAttribute('data-series'));
      const plots = names.length;
      assert(names.join() === Object.keys(data.plots).join(), `plots ${names.join()} for series ${Object.keys(data.plots).join()}`);
      // Click the top box of the stack at the last frame and read the panel.
      const target = await page.evaluate(() => {
        const v = window.stictionViewer.viewer;
        const p = v.groups[4].position.clone().project(v.camera);
        const r = v.renderer.domElement.getBoundingClientRect();
        return { x: r.left + ((p.x + 1) / 2) * r.width, y: r.top + ((1 - p.y) / 2) * r.height };
      });
      await page.mouse.move(target.x, target.y);
      await page.mouse.down();
      await page.mouse.up();
      const info = await page.locator('.sv-info').innerText();
      assert(info.includes('box4'), `the panel shows: ${info}`);
      for (const word of ['position', 'velocity', 'contact force']) assert(info.includes(word), `no ${word} in: ${info}`);
      const s = await canvasStats(page, join(OUT, 'file-last.png'));
      assert(s.stddev > MIN_STDDEV, `blank after the toggles: ${s.stddev}`);
      await page.screenshot({ path: join(OUT, 'file-page.png') });
      return `${toggles} toggles, ${plots} plots, clicked box4: "${info.split('\n')[0]}"`;
    });
    await check('file: play advances the timeline', async () => {
      await page.evaluate(() => window.stictionViewer.setFrame(0));
      await page.keyboard.press('Space');
      await page.waitForFunction(() => window.stictionViewer.frameIndex >= 30, null, { timeout: 15000 });
      await page.keyboard.press('Space');
      const index = await page.evaluate(() => window.stictionViewer.frameIndex);
      await page.keyboard.press('ArrowRight');
      const next = await page.evaluate(() => window.stictionViewer.frameIndex);
      assert(next === Math.min(index + 1, last), `step from ${index} gave ${next}`);
      return `paused at frame ${index}, stepped to ${next}`;
    });
    await check('file: no console errors', () => {
      assert(errors.length === 0, errors.join('\n'));
    });
    await page.close();

    // The served variant.
    let served = null;
    await check('served: the example serves the page on loopback', async () => {
      served = await startExample('serve');
      return served.url;
    });
    if (served) {
      const page2 = await context.newPage();
      const errors2 = watchConsole(page2);
      await check('served: the page loads, shows the data and is not blank', async () => {
        await page2.goto(served.url);
        await waitReady(page2);
        const count = await page2.evaluate(() => window.stictionViewer.frameCount);
        assert(count === FRAMES, `frameCount ${count}`);
        await page2.evaluate((i) => window.stictionViewer.setFrame(i), last);
        const worst = comparePositions(await page2.evaluate(() => window.stictionViewer.bodyPositions()), data.frames[last].positions);
        const s = await canvasStats(page2, join(OUT, 'served-last.png'));
        assert(s.stddev > MIN_STDDEV, `luminance standard deviation ${s.stddev}`);
        return `frameCount ${count}, largest difference ${worst}, luminance stddev ${s.stddev.toFixed(1)}`;
      });
      await check('served: no console errors', () => {
        assert(errors2.length === 0, errors2.join('\n'));
      });
      await check('served: the server refuses other paths', async () => {
        const answers = await page2.evaluate(async () => {
          const out = {};
          for (const path of ['/../etc/passwd', '/etc/passwd', '/crates/viewer/assets/viewer.js', '/Cargo.toml']) {
            out[path] = (await fetch(path)).status;
          }
          out['POST /scene.json'] = (await fetch('/scene.json', { method: 'POST', body: 'x' })).status;
          return out;
        });
        for (const [k, v] of Object.entries(answers)) assert(v === 404 || v === 405, `${k}: ${v}`);
        return JSON.stringify(answers);
      });
      await page2.close();
      await check('served: the server stops when asked', () => stopExample(served.child));
    }

    // The live variant.
    let live = null;
    await check('live: the example serves a live world', async () => {
      live = await startExample('live');
      return live.url;
    });
    if (live) {
      const page3 = await context.newPage();
      const errors3 = watchConsole(page3);
      await check('live: play, step, grab and reset', async () => {
        await page3.goto(live.url);
        await waitReady(page3);
        await page3.waitForFunction(() => window.stictionViewer.frameCount >= 1, null, { timeout: 20000 });
        const before = await page3.evaluate(() => window.stictionViewer.bodyPositions());
        await page3.keyboard.press('Space'); // play
        await page3.waitForFunction(() => window.stictionViewer.frameCount >= 30, null, { timeout: 30000 });
        await page3.keyboard.press('Space'); // pause
        const moved = await page3.evaluate(() => window.stictionViewer.bodyPositions());
        const played = await page3.evaluate(() => window.stictionViewer.frameCount);
        const drop = before[4][2] - moved[4][2];
        assert(drop > 0.05, `the top box fell by ${drop} m only`);
        const relevant = errors3.slice();
        assert(relevant.length === 0, `console errors while playing: ${relevant.join('\n')}`);
        const grab = await page3.evaluate(async () => {
          const post = (m) => fetch('/control', { method: 'POST', body: JSON.stringify(m) }).then((r) => r.status);
          return [
            await post({ type: 'grab', body: 5, target: [1.2, 0, 2.5] }),
            await post({ type: 'step' }),
            await post({ type: 'release' }),
            await post({ type: 'grab', body: 99, target: [0, 0, 0] }),
            await post({ type: 'nonsense' }),
          ];
        });
        assert(JSON.stringify(grab) === JSON.stringify([200, 200, 200, 400, 400]), `control answers ${grab}`);
        const s = await canvasStats(page3, join(OUT, 'live.png'));
        assert(s.stddev > MIN_STDDEV, `luminance standard deviation ${s.stddev}`);
        await page3.locator('button[title="reset the simulation"]').click();
        await page3.waitForFunction((z) => {
          const p = window.stictionViewer.bodyPositions();
          return Math.abs(p[4][2] - z) < 1e-12;
        }, before[4][2], { timeout: 20000 });
        // Shift-press on the top box while paused (it falls in real time once playing), play,
        // and drag upwards: the page sends grabs, the box rises.
        const at = await page3.evaluate(() => {
          const v = window.stictionViewer.viewer;
          const p = v.groups[4].position.clone().project(v.camera);
          const r = v.renderer.domElement.getBoundingClientRect();
          return { x: r.left + ((p.x + 1) / 2) * r.width, y: r.top + ((1 - p.y) / 2) * r.height };
        });
        await page3.keyboard.down('Shift');
        await page3.mouse.move(at.x, at.y);
        await page3.mouse.down();
        await page3.waitForFunction(() => window.stictionViewer.lastGrab !== null, null, { timeout: 10000 });
        await page3.keyboard.press('Space'); // play
        await page3.mouse.move(at.x, at.y - 120, { steps: 8 });
        await page3.waitForTimeout(1500);
        const held = await page3.evaluate(() => window.stictionViewer.bodyPositions()[4][2]);
        await page3.mouse.up();
        await page3.keyboard.up('Shift');
        await page3.keyboard.press('Space'); // pause
        assert(held > before[4][2], `the grabbed box is at z = ${held}, below its start ${before[4][2]}`);
        return `top box fell ${drop.toFixed(3)} m in ${played} frames, controls ${grab}, reset back to the start, shift-dragged up to z = ${held.toFixed(3)} m`;
      });
      await check('live: no console errors but the two refused controls', () => {
        const refused = errors3.filter((e) => e.includes('status of 400'));
        const others = errors3.filter((e) => !e.includes('status of 400'));
        assert(refused.length === 2 && others.length === 0, errors3.join('\n'));
      });
      await page3.close();
      await check('live: the server stops when asked', () => stopExample(live.child));
    }

    await check('Ctrl-C (SIGINT) ends a serving process', async () => {
      const { child } = await startExample('serve');
      const ended = new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.on('exit', (code, signal) => resolve({ code, signal }));
      });
      child.kill('SIGINT');
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('still running 10 s after SIGINT')), 10000));
      const result = await Promise.race([ended, timeout]);
      return `exited by ${result.signal || `status ${result.code}`}`;
    });
  } finally {
    await browser.close();
  }
}

runChecks(main, join(OUT, 'result.txt'));
