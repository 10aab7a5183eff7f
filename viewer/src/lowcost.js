// The low-cost mode's materials (docs/viewer.md#rendering-cost): a software renderer pays
// for every shaded pixel, so solid shapes are lit per vertex (their fragments only copy a
// colour) and planes draw their checkers arithmetically instead of sampling a texture.
// Both share the view-frame light directions that the sphere impostors use.

import { Color, ShaderMaterial, Vector3 } from 'three';

/** The sun's and the world's up direction in the view frame, updated before each draw. */
export const viewLights = {
  lightDirection: { value: new Vector3(0, 0, 1) },
  upDirection: { value: new Vector3(0, 0, 1) },
};

const sun = new Vector3();

/** Sets `viewLights` for `camera` (call after the camera's matrices are updated). */
export function updateViewLights(camera, light, up) {
  const view = camera.matrixWorldInverse;
  sun.copy(light.position).sub(light.target.position).normalize().transformDirection(view);
  viewLights.lightDirection.value.copy(sun);
  viewLights.upDirection.value.copy(up).transformDirection(view);
}

/**
 * GLSL shared by the vertex-lit material and the impostors: a hemisphere light, the sun and
 * a little specular, close to the standard material's look under the page's lights.
 */
export const SHADE = /* glsl */ `
vec3 shade(vec3 base, vec3 n, vec3 toEye, vec3 lightDirection, vec3 upDirection, float shine) {
  float sky = 0.5 + 0.5 * dot(n, upDirection);
  vec3 ambient = mix(vec3(0.23, 0.20, 0.16), vec3(0.72, 0.79, 1.0), sky) * 0.75;
  float diffuse = max(dot(n, lightDirection), 0.0);
  // x^32 by squaring: the specular lobe without pow's exp and log.
  float s = max(dot(n, normalize(lightDirection + toEye)), 0.0);
  s *= s; s *= s; s *= s; s *= s; s *= s;
  return base * (ambient + diffuse * 1.1) + vec3(s * shine * step(0.0001, diffuse));
}
// Linear to sRGB by three square roots instead of three pow calls (a software renderer's
// pow is an exp and a log): within 0.2/255 of the exact curve above 0.01.
vec3 toSRGB(vec3 c) {
  vec3 s1 = sqrt(max(c, vec3(0.0)));
  vec3 s2 = sqrt(s1);
  vec3 s3 = sqrt(s2);
  return clamp(0.585122381 * s1 + 0.783140355 * s2 - 0.368262736 * s3, 0.0, 1.0);
}
`;

const LIT_VERTEX = /* glsl */ `
uniform vec3 diffuse;
uniform vec3 emissive;
uniform vec3 lightDirection;
uniform vec3 upDirection;
varying vec3 vColour;
${SHADE}
void main() {
  vec4 p = vec4(position, 1.0);
  vec3 n = normal;
#ifdef USE_INSTANCING
  p = instanceMatrix * p;
  n = mat3(instanceMatrix) * n;
#endif
  vec4 mv = modelViewMatrix * p;
  n = normalize(normalMatrix * n);
  vec3 toEye = normalize(-mv.xyz);
#ifdef DOUBLE_SIDED
  n = dot(n, toEye) < 0.0 ? -n : n;
#endif
  vec3 base = diffuse;
#ifdef USE_INSTANCING_COLOR
  base *= instanceColor;
#endif
  // Converted here, once a vertex: the fragments only copy the colour.
  vColour = toSRGB(shade(base, n, toEye, lightDirection, upDirection, 0.12) + emissive);
  gl_Position = projectionMatrix * mv;
}
`;

const LIT_FRAGMENT = /* glsl */ `
varying vec3 vColour;
void main() {
  gl_FragColor = vec4(vColour, 1.0);
}
`;

/**
 * A material lit per vertex by `viewLights`, with `color` and `emissive` like the standard
 * material's (so colouring code treats both alike). Flat faces (boxes, hulls: one normal per
 * face) are lit exactly; round ones by their vertices.
 */
export class LitMaterial extends ShaderMaterial {
  constructor(parameters = {}) {
    super({
      uniforms: {
        diffuse: { value: new Color(parameters.color === undefined ? 0xffffff : parameters.color) },
        emissive: { value: new Color(0x000000) },
        lightDirection: viewLights.lightDirection,
        upDirection: viewLights.upDirection,
      },
      vertexShader: LIT_VERTEX,
      fragmentShader: LIT_FRAGMENT,
    });
    this.isLitMaterial = true;
  }

  get color() {
    return this.uniforms.diffuse.value;
  }

  get emissive() {
    return this.uniforms.emissive.value;
  }

  copy(source) {
    super.copy(source);
    // ShaderMaterial.copy clones the uniforms: the lights must stay the shared ones.
    this.uniforms.lightDirection = viewLights.lightDirection;
    this.uniforms.upDirection = viewLights.upDirection;
    return this;
  }
}

const CHECKER_VERTEX = /* glsl */ `
uniform float tile;
varying vec2 vCell;
void main() {
  vCell = position.xy / tile;
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}
`;

const CHECKER_FRAGMENT = /* glsl */ `
uniform vec3 light;
uniform vec3 dark;
varying vec2 vCell;
void main() {
  vec2 cell = floor(vCell);
  float odd = mod(cell.x + cell.y, 2.0);
  // Where a square shrinks below a few pixels the checkers fade into their mean: no moire.
  vec2 w = fwidth(vCell);
  float fade = clamp(max(w.x, w.y) * 2.0 - 0.5, 0.0, 1.0);
  gl_FragColor = vec4(mix(mix(light, dark, odd), 0.5 * (light + dark), fade), 1.0);
}
`;

/**
 * An unlit checkered material for a PlaneGeometry: squares of `tile` (m) in the geometry's
 * x and y, of the colours `light` and `dark` (sRGB hex) times `tint`. The shader writes
 * the colours as given, in sRGB: no conversion for each of the canvas's ground pixels.
 */
export function checkerMaterial(tile, light, dark, tint) {
  const t = new Color(tint);
  return new ShaderMaterial({
    uniforms: {
      tile: { value: tile },
      light: { value: new Color(light).multiply(t).convertLinearToSRGB() },
      dark: { value: new Color(dark).multiply(t).convertLinearToSRGB() },
    },
    vertexShader: CHECKER_VERTEX,
    fragmentShader: CHECKER_FRAGMENT,
  });
}
