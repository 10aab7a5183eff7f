// The viewer's benchmark (not a test: it prints figures and asserts nothing but that they
// were measured), run by `bash tests/browser/run.sh --bench`:
//
//   1. S2 playback: `stiction run s2-sphere-pile` (600 steps, every 10th recorded, 1,000
//      spheres) viewed with `stiction view RUN --html`; the page plays for 5 s (after 3 s of
//      warm-up, in which adaptive resolution settles) and the frames are timed in the page
//      (requestAnimationFrame deltas): frames per second, with the draws the page made
//      meanwhile (playing, it draws every animation frame, between recorded frames), its
//      rendering mode and resolution scale; the same at a fixed full resolution
//      (`?resolution=fixed`); then a new recorded frame on every animation frame for 3 s.
//   2. Live S4: `stiction view s4-stack-20 --live` played for 5 s at 1x: simulated seconds per
//      wall second, from the frames the page received (their `time`), and the step time.
//   3. S1 page open: a 600-step run of s1-pyramid-20 (every 5th step recorded) written with
//      `stiction view RUN --html`; the time from navigation start to the page's first
//      rendered frame (`window.stictionViewer.firstFrameAt`), median of 5 loads.
//
// Before them, the ceiling the machine allows at the moment: the animation frames a second of
// a bare page, and of a page that only clears a 1280 x 486 WebGL canvas each frame; and the
// load average before and after. Headless Chromium renders WebGL in software (llvmpipe, else
// SwiftShader: common.mjs's launchChromium; STICTION_GL=swiftshader forces it), so the fps is
// a lower bound of what a desktop GPU gives. Figures are written to OUT/bench.json and printed.
//
//   STICTION_CHROMIUM, STICTION_BIN (the stiction command), STICTION_OUT

import { execFileSync, spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

import { assert, launchChromium, startView, stopView, waitReady, watchConsole } from './common.mjs';

const CHROMIUM = process.env.STICTION_CHROMIUM;
const BIN = process.env.STICTION_BIN;
const OUT = process.env.STICTION_OUT;
const VIEWPORT = { width: 1280, height: 800 };

function stiction(args) {
  execFileSync(BIN, args, { stdio: ['ignore', 'ignore', 'inherit'] });
}

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)];
}

/** Plays the page for `ms` (restarting at the end) and times its animation frames, with
 * the draws the page made and the smallest resolution scale it drew at meanwhile. */
function timePlayback(page, ms) {
  return page.evaluate((span) => new Promise((done) => {
    const viewer = window.stictionViewer.viewer;
    viewer.setFrame(0);
    if (!viewer.playing) viewer.togglePlay();
    const deltas = [];
    let last = null;
    let minScale = viewer.rendering.scale;
    const draws = window.stictionViewer.draws.count;
    const started = performance.now();
    const tick = (now) => {
      if (last !== null) deltas.push(now - last);
      last = now;
      minScale = Math.min(minScale, viewer.rendering.scale);
      if (!viewer.playing) viewer.togglePlay();
      if (now - started < span) requestAnimationFrame(tick);
      else {
        if (viewer.playing) viewer.togglePlay();
        done({ frames: deltas.length, seconds: (now - started) / 1000, deltas, draws: window.stictionViewer.draws.count - draws, minScale, scale: viewer.rendering.scale });
      }
    };
    requestAnimationFrame(tick);
  }), ms);
}

/** Shows the next recorded frame on every animation frame for `ms`: a redraw every time. */
function timeRedraws(page, ms) {
  return page.evaluate((span) => new Promise((done) => {
    const viewer = window.stictionViewer.viewer;
    const n = viewer.scene.frames.length;
    let last = null;
    let frames = 0;
    const started = performance.now();
    const tick = (now) => {
      if (last !== null) frames += 1;
      last = now;
      viewer.setFrame((viewer.index + 1) % n);
      if (now - started < span) requestAnimationFrame(tick);
      else done({ fps: frames / ((now - started) / 1000) });
    };
    requestAnimationFrame(tick);
  }), ms);
}

/** Animation frames a second over `ms` of a page that does nothing else, or (with `gl`)
 * clears a canvas of the viewer's size on each. */
function ceilingFps(page, gl, ms) {
  return page.evaluate(([clear, span]) => new Promise((done) => {
    const canvas = document.createElement('canvas');
    canvas.width = 1280;
    canvas.height = 486;
    document.body.appendChild(canvas);
    const context = clear ? canvas.getContext('webgl2', { antialias: false, alpha: false }) : null;
    let frames = -1;
    const started = performance.now();
    const tick = (now) => {
      frames += 1;
      if (context) {
        context.clearColor((frames % 2) * 0.5, 0.2, 0.3, 1);
        context.clear(context.COLOR_BUFFER_BIT | context.DEPTH_BUFFER_BIT);
      }
      if (now - started < span) requestAnimationFrame(tick);
      else done(frames / ((now - started) / 1000));
    };
    requestAnimationFrame(tick);
  }), [gl, ms]);
}

async function main() {
  assert(CHROMIUM && BIN && OUT, 'run tests/browser/run.sh --bench (the environment is missing)');
  const results = { date: new Date().toISOString(), viewport: VIEWPORT };
  const browser = await launchChromium(chromium, CHROMIUM);
  results.chromium = browser.version();
  results.webgl_renderer = browser.webglRenderer;
  results.load_average_before = loadavg();
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    // ---- 0. the ceiling ---------------------------------------------------------------------
    {
      const page = await context.newPage();
      await page.setContent('<!doctype html><body style="margin:0"></body>');
      const bare = await ceilingFps(page, false, 3000);
      await page.setContent('<!doctype html><body style="margin:0"></body>');
      const cleared = await ceilingFps(page, true, 3000);
      results.ceiling = { bare_page_fps: bare, cleared_canvas_fps: cleared };
      console.log(`bench: ceiling now: a bare page ${bare.toFixed(1)} fps, a cleared 1280 x 486 WebGL canvas ${cleared.toFixed(1)} fps (load average ${loadavg().map((l) => l.toFixed(2)).join(', ')})`);
      await page.close();
    }

    // ---- 1. S2 playback ------------------------------------------------------------------
    console.log('bench: running S2 (600 steps) and writing its page');
    const s2Run = join(OUT, 's2-run');
    stiction(['run', 's2-sphere-pile', '--steps', '600', '--quiet', '--out', s2Run]);
    const s2Html = join(OUT, 's2-run.html');
    stiction(['view', s2Run, '--html', s2Html, '--quiet']);
    for (const fixed of [false, true]) {
      const page = await context.newPage();
      const errors = watchConsole(page);
      await page.goto(pathToFileURL(s2Html).href + (fixed ? '?resolution=fixed' : ''));
      await waitReady(page);
      const bodies = await page.evaluate(() => window.stictionViewer.viewer.scene.bodies.length);
      await timePlayback(page, 3000); // warm-up: shaders, first uploads, adaptive resolution
      const t = await timePlayback(page, 5000);
      const rendering = await page.evaluate(() => window.stictionViewer.rendering);
      const note = await page.locator('.sv-resolution').textContent();
      const redraw = fixed ? null : await timeRedraws(page, 3000);
      const fps = t.frames / t.seconds;
      const p95 = [...t.deltas].sort((a, b) => a - b)[Math.floor(t.deltas.length * 0.95)];
      await page.screenshot({ path: join(OUT, fixed ? 'bench-s2-fixed.png' : 'bench-s2.png') });
      assert(errors.length === 0, errors.join('\n'));
      const figures = {
        bodies, html_bytes: statSync(s2Html).size, frames: t.frames, seconds: t.seconds, fps,
        median_frame_ms: median(t.deltas), p95_frame_ms: p95, rendering, resolution_note: note,
        // Playing, the page draws every animation frame (bodies between recorded frames).
        draws: t.draws, draws_per_s: t.draws / t.seconds, scale_min: t.minScale, scale_end: t.scale,
      };
      if (fixed) {
        results.s2_playback_fixed_resolution = figures;
      } else {
        figures.redraw_every_frame_fps = redraw.fps;
        results.s2_playback = figures;
      }
      console.log(`bench: S2 playback${fixed ? ' at fixed full resolution' : ''}: ${bodies} bodies, ${fps.toFixed(1)} fps (median frame ${median(t.deltas).toFixed(1)} ms, 95th percentile ${p95.toFixed(1)} ms), ${(t.draws / t.seconds).toFixed(1)} draws/s, resolution scale ${t.minScale} to ${t.scale}${note ? ` ("${note}")` : ''}${redraw ? `; a new recorded frame every animation frame: ${redraw.fps.toFixed(1)} fps` : ''}; rendering ${JSON.stringify(rendering)}`);
      await page.close();
    }

    // ---- 2. live S4 ------------------------------------------------------------------------
    {
      const live = await startView(spawn, BIN, ['s4-stack-20', '--live']);
      try {
        const page = await context.newPage();
        await page.goto(live.url);
        await waitReady(page);
        await page.waitForFunction(() => window.stictionViewer.frameCount >= 1, null, { timeout: 20000 });
        await page.locator('body').press('Space');
        await page.waitForTimeout(1000); // warm-up
        // Simulated seconds over the server's clock (`stats.clock`) between the first and
        // the last frame received in 5 s, and the frames the page received.
        const r = await page.evaluate(() => new Promise((done) => {
          const v = window.stictionViewer.viewer;
          const samples = [];
          const stepMs = [];
          const t0 = performance.now();
          const watch = setInterval(() => {
            const s = v.liveStats;
            const f = v.scene.frames[v.scene.frames.length - 1];
            if (s && v.livePlaying && (samples.length === 0 || samples[samples.length - 1][0] !== s.clock)) {
              samples.push([s.clock, f.time, f.step, performance.now()]);
              if (s.step_ms !== null) stepMs.push(s.step_ms);
            }
            if (performance.now() - t0 > 5000) {
              clearInterval(watch);
              const [a, b] = [samples[0], samples[samples.length - 1]];
              done({ wall: b[0] - a[0], simulated: b[1] - a[1], steps: b[2] - a[2], received: samples.length, pageWall: (b[3] - a[3]) / 1000, stepMs });
            }
          }, 5);
        }));
        await page.locator('body').press('Space');
        await page.screenshot({ path: join(OUT, 'bench-live-s4.png') });
        const factor = r.simulated / r.wall;
        results.live_s4 = {
          wall_s: r.wall, simulated_s: r.simulated, steps: r.steps, real_time_factor: factor,
          median_step_ms: median(r.stepMs), frames_received: r.received,
          frames_received_per_s: r.received / r.pageWall,
        };
        console.log(`bench: live S4: ${r.simulated.toFixed(3)} simulated s in ${r.wall.toFixed(3)} wall s = ${factor.toFixed(3)}x real time (${r.steps} steps, median step ${median(r.stepMs).toFixed(3)} ms; the page received ${(r.received / r.pageWall).toFixed(1)} frames/s)`);
        await page.close();
      } finally {
        await stopView(live.child);
      }
    }

    // ---- 3. S1 page open ------------------------------------------------------------------
    console.log('bench: running S1 (600 steps) and writing its page');
    const s1Run = join(OUT, 's1-run');
    stiction(['run', 's1-pyramid-20', '--steps', '600', '--quiet', '--out', s1Run]);
    const s1Html = join(OUT, 's1-run.html');
    stiction(['view', s1Run, '--html', s1Html, '--quiet']);
    {
      const times = [];
      let frames = 0;
      for (let i = 0; i < 5; i += 1) {
        const page = await context.newPage();
        await page.goto(pathToFileURL(s1Html).href);
        await page.waitForFunction(() => window.stictionViewer && window.stictionViewer.firstFrameAt, null, { timeout: 60000, polling: 50 });
        times.push(await page.evaluate(() => window.stictionViewer.firstFrameAt));
        frames = await page.evaluate(() => window.stictionViewer.frameCount);
        if (i === 0) await page.screenshot({ path: join(OUT, 'bench-s1.png') });
        await page.close();
      }
      results.s1_open = { html_bytes: statSync(s1Html).size, frames, first_frame_ms: times, median_first_frame_ms: median(times) };
      console.log(`bench: S1 page open: ${frames} frames, ${(statSync(s1Html).size / 1e6).toFixed(1)} MB, first frame after ${median(times).toFixed(0)} ms (median of ${times.map((t) => t.toFixed(0)).join(', ')})`);
    }
  } finally {
    await browser.close();
  }
  results.load_average_after = loadavg();
  writeFileSync(join(OUT, 'bench.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`bench: figures in ${join(OUT, 'bench.json')} (load average before ${results.load_average_before.map((l) => l.toFixed(2)).join(", ")}, after ${results.load_average_after.map((l) => l.toFixed(2)).join(", ")})`);
}

main().catch((error) => {
  console.log(`bench FAILED: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
