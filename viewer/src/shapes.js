// Three.js meshes of the format's shapes. Axial shapes run along the shape frame's z axis
// (three builds them along y: a quarter turn about x maps y to z).

import {
  BoxGeometry,
  BufferGeometry,
  CanvasTexture,
  CapsuleGeometry,
  ConeGeometry,
  CylinderGeometry,
  DoubleSide,
  Float32BufferAttribute,
  InstancedMesh,
  Matrix4,
  Mesh,
  MeshStandardMaterial,
  PlaneGeometry,
  Quaternion,
  RepeatWrapping,
  SphereGeometry,
  SRGBColorSpace,
  Vector3,
} from 'three';

import { sphereImpostors } from './impostors.js';
import { checkerMaterial, LitMaterial } from './lowcost.js';

/** Applies a format pose `{position, orientation: [w, x, y, z]}` to an Object3D. */
export function setPose(object, pose) {
  if (!pose) return;
  const p = pose.position || [0, 0, 0];
  const q = pose.orientation || [1, 0, 0, 0];
  object.position.set(p[0], p[1], p[2]);
  object.quaternion.set(q[1], q[2], q[3], q[0]);
}

function meshGeometry(vertices, indices) {
  const g = new BufferGeometry();
  const positions = new Float32Array(vertices.length * 3);
  vertices.forEach((v, i) => positions.set(v, i * 3));
  g.setAttribute('position', new Float32BufferAttribute(positions, 3));
  const flat = [];
  for (const t of indices) flat.push(t[0], t[1], t[2]);
  g.setIndex(flat);
  // One normal per triangle: flat shading of hulls, meshes and heightfields.
  const faceted = g.toNonIndexed();
  faceted.computeVertexNormals();
  g.dispose();
  return faceted;
}

/** The geometry of a shape (not for planes), in the shape frame, and whether it is open. */
function geometryOf(shape) {
  const axial = (g) => g.rotateX(Math.PI / 2);
  switch (shape.kind) {
    case 'box': {
      const h = shape.half_extents;
      return { geometry: new BoxGeometry(2 * h[0], 2 * h[1], 2 * h[2]) };
    }
    case 'sphere':
      return { geometry: new SphereGeometry(shape.radius, 32, 16) };
    case 'capsule':
      return { geometry: axial(new CapsuleGeometry(shape.radius, 2 * shape.half_height, 8, 24)) };
    case 'cylinder':
      return { geometry: axial(new CylinderGeometry(shape.radius, shape.radius, 2 * shape.half_height, 32)) };
    case 'cone':
      return { geometry: axial(new ConeGeometry(shape.radius, 2 * shape.half_height, 32)) };
    case 'convex':
      return { geometry: meshGeometry(shape.vertices, shape.indices) };
    case 'mesh':
    case 'heightfield':
      return { geometry: meshGeometry(shape.vertices, shape.indices), open: true };
    default:
      return null;
  }
}

/** The radius of a ball around the shape frame's origin holding the shape. */
export function shapeRadius(shape) {
  switch (shape.kind) {
    case 'box':
      return Math.hypot(...shape.half_extents);
    case 'sphere':
      return shape.radius;
    case 'capsule':
      return shape.radius + shape.half_height;
    case 'cylinder':
    case 'cone':
      return Math.hypot(shape.radius, shape.half_height);
    case 'convex':
    case 'mesh':
    case 'heightfield': {
      let r = 0;
      for (const v of shape.vertices) r = Math.max(r, Math.hypot(v[0], v[1], v[2]));
      return r;
    }
    default:
      return 0;
  }
}

/** Extent of a shape seen from its body's origin (its pose's offset plus its radius). */
export function shapeReach(shape) {
  const p = (shape.pose && shape.pose.position) || [0, 0, 0];
  return Math.hypot(p[0], p[1], p[2]) + shapeRadius(shape);
}

/** A mesh of `shape` with `material` (cloned two-sided for open surfaces), or null. */
export function shapeMesh(shape, material) {
  const built = geometryOf(shape);
  if (!built) return null;
  let m = material;
  if (built.open || shape.kind === 'convex') {
    m = material.clone();
    m.flatShading = true;
    if (built.open) m.side = DoubleSide;
    m.userData.derived = true;
  }
  const mesh = new Mesh(built.geometry, m);
  mesh.castShadow = true;
  mesh.receiveShadow = true;
  setPose(mesh, shape.pose);
  return mesh;
}

/**
 * A key equal for shapes drawn alike (kind, dimensions and pose), for drawing many bodies
 * as one instanced mesh; null for shapes drawn one by one (meshes, hulls, planes).
 */
export function instanceKey(shape) {
  if (!['box', 'sphere', 'capsule', 'cylinder', 'cone'].includes(shape.kind)) return null;
  return JSON.stringify([shape.kind, shape.half_extents, shape.radius, shape.half_height, shape.pose]);
}

/** From this many copies on, spheres are impostors and no copy casts a shadow. */
export const MANY_INSTANCES = 200;

/**
 * One mesh drawing `count` copies of `shape` (instance colours multiply its white
 * material), and the shape's pose in its body's frame as a matrix. Above MANY_INSTANCES
 * copies, spheres are camera-facing impostors (an octagon each, impostors.js) and no copy
 * casts a shadow: a thousand spheres at full detail with shadows cost a software renderer
 * seconds a frame. `lowCost`: lit per vertex (lowcost.js) instead of the standard material.
 */
export function instancedShapeMesh(shape, count, lowCost) {
  const many = count > MANY_INSTANCES;
  const pose = new Matrix4();
  if (shape.pose) {
    const p = shape.pose.position || [0, 0, 0];
    const q = shape.pose.orientation || [1, 0, 0, 0];
    pose.compose(new Vector3(p[0], p[1], p[2]), new Quaternion(q[1], q[2], q[3], q[0]), new Vector3(1, 1, 1));
  }
  if (shape.kind === 'sphere' && many) {
    return { mesh: sphereImpostors(shape.radius, count), pose };
  }
  const built = geometryOf(shape);
  const material = lowCost
    ? new LitMaterial({ color: 0xffffff })
    : new MeshStandardMaterial({ color: 0xffffff, roughness: 0.55, metalness: 0.05 });
  const mesh = new InstancedMesh(built.geometry, material, count);
  // Casting shadows draws every instance twice; hundreds of them cast none.
  mesh.castShadow = !many;
  mesh.receiveShadow = true;
  // The instances move every frame: their bounds are recomputed for picking only.
  mesh.frustumCulled = false;
  return { mesh, pose };
}

let checker = null;

const CHECKER_LIGHT = '#8d939c';
const CHECKER_DARK = '#7a8089';

function checkerTexture() {
  if (checker) return checker;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 64;
  const g = canvas.getContext('2d');
  g.fillStyle = CHECKER_LIGHT;
  g.fillRect(0, 0, 64, 64);
  g.fillStyle = CHECKER_DARK;
  g.fillRect(0, 0, 32, 32);
  g.fillRect(32, 32, 32, 32);
  checker = new CanvasTexture(canvas);
  checker.wrapS = checker.wrapT = RepeatWrapping;
  checker.colorSpace = SRGBColorSpace;
  checker.anisotropy = 4;
  return checker;
}

/**
 * A plane: a checkered square of side `2 * half` (m), in squares of `tile` (m), centred on
 * the point of the plane nearest `centre` (world frame), for a plane shape at world pose
 * `pose`. `lowCost`: unlit
 * checkers computed in the shader (a flat plane without shadows is evenly lit anyway; the
 * lit plane filled most of the canvas and cost a software renderer two thirds of a frame,
 * the textured unlit one still half), drawn after the other opaque objects so that what
 * they hide is never shaded.
 */
export function planeMesh(shape, half, centre, lowCost, tile) {
  const n = new Vector3(...shape.normal).normalize();
  const pose = shape.pose || {};
  const q = pose.orientation || [1, 0, 0, 0];
  const rotation = new Quaternion(q[1], q[2], q[3], q[0]);
  const origin = new Vector3(...(pose.position || [0, 0, 0]));
  const worldNormal = n.clone().applyQuaternion(rotation);
  const c = new Vector3(...centre);
  const foot = c.clone().sub(worldNormal.clone().multiplyScalar(c.clone().sub(origin).dot(worldNormal)));
  let material;
  if (lowCost) {
    // The unlit colour is about what the hemisphere light and the sun give a level plane.
    material = checkerMaterial(tile, CHECKER_LIGHT, CHECKER_DARK, 0xb4b4b4);
  } else {
    const texture = checkerTexture().clone();
    texture.repeat.set(half / tile, half / tile);
    texture.needsUpdate = true;
    material = new MeshStandardMaterial({ map: texture, roughness: 0.95, metalness: 0 });
  }
  const mesh = new Mesh(new PlaneGeometry(2 * half, 2 * half), material);
  mesh.quaternion.setFromUnitVectors(new Vector3(0, 0, 1), worldNormal);
  mesh.position.copy(foot);
  mesh.receiveShadow = true;
  mesh.userData.plane = true;
  if (lowCost) mesh.renderOrder = 1;
  return mesh;
}
