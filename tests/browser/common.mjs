// Helpers shared by the browser checks (viewer, view_run and live .test.mjs): a check
// counter and the run-and-report wrapper, a PNG decoder for screenshots, "not blank"
// statistics, console watching and waiting for the viewer to be drawn.

import { writeFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

export const TOLERANCE = 1e-9;
/** Least standard deviation of the screenshot's luminance (0-255) for "not blank". */
export const MIN_STDDEV = 8;
/** Least share of pixels that differ from the most common colour. */
export const MIN_NON_BACKGROUND = 0.05;

export const counts = { passed: 0, failed: 0 };

export async function check(name, body) {
  const started = Date.now();
  try {
    const detail = await body();
    counts.passed += 1;
    console.log(`ok   ${name}${detail ? `: ${detail}` : ''} (${Date.now() - started} ms)`);
  } catch (error) {
    counts.failed += 1;
    console.log(`FAIL ${name}: ${error && error.stack ? error.stack : error}`);
  }
}

/** Runs a test file's `main`, then writes "N passed, M failed" to `resultFile`, prints it and
 * exits 0 only if every check passed; an exception out of `main` counts as one more failure. */
export function runChecks(main, resultFile) {
  main().then(
    () => {
      writeFileSync(resultFile, `${counts.passed} passed, ${counts.failed} failed\n`);
      console.log(`${counts.passed} passed, ${counts.failed} failed`);
      process.exit(counts.failed === 0 ? 0 : 1);
    },
    (error) => {
      console.log(`FAIL ${error && error.stack ? error.stack : error}`);
      console.log(`${counts.passed} passed, ${counts.failed + 1} failed`);
      process.exit(1);
    },
  );
}

export function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** Decodes a PNG (8-bit RGB or RGBA, not interlaced): width, height, channels, pixels. */
export function decodePng(buffer) {
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  signature.forEach((b, i) => assert(buffer[i] === b, 'not a PNG'));
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat = [];
  while (offset < buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('ascii', offset + 4, offset + 8);
    const data = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      const colour = data[9];
      assert(depth === 8 && (colour === 2 || colour === 6) && data[12] === 0, `unsupported PNG (depth ${depth}, colour ${colour})`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x += 1) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      let p;
      switch (filter) {
        case 0: p = 0; break;
        case 1: p = a; break;
        case 2: p = b; break;
        case 3: p = (a + b) >> 1; break;
        case 4: {
          const q = a + b - c;
          const pa = Math.abs(q - a);
          const pb = Math.abs(q - b);
          const pc = Math.abs(q - c);
          p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw new Error(`bad PNG filter ${filter}`);
      }
      pixels[y * stride + x] = (line[x] + p) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** Luminance standard deviation and the share of pixels unlike the most common colour. */
export function pixelStats(png) {
  const { width, height, channels, pixels } = png;
  let sum = 0;
  let sum2 = 0;
  const colours = new Map();
  const n = width * height;
  for (let i = 0; i < n; i += 1) {
    const r = pixels[i * channels];
    const g = pixels[i * channels + 1];
    const b = pixels[i * channels + 2];
    const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    sum += l;
    sum2 += l * l;
    const key = (r << 16) | (g << 8) | b;
    colours.set(key, (colours.get(key) || 0) + 1);
  }
  const mean = sum / n;
  const stddev = Math.sqrt(Math.max(0, sum2 / n - mean * mean));
  const top = Math.max(...colours.values());
  return { stddev, nonBackground: 1 - top / n, colours: colours.size, width, height };
}

/** Collects console errors, page errors and failed requests of `page`. */
export function watchConsole(page) {
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console.error: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure() && r.failure().errorText}`));
  return errors;
}

/** Waits until the viewer is ready (or failed, which throws) and has drawn a few frames. */
export async function waitReady(page) {
  await page.waitForFunction(() => window.stictionViewer && (window.stictionViewer.ready || window.stictionViewer.error), null, { timeout: 60000 });
  const error = await page.evaluate(() => window.stictionViewer.error);
  assert(!error, `the page reported: ${error}`);
  await page.evaluate(() => new Promise((done) => {
    let n = 0;
    const tick = () => (++n >= 5 ? done() : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  }));
}

/** Screenshot of the page's first canvas (saved to `file`) and its pixel statistics. */
export async function canvasStats(page, file) {
  const shot = await page.locator('canvas').first().screenshot({ path: file });
  return pixelStats(decodePng(shot));
}

/** The largest difference between two lists of positions; throws above TOLERANCE. */
export function comparePositions(actual, expected) {
  assert(actual.length === expected.length, `${actual.length} bodies on the page, ${expected.length} expected`);
  let worst = 0;
  actual.forEach((p, b) => p.forEach((x, k) => {
    worst = Math.max(worst, Math.abs(x - expected[b][k]));
  }));
  assert(worst <= TOLERANCE, `largest difference ${worst} > ${TOLERANCE}`);
  return worst;
}

/** The scene JSON embedded in a viewer HTML file (docs/viewer.md#the-html-file). */
export function embeddedScene(html) {
  const inline = html.match(/<script type="application\/json" id="stiction-scene">([\s\S]*?)<\/script>/);
  assert(inline, 'the HTML holds no inline scene');
  return JSON.parse(inline[1]);
}

/**
 * Chromium's flags for each software WebGL renderer, the preferred first: Mesa's llvmpipe
 * (ANGLE on Mesa's EGL, rasterising on every core) draws and composites S2 faster than
 * SwiftShader, which stays as the fallback where Mesa's EGL is missing.
 */
export const RENDERERS = [
  { name: 'llvmpipe', match: /llvmpipe/i, args: ['--use-gl=angle', '--use-angle=gl-egl'] },
  { name: 'swiftshader', match: /swiftshader/i, args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'] },
];

/** The UNMASKED_RENDERER_WEBGL string of a WebGL2 context in a new page (null without one). */
export async function webglRenderer(browser) {
  const page = await browser.newPage();
  try {
    return await page.evaluate(() => {
      const gl = document.createElement('canvas').getContext('webgl2');
      if (!gl) return null;
      const info = gl.getExtension('WEBGL_debug_renderer_info');
      return String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    });
  } finally {
    await page.close();
  }
}

/**
 * Launches headless Chromium with software WebGL: llvmpipe if it gives a WebGL2 context,
 * else SwiftShader, saying which (STICTION_GL=llvmpipe or swiftshader forces one, and then
 * fails if it does not come up). `browser.webglRenderer` holds the renderer's string.
 */
export async function launchChromium(chromium, executablePath) {
  const forced = process.env.STICTION_GL;
  const choices = forced ? RENDERERS.filter((r) => r.name === forced) : RENDERERS;
  assert(choices.length > 0, `STICTION_GL=${forced}: not one of ${RENDERERS.map((r) => r.name).join(', ')}`);
  const refused = [];
  for (const choice of choices) {
    const browser = await chromium.launch({
      executablePath,
      headless: true,
      // The compositor on the CPU (WebGL still on the renderer) costs less than compositing
      // through a software GPU: S2's playback used 14 to 17 ms of CPU a frame instead of 19 to 22.
      args: ['--no-sandbox', '--ignore-gpu-blocklist', '--disable-gpu-compositing', ...choice.args],
    });
    const renderer = await webglRenderer(browser);
    if (renderer && choice.match.test(renderer)) {
      console.log(`tests/browser: WebGL renderer ${choice.name}: ${renderer}${refused.length ? ` (${refused.join('; ')})` : ''}`);
      browser.webglRenderer = renderer;
      return browser;
    }
    await browser.close();
    refused.push(`${choice.name} unavailable, got ${renderer === null ? 'no WebGL2 context' : renderer}`);
    console.log(`tests/browser: WARNING: ${refused[refused.length - 1]}${choices.length > 1 ? '; trying the next renderer' : ''}`);
  }
  throw new Error(`no software WebGL renderer came up: ${refused.join('; ')}`);
}

/**
 * Starts `stiction view ... --json` (a live or served view) and resolves with the child and
 * the page's URL, read from the summary line's `url`.
 */
export async function startView(spawn, bin, args) {
  const { createInterface } = await import('node:readline');
  const child = spawn(bin, ['view', ...args, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stiction view ${args.join(' ')}: no address within 60 s`)), 60000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const url = JSON.parse(line).url;
      if (url) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    });
    child.on('exit', (code) => reject(new Error(`stiction view ${args.join(' ')} exited (${code}) before serving`)));
  });
}

/** Ends a `stiction view` process with SIGINT (Ctrl-C) and waits for it. */
export function stopView(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT');
  });
}

/** A run directory's trajectory.csv: Map(step -> Map(body name -> [x, y, z])), exact. */
export function trajectoryByStep(text) {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const header = lines[0].split(',');
  const [step, body, x, y, z] = ['step', 'body', 'x', 'y', 'z'].map((name) => {
    const i = header.indexOf(name);
    assert(i >= 0, `trajectory.csv has no column ${name}`);
    return i;
  });
  const steps = new Map();
  for (const line of lines.slice(1)) {
    const f = line.split(',');
    const s = Number(f[step]);
    if (!steps.has(s)) steps.set(s, new Map());
    steps.get(s).set(f[body], [Number(f[x]), Number(f[y]), Number(f[z])]);
  }
  return steps;
}

/** The largest coordinate difference between two lists of positions. */
export function largestDifference(actual, expected) {
  assert(actual.length === expected.length, `${actual.length} positions, ${expected.length} expected`);
  let worst = 0;
  actual.forEach((p, b) => p.forEach((x, k) => {
    worst = Math.max(worst, Math.abs(x - expected[b][k]));
  }));
  return worst;
}
