// Headless Chromium checks of live mode through `stiction view SCENE --live` (run by
// tests/browser/run.sh, which builds the command and writes the reference runs):
//
//   STICTION_CHROMIUM     the browser binary
//   STICTION_BIN          the stiction command
//   STICTION_S4_SCENE     S4 (s4-stack-20) with contact forces recorded
//   STICTION_S4_RUN       its run directory (`stiction run`, 3000 steps): the reference
//   STICTION_APART_SCENE  tests/browser/scenes/apart-boxes.toml
//   STICTION_APART_RUN    its run directory, every step recorded: the reference
//   STICTION_OUT          a directory for screenshots
//
// The page's state after playing and stepping equals the server's (GET /state) and
// `stiction run`'s trajectory.csv at that step; the solver switch in the page changes the
// server's stepper (pivots for exact, sweeps for iterative, in the page's statistics);
// a shift-drag pulls one box in the drag's direction while the others stay exactly where an
// unpulled run has them; slow motion plays a quarter of real time; malformed messages get
// 400.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { chromium } from 'playwright-core';

import {
  MIN_STDDEV,
  assert,
  canvasStats,
  check,
  largestDifference,
  launchChromium,
  runChecks,
  startView,
  stopView,
  trajectoryByStep,
  waitReady,
  watchConsole,
} from './common.mjs';

const CHROMIUM = process.env.STICTION_CHROMIUM;
const BIN = process.env.STICTION_BIN;
const OUT = process.env.STICTION_OUT;
const S4_SCENE = process.env.STICTION_S4_SCENE;
const S4_RUN = process.env.STICTION_S4_RUN;
const APART_SCENE = process.env.STICTION_APART_SCENE;
const APART_RUN = process.env.STICTION_APART_RUN;
/** The live page shows the engine's own doubles: equal to the run's to this. */
const EXACT = 1e-12;

/** The server's current state (GET /state, never advances). */
function serverState(page) {
  return page.evaluate(async () => (await fetch('/state', { cache: 'no-store' })).json());
}

/** Waits until the page shows the server's current step; returns both. */
async function synced(page, timeout = 20000) {
  const started = Date.now();
  for (;;) {
    const { state, step, positions } = await page.evaluate(async () => ({
      state: await (await fetch('/state', { cache: 'no-store' })).json(),
      step: window.stictionViewer.frameStep,
      positions: window.stictionViewer.bodyPositions(),
    }));
    if (!state.playing && step === state.frame.step) return { state, positions };
    assert(Date.now() - started < timeout, `the page shows step ${step}, the server is at ${state.frame.step} (playing ${state.playing})`);
    await page.waitForTimeout(50);
  }
}

async function waitStep(page, predicate, arg, what) {
  await page.waitForFunction(predicate, arg, { timeout: 20000 }).catch(() => {
    throw new Error(`timed out waiting for ${what}`);
  });
}

/** Presses a key after focusing the canvas (the page's shortcuts ignore form controls). */
async function press(page, key) {
  await page.locator('body').press(key);
}

/** Plays (space), waits until the page shows step `least` or later, pauses and syncs. */
async function playTo(page, least) {
  await press(page, 'Space');
  await waitStep(page, (n) => window.stictionViewer.frameStep >= n, least, `step ${least}`);
  await press(page, 'Space');
  await waitStep(page, () => window.stictionViewer.liveStats && window.stictionViewer.viewer.livePlaying === false, null, 'pause');
  return synced(page);
}

/** Quaternion `[w, x, y, z]` conjugate and rotation of a vector. */
function conjugate(q) {
  return [q[0], -q[1], -q[2], -q[3]];
}

function rotate(q, v) {
  const [w, x, y, z] = q;
  // v + 2 w (r x v) + 2 r x (r x v), r = (x, y, z)
  const c = [y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]];
  const cc = [y * c[2] - z * c[1], z * c[0] - x * c[2], x * c[1] - y * c[0]];
  return v.map((vk, k) => vk + 2 * w * c[k] + 2 * cc[k]);
}

async function screenshot(page, name) {
  const s = await canvasStats(page, join(OUT, name));
  assert(s.stddev > MIN_STDDEV, `${name}: luminance standard deviation ${s.stddev}`);
}

/**
 * Simulated seconds per second of the server's clock over `ms` of playing, from the frames
 * the page received (`stats.clock` is when the server made each: a page rendering in
 * software receives them late and unevenly).
 */
async function playedRate(page, ms) {
  return page.evaluate(async (span) => {
    const v = window.stictionViewer.viewer;
    const samples = [];
    const t0 = performance.now();
    await new Promise((done) => {
      const watch = setInterval(() => {
        const s = v.liveStats;
        const f = v.scene.frames[v.scene.frames.length - 1];
        // Only frames of a playing source: the play message may arrive after the window opens.
        if (s && v.livePlaying && (samples.length === 0 || samples[samples.length - 1][0] !== s.clock)) samples.push([s.clock, f.time]);
        if (performance.now() - t0 > span) {
          clearInterval(watch);
          done();
        }
      }, 10);
    });
    if (samples.length < 3) return NaN;
    const [a, b] = [samples[1], samples[samples.length - 1]];
    return (b[1] - a[1]) / (b[0] - a[0]);
  }, ms);
}

async function main() {
  assert(CHROMIUM && BIN && OUT && S4_SCENE && S4_RUN && APART_SCENE && APART_RUN, 'run tests/browser/run.sh (the environment is missing)');
  const s4Run = trajectoryByStep(readFileSync(join(S4_RUN, 'trajectory.csv'), 'utf8'));
  const apartRun = trajectoryByStep(readFileSync(join(APART_RUN, 'trajectory.csv'), 'utf8'));
  const browser = await launchChromium(chromium, CHROMIUM);
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const servers = [];
  try {
    // ---- S4: the page's state is the server's and the recorded run's ----------------------
    const s4 = await startView(spawn, BIN, [S4_SCENE, '--live']);
    servers.push(s4.child);
    const page = await context.newPage();
    const errors = watchConsole(page);
    await page.goto(s4.url);
    await waitReady(page);
    await waitStep(page, () => window.stictionViewer.frameCount >= 1, null, 'the first live frame');
    const names = await page.evaluate(() => window.stictionViewer.viewer.scene.bodies.map((b) => b.name));

    await check('live S4: after playing and stepping, the page shows the server\'s state and stiction run\'s, to 1e-12', async () => {
      let { state } = await playTo(page, 25);
      const played = state.frame.step;
      // Step (right arrow) to the next recorded step of the reference run (every 10th).
      const target = Math.ceil(played / 10) * 10 + (played % 10 === 0 ? 10 : 0);
      for (let s = played; s < target; s += 1) {
        await press(page, 'ArrowRight');
        await waitStep(page, (n) => window.stictionViewer.frameStep === n, s + 1, `step ${s + 1}`);
      }
      const now = await synced(page);
      state = now.state;
      assert(state.frame.step === target, `the server is at step ${state.frame.step}, not ${target}`);
      const expected = s4Run.get(target);
      assert(expected, `the reference run has no step ${target}`);
      const reference = names.map((n) => expected.get(n));
      const vsServer = largestDifference(now.positions, state.frame.positions);
      const vsRun = largestDifference(now.positions, reference);
      assert(vsServer === 0, `the page differs from the server's state by ${vsServer}`);
      assert(vsRun <= EXACT, `the page differs from stiction run's trajectory by ${vsRun}`);
      const moved = reference[20][2] - 19.5;
      assert(Math.abs(moved) > 0, 'the top box did not move at all');
      await screenshot(page, 'live-s4-synced.png');
      return `played to step ${played}, stepped to ${target}: page = server exactly, page vs trajectory.csv ${vsRun}; top box moved ${moved.toExponential(2)} m`;
    });

    await check('live S4: the solver switch in the page changes the server\'s stepper (pivots vs sweeps)', async () => {
      const solver = page.locator('select.sv-solver');
      assert(await solver.inputValue() === 'exact', `the page starts with ${await solver.inputValue()}`);
      const before = (await serverState(page)).stats;
      assert(before.solver === 'exact', `server: ${before.solver}`);
      await solver.selectOption('iterative');
      await waitStep(page, () => window.stictionViewer.liveStats && window.stictionViewer.liveStats.solver === 'iterative', null, 'the page to report iterative');
      const server = (await serverState(page)).stats;
      assert(server.solver === 'iterative', `the server reports ${server.solver}`);
      let step = await page.evaluate(() => window.stictionViewer.frameStep);
      await press(page, 'ArrowRight');
      await waitStep(page, (n) => window.stictionViewer.frameStep === n, step + 1, 'an iterative step');
      const iterative = await page.evaluate(() => window.stictionViewer.liveStats);
      assert(iterative.sweeps > 0 && iterative.pivots === 0, `iterative: ${iterative.sweeps} sweeps, ${iterative.pivots} pivots`);
      const shown = await page.locator('td[data-stat="solve"]').textContent();
      assert(/\d+ sweeps/.test(shown), `the page shows "${shown}"`);
      await screenshot(page, 'live-s4-iterative.png');
      await solver.selectOption('exact');
      await waitStep(page, () => window.stictionViewer.liveStats && window.stictionViewer.liveStats.solver === 'exact', null, 'the page to report exact');
      assert((await serverState(page)).stats.solver === 'exact', 'the server did not switch back');
      step += 1;
      await press(page, 'ArrowRight');
      await waitStep(page, (n) => window.stictionViewer.frameStep === n, step + 1, 'an exact step');
      const exact = await page.evaluate(() => window.stictionViewer.liveStats);
      assert(exact.pivots > 0 && exact.sweeps === 0, `exact: ${exact.pivots} pivots, ${exact.sweeps} sweeps`);
      const shownExact = await page.locator('td[data-stat="solve"]').textContent();
      assert(/\d+ pivots/.test(shownExact), `the page shows "${shownExact}"`);
      for (const key of ['step time', 'contacts', 'rows', 'residual', 'energy']) {
        const text = await page.locator(`td[data-stat="${key}"]`).textContent();
        assert(text && text !== '-', `the statistic ${key} shows "${text}"`);
      }
      assert(exact.contacts === 80, `S4 at rest has 80 contacts, the page says ${exact.contacts}`);
      await screenshot(page, 'live-s4-exact.png');
      return `iterative: ${iterative.sweeps} sweeps, 0 pivots; exact: ${exact.pivots} pivots, 0 sweeps, ${exact.contacts} contacts, ${exact.rows} rows, step ${exact.step_ms.toFixed(3)} ms`;
    });

    await check('live: malformed solver and speed messages are refused with 400', async () => {
      const answers = await page.evaluate(async () => {
        const post = async (body) => {
          const r = await fetch('/control', { method: 'POST', body });
          return [r.status, (await r.json()).ok];
        };
        return [
          await post('{"type":"solver","solver":"quantum"}'),
          await post('{"type":"solver"}'),
          await post('{"type":"speed","speed":0}'),
          await post('{"type":"speed","speed":1e9}'),
          await post('{"type":"speed","speed":"fast"}'),
        ];
      });
      for (const [status, ok] of answers) assert(status === 400 && ok === false, JSON.stringify(answers));
      const stats = (await serverState(page)).stats;
      assert(stats.solver === 'exact' && stats.speed === 1, `changed by a refused message: ${JSON.stringify(stats)}`);
      return JSON.stringify(answers);
    });
    await check('live S4: no console errors but the refused messages', () => {
      const others = errors.filter((e) => !e.includes('status of 400'));
      assert(others.length === 0, others.join('\n'));
    });
    await page.close();

    // ---- apart boxes: grab-and-pull, slow motion --------------------------------------------
    const apart = await startView(spawn, BIN, [APART_SCENE, '--live']);
    servers.push(apart.child);
    const page2 = await context.newPage();
    const errors2 = watchConsole(page2);
    await page2.goto(apart.url);
    await waitReady(page2);
    await waitStep(page2, () => window.stictionViewer.frameCount >= 1, null, 'the first live frame');
    const apartNames = await page2.evaluate(() => window.stictionViewer.viewer.scene.bodies.map((b) => b.name));
    const middle = apartNames.indexOf('middle');
    assert(middle > 0, `bodies ${apartNames}`);

    await check('live: a shift-drag pulls one box in the drag\'s direction; the others stay as an unpulled run has them', async () => {
      const start = await playTo(page2, 60);
      const s0 = start.state.frame.step;
      const p0 = start.state.frame.positions;
      await press(page2, 'Space'); // play
      const at = await page2.evaluate((b) => {
        const v = window.stictionViewer.viewer;
        const p = v.groups[b].position.clone().project(v.camera);
        const r = v.renderer.domElement.getBoundingClientRect();
        return { x: r.left + ((p.x + 1) / 2) * r.width, y: r.top + ((1 - p.y) / 2) * r.height };
      }, middle);
      await page2.keyboard.down('Shift');
      await page2.mouse.move(at.x, at.y);
      await page2.mouse.down();
      await page2.mouse.move(at.x + 40, at.y - 110, { steps: 10 });
      // Once the last target reached the server, 2 simulated seconds to get there.
      await waitStep(page2, () => {
        const link = window.stictionViewer.viewer.link;
        return link.lastGrab && !link.grabInFlight && !link.pendingGrab;
      }, null, 'the last grab message to be sent');
      const sent = (await serverState(page2)).frame.step;
      let held = await serverState(page2);
      for (const started = Date.now(); held.frame.step < sent + 480; held = await serverState(page2)) {
        assert(Date.now() - started < 30000, `the server is at step ${held.frame.step}, 2 s after ${sent} not reached`);
        await page2.waitForTimeout(100);
      }
      await screenshot(page2, 'live-grab.png');
      const grab = await page2.evaluate(() => window.stictionViewer.lastGrab);
      await page2.mouse.up();
      await page2.keyboard.up('Shift');
      await press(page2, 'Space'); // pause
      assert(grab && grab.body === middle, `the last grab message: ${JSON.stringify(grab)}`);
      const s1 = held.frame.step;
      const p1 = held.frame.positions;
      // The point held, carried from its place at step s0 by the box's motion to step s1.
      const q0 = start.state.frame.orientations[middle];
      const q1 = held.frame.orientations[middle];
      const local = rotate(conjugate(q0), grab.point.map((x, k) => x - p0[middle][k]));
      const now = rotate(q1, local).map((x, k) => x + p1[middle][k]);
      const d = now.map((x, k) => x - grab.point[k]);
      const u = grab.target.map((x, k) => x - grab.point[k]);
      const dn = Math.hypot(...d);
      const un = Math.hypot(...u);
      const cos = (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]) / (dn * un);
      const moved = Math.hypot(...p1[middle].map((x, k) => x - p0[middle][k]));
      assert(un > 0.2, `the drag pulled ${un} m only`);
      // A box held at one point swings about it (the spring damps the point, not the
      // swing), so the point is near the target, not on it.
      const along = (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]) / un;
      assert(along > 0.5 * un, `the held point moved ${along} m along the pull of ${un} m`);
      assert(cos > 0.8, `the held point moved along ${d}, the pull was along ${u} (cosine ${cos})`);
      const rise = p1[middle][2] - p0[middle][2];
      assert(rise > 0.1, `the box rose ${rise} m only`);
      const reference = apartRun.get(s1);
      assert(reference, `the reference run has no step ${s1}`);
      let worstRef = 0;
      let worstMove = 0;
      apartNames.forEach((name, b) => {
        if (b === middle || name === 'ground') return;
        worstRef = Math.max(worstRef, largestDifference([p1[b]], [reference.get(name)]));
        worstMove = Math.max(worstMove, largestDifference([p1[b]], [p0[b]]));
      });
      assert(worstRef <= 1e-9, `the other boxes differ from the unpulled run by ${worstRef}`);
      // Resting boxes still settle by contact compliance (about 0.1 mm in the seconds a
      // slow page lets pass); the unpulled run above is the exact check.
      assert(worstMove < 1e-3, `the other boxes moved ${worstMove} m`);
      return `steps ${s0} to ${s1}: pull ${un.toFixed(3)} m, the held point moved ${dn.toFixed(3)} m (cosine with the pull ${cos.toFixed(3)}), the box's centre ${moved.toFixed(3)} m; others moved ${worstMove.toExponential(2)} m, ${worstRef.toExponential(2)} from the unpulled run`;
    });

    await check('live: slow motion: 0.25x steps a quarter of real time, 1x real time', async () => {
      await page2.locator('button[title="reset the simulation"]').click();
      await waitStep(page2, () => window.stictionViewer.frameStep === 0, null, 'the reset');
      const speed = page2.locator('select[title="playback speed"]');
      await speed.selectOption('0.25');
      await waitStep(page2, () => window.stictionViewer.liveStats && window.stictionViewer.liveStats.speed === 0.25, null, 'speed 0.25');
      await press(page2, 'Space');
      const slow = await playedRate(page2, 5000);
      await speed.selectOption('1');
      await waitStep(page2, () => window.stictionViewer.liveStats.speed === 1, null, 'speed 1');
      const full = await playedRate(page2, 5000);
      const shown = await page2.evaluate(() => window.stictionViewer.liveStats.realTime);
      await press(page2, 'Space');
      await screenshot(page2, 'live-speed.png');
      assert(slow > 0.2 && slow < 0.3, `0.25x played ${slow} simulated s per s`);
      assert(full > 0.8 && full < 1.2, `1x played ${full} simulated s per s`);
      assert(shown > 0.6 && shown < 1.4, `the page shows ${shown}x real time`);
      return `0.25x: ${slow.toFixed(3)}, 1x: ${full.toFixed(3)} simulated s per wall s (page shows ${shown.toFixed(2)}x)`;
    });
    await check('live apart boxes: no console errors', () => {
      assert(errors2.length === 0, errors2.join('\n'));
    });
    await page2.close();
  } finally {
    await browser.close();
    for (const child of servers) await stopView(child);
  }
}

runChecks(main, join(OUT, 'live-result.txt'));
