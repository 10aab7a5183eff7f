// Spheres drawn as camera-facing impostors: one octagon (six triangles) per sphere, its
// disc traced in the fragment shader (exact silhouette, normal and depth). A thousand
// spheres are 6,000 triangles instead of 168,000, which is what a software renderer
// (SwiftShader) needs. They are one plain mesh, not an instanced one: SwiftShader runs an
// instanced draw as a draw per instance, which cost more than the spheres' pixels. The mesh
// answers the InstancedMesh calls the page makes (setMatrixAt, setColorAt, the needsUpdate
// flags, raycast with instanceId), so it is used like the other instanced shapes.

import {
  BufferAttribute,
  BufferGeometry,
  Color,
  Mesh,
  ShaderMaterial,
  Sphere,
  Vector3,
} from 'three';

import { SHADE, viewLights } from './lowcost.js';

const VERTEX = /* glsl */ `
uniform float radius;
attribute vec3 centre;
attribute vec3 colour;
varying vec3 vCentre;
varying vec3 vPoint;
varying vec3 vColour;
void main() {
  // position is the octagon's corner (x, y) around the unit circle.
  vec4 middle = modelViewMatrix * vec4(centre, 1.0);
  vCentre = middle.xyz;
  float d = max(length(middle.xyz), radius * 1.0001);
  // An octagon across the sphere, square to the line of sight, holding the circle where the
  // cone of rays touching the sphere meets it: radius * d / sqrt(d^2 - r^2) at distance d.
  vec3 w = -middle.xyz / d;
  vec3 u = normalize(abs(w.y) < 0.99 ? cross(vec3(0.0, 1.0, 0.0), w) : cross(vec3(1.0, 0.0, 0.0), w));
  vec3 v = cross(w, u);
  float half_size = radius * d / sqrt(max(d * d - radius * radius, 1e-12)) * 1.01;
  vPoint = middle.xyz + (u * position.x + v * position.y) * half_size;
  vColour = colour;
  gl_Position = projectionMatrix * vec4(vPoint, 1.0);
}
`;

const FRAGMENT = /* glsl */ `
uniform mat4 projectionMatrix;
uniform float radius;
uniform vec3 lightDirection;
uniform vec3 upDirection;
varying vec3 vCentre;
varying vec3 vPoint;
varying vec3 vColour;
${SHADE}
void main() {
  // The ray from the eye (the view frame's origin) through this pixel, against the sphere.
  vec3 dir = normalize(vPoint);
  float b = dot(dir, vCentre);
  float c = dot(vCentre, vCentre) - radius * radius;
  float disc = b * b - c;
  if (disc < 0.0) discard;
  vec3 hit = dir * (b - sqrt(disc));
  vec3 n = (hit - vCentre) / radius;
  // Depth of a perspective projection: only clip z and w = -z are needed.
  float ndc = (projectionMatrix[2][2] * hit.z + projectionMatrix[3][2]) / -hit.z;
  gl_FragDepth = 0.5 * ndc + 0.5;
  gl_FragColor = vec4(toSRGB(shade(vColour, n, -dir, lightDirection, upDirection, 0.25)), 1.0);
}
`;

const point = new Vector3();
const hit = new Vector3();
const ball = new Sphere();
const white = new Color(0xffffff);

/** The corners of a regular octagon around the unit circle, and its fan of six triangles. */
const CORNERS = [];
for (let i = 0; i < 8; i += 1) {
  const a = (Math.PI / 4) * (i + 0.5);
  CORNERS.push(Math.cos(a) / Math.cos(Math.PI / 8), Math.sin(a) / Math.cos(Math.PI / 8));
}
const FAN = [0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5, 0, 5, 6, 0, 6, 7];

/** `count` octagons: corners in `position`, each sphere's centre and colour on its 8 corners. */
function octagons(count) {
  const corners = new Float32Array(count * 24);
  const index = count * 8 > 65535 ? new Uint32Array(count * 18) : new Uint16Array(count * 18);
  for (let i = 0; i < count; i += 1) {
    for (let k = 0; k < 8; k += 1) {
      corners[i * 24 + k * 3] = CORNERS[k * 2];
      corners[i * 24 + k * 3 + 1] = CORNERS[k * 2 + 1];
    }
    for (let k = 0; k < 18; k += 1) index[i * 18 + k] = i * 8 + FAN[k];
  }
  const g = new BufferGeometry();
  g.setAttribute('position', new BufferAttribute(corners, 3));
  g.setAttribute('centre', new BufferAttribute(new Float32Array(count * 24), 3));
  g.setAttribute('colour', new BufferAttribute(new Float32Array(count * 24).fill(1), 3));
  g.setIndex(new BufferAttribute(index, 1));
  return g;
}

/** A flag object whose `needsUpdate = true` marks a geometry attribute for upload. */
function uploadFlag(attribute) {
  return {
    set needsUpdate(value) {
      if (value) attribute.needsUpdate = true;
    },
  };
}

/** The impostors' mesh: sphere i is the octagon of vertices 8 i to 8 i + 7. */
class SphereImpostors extends Mesh {
  constructor(radius, count, material) {
    super(octagons(count), material);
    this.radius = radius;
    this.count = count;
    // The centres (local frame) for picking, as the InstancedMesh's matrices would hold them.
    this.centres = new Float32Array(count * 3);
    this.instanceMatrix = uploadFlag(this.geometry.attributes.centre);
    this.instanceColor = uploadFlag(this.geometry.attributes.colour);
  }

  /** Sphere `i` at the translation of `matrix` (rotation and scale are ignored). */
  setMatrixAt(i, matrix) {
    const e = matrix.elements;
    this.setCentreAt(i, point.set(e[12], e[13], e[14]));
  }

  /** Sphere `i` centred at `p` (a Vector3, the mesh's frame). */
  setCentreAt(i, p) {
    const a = this.geometry.attributes.centre.array;
    this.centres[i * 3] = p.x;
    this.centres[i * 3 + 1] = p.y;
    this.centres[i * 3 + 2] = p.z;
    for (let k = i * 24; k < i * 24 + 24; k += 3) {
      a[k] = p.x;
      a[k + 1] = p.y;
      a[k + 2] = p.z;
    }
  }

  setColorAt(i, colour) {
    const a = this.geometry.attributes.colour.array;
    for (let k = i * 24; k < i * 24 + 24; k += 3) {
      a[k] = colour.r;
      a[k + 1] = colour.g;
      a[k + 2] = colour.b;
    }
  }

  /** Picking: the ray against each sphere (the octagons face the camera, not the ray). */
  raycast(raycaster, intersects) {
    const ray = raycaster.ray;
    for (let i = 0; i < this.count; i += 1) {
      point.fromArray(this.centres, i * 3).applyMatrix4(this.matrixWorld);
      ball.set(point, this.radius);
      if (!ray.intersectSphere(ball, hit)) continue;
      const distance = ray.origin.distanceTo(hit);
      if (distance < raycaster.near || distance > raycaster.far) continue;
      intersects.push({ distance, point: hit.clone(), object: this, instanceId: i });
    }
  }
}

/**
 * A mesh of `count` sphere impostors of `radius` (m), white until coloured. The shading
 * follows `viewLights` (lowcost.js), which the page sets before each draw.
 */
export function sphereImpostors(radius, count) {
  const material = new ShaderMaterial({
    uniforms: {
      radius: { value: radius },
      lightDirection: viewLights.lightDirection,
      upDirection: viewLights.upDirection,
    },
    vertexShader: VERTEX,
    fragmentShader: FRAGMENT,
  });
  const mesh = new SphereImpostors(radius, count, material);
  for (let i = 0; i < count; i += 1) mesh.setColorAt(i, white);
  mesh.castShadow = false;
  mesh.receiveShadow = false;
  // The spheres move every frame: no bounds are kept, the mesh is never culled.
  mesh.frustumCulled = false;
  mesh.userData.impostor = true;
  // Drawn before the other opaque objects: what they hide behind the spheres fails the
  // depth test before it is shaded (the impostors write their depth, so they cannot).
  mesh.renderOrder = -1;
  return mesh;
}
