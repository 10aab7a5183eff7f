// Spheres drawn as camera-facing impostors: one quad (two triangles) per sphere, its disc
// traced in the fragment shader (exact silhouette, normal and depth). A thousand spheres
// are 2,000 triangles instead of 168,000, which is what a software renderer (SwiftShader)
// needs; the quads are an InstancedMesh, so instance matrices, instance colours and picking
// (a ray against each sphere, below) work as for the other instanced shapes.

import {
  InstancedMesh,
  PlaneGeometry,
  ShaderMaterial,
  Sphere,
  Vector3,
} from 'three';

const VERTEX = /* glsl */ `
uniform float radius;
varying vec3 vCentre;
varying vec3 vPoint;
varying vec3 vColour;
void main() {
  vec4 centre = modelViewMatrix * instanceMatrix * vec4(0.0, 0.0, 0.0, 1.0);
  vCentre = centre.xyz;
  float d = max(length(centre.xyz), radius * 1.0001);
  // A quad across the sphere, square to the line of sight, large enough to hold the cone
  // of rays touching the sphere: radius * d / sqrt(d^2 - r^2) at the centre's distance.
  vec3 w = -centre.xyz / d;
  vec3 u = normalize(abs(w.y) < 0.99 ? cross(vec3(0.0, 1.0, 0.0), w) : cross(vec3(1.0, 0.0, 0.0), w));
  vec3 v = cross(w, u);
  float half_size = radius * d / sqrt(max(d * d - radius * radius, 1e-12)) * 1.05;
  vPoint = centre.xyz + (u * position.x + v * position.y) * half_size;
#ifdef USE_INSTANCING_COLOR
  vColour = instanceColor;
#else
  vColour = vec3(1.0);
#endif
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
void main() {
  // The ray from the eye (the view frame's origin) through this pixel, against the sphere.
  vec3 dir = normalize(vPoint);
  float b = dot(dir, vCentre);
  float c = dot(vCentre, vCentre) - radius * radius;
  float disc = b * b - c;
  if (disc < 0.0) discard;
  vec3 hit = dir * (b - sqrt(disc));
  vec3 n = (hit - vCentre) / radius;
  vec4 clip = projectionMatrix * vec4(hit, 1.0);
  gl_FragDepth = 0.5 * (clip.z / clip.w) + 0.5;
  // A hemisphere light, a sun and a little specular: close to the standard material's look.
  float sky = 0.5 + 0.5 * dot(n, upDirection);
  vec3 ambient = mix(vec3(0.23, 0.20, 0.16), vec3(0.72, 0.79, 1.0), sky) * 0.75;
  float diffuse = max(dot(n, lightDirection), 0.0);
  vec3 h = normalize(lightDirection - dir);
  float specular = pow(max(dot(n, h), 0.0), 40.0) * 0.25 * step(0.0, diffuse);
  vec3 colour = vColour * (ambient + diffuse * 1.1) + vec3(specular);
  gl_FragColor = vec4(colour, 1.0);
  #include <colorspace_fragment>
}
`;

const centre = new Vector3();
const hit = new Vector3();
const ball = new Sphere();
const sun = new Vector3();

/**
 * An InstancedMesh of `count` sphere impostors of `radius` (m). Its instance matrices
 * place the spheres' centres (rotation and scale are ignored). `light` is the scene's
 * DirectionalLight and `up` the world's up direction: the shading follows them.
 */
export function sphereImpostors(radius, count, light, up) {
  const material = new ShaderMaterial({
    uniforms: {
      radius: { value: radius },
      lightDirection: { value: new Vector3(0, 0, 1) },
      upDirection: { value: new Vector3(0, 0, 1) },
    },
    vertexShader: VERTEX,
    fragmentShader: FRAGMENT,
  });
  const mesh = new InstancedMesh(new PlaneGeometry(2, 2), material, count);
  mesh.castShadow = false;
  mesh.receiveShadow = false;
  mesh.frustumCulled = false;
  mesh.userData.impostor = true;
  // The light and up directions in the view frame, before each draw.
  mesh.onBeforeRender = (renderer, scene, camera) => {
    const view = camera.matrixWorldInverse;
    sun.copy(light.position).sub(light.target.position).normalize().transformDirection(view);
    material.uniforms.lightDirection.value.copy(sun);
    material.uniforms.upDirection.value.copy(up).transformDirection(view);
  };
  // Picking: the ray against each sphere (the quads face the camera, not the ray).
  mesh.raycast = function raycast(raycaster, intersects) {
    const ray = raycaster.ray;
    for (let i = 0; i < this.count; i += 1) {
      const e = this.instanceMatrix.array;
      centre.set(e[i * 16 + 12], e[i * 16 + 13], e[i * 16 + 14]).applyMatrix4(this.matrixWorld);
      ball.set(centre, radius);
      if (!ray.intersectSphere(ball, hit)) continue;
      const distance = ray.origin.distanceTo(hit);
      if (distance < raycaster.near || distance > raycaster.far) continue;
      intersects.push({ distance, point: hit.clone(), object: this, instanceId: i });
    }
  };
  return mesh;
}
