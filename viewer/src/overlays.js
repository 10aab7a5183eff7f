// Contact points with normal and force arrows, joint anchors and axes.

import {
  ArrowHelper,
  Group,
  InstancedMesh,
  Matrix4,
  MeshBasicMaterial,
  Quaternion,
  SphereGeometry,
  Vector3,
} from 'three';

const NORMAL_COLOR = 0x4fc3f7;
const FORCE_COLOR = 0xff5252;
const POINT_COLOR = 0xffee58;
const ANCHOR_COLOR = 0xffa726;
const AXIS_COLOR = 0xab47bc;

/** A pool of arrows reused from frame to frame. */
class ArrowPool {
  constructor(parent, color) {
    this.parent = parent;
    this.color = color;
    this.arrows = [];
    this.used = 0;
  }

  begin() {
    this.used = 0;
  }

  add(origin, direction, length, head) {
    let arrow = this.arrows[this.used];
    if (!arrow) {
      arrow = new ArrowHelper(new Vector3(0, 0, 1), new Vector3(), 1, this.color);
      arrow.traverse((o) => {
        o.renderOrder = 2;
        if (o.material) {
          o.material.depthTest = false;
          o.material.transparent = true;
        }
      });
      this.arrows.push(arrow);
      this.parent.add(arrow);
    }
    this.used += 1;
    arrow.visible = true;
    arrow.position.copy(origin);
    arrow.setDirection(direction);
    const h = Math.min(head, length * 0.5);
    arrow.setLength(length, h, h * 0.5);
  }

  end() {
    for (let i = this.used; i < this.arrows.length; i += 1) this.arrows[i].visible = false;
  }
}

/** Spheres drawn as one instanced mesh, grown as needed. */
class Dots {
  constructor(parent, color, radius) {
    this.parent = parent;
    this.material = new MeshBasicMaterial({ color, depthTest: false, transparent: true });
    this.geometry = new SphereGeometry(radius, 12, 8);
    this.mesh = null;
    this.capacity = 0;
    this.matrix = new Matrix4();
  }

  set(points) {
    if (points.length > this.capacity) {
      if (this.mesh) {
        this.parent.remove(this.mesh);
        this.mesh.dispose();
      }
      this.capacity = Math.max(16, points.length * 2);
      this.mesh = new InstancedMesh(this.geometry, this.material, this.capacity);
      this.mesh.renderOrder = 3;
      this.mesh.frustumCulled = false;
      this.parent.add(this.mesh);
    }
    if (!this.mesh) return;
    points.forEach((p, i) => {
      this.matrix.makeTranslation(p.x, p.y, p.z);
      this.mesh.setMatrixAt(i, this.matrix);
    });
    this.mesh.count = points.length;
    this.mesh.instanceMatrix.needsUpdate = true;
  }
}

export class Overlays {
  /**
   * @param {import('three').Scene} scene
   * @param {number} size a length of the scene's scale (m): sets dot and arrow sizes
   */
  constructor(scene, size) {
    this.size = size;
    this.contactGroup = new Group();
    this.jointGroup = new Group();
    scene.add(this.contactGroup, this.jointGroup);
    this.points = new Dots(this.contactGroup, POINT_COLOR, size * 0.012);
    this.normals = new ArrowPool(this.contactGroup, NORMAL_COLOR);
    this.forces = new ArrowPool(this.contactGroup, FORCE_COLOR);
    this.anchors = new Dots(this.jointGroup, ANCHOR_COLOR, size * 0.02);
    this.axes = new ArrowPool(this.jointGroup, AXIS_COLOR);
  }

  /**
   * Contact points, unit normals (drawn `size * 0.08` long) and forces (`scale` m per N).
   */
  showContacts(frame, visible, scale) {
    this.contactGroup.visible = visible;
    if (!visible || !frame) return;
    const points = [];
    this.normals.begin();
    this.forces.begin();
    const head = this.size * 0.02;
    for (const c of frame.contacts) {
      const p = new Vector3(...c.point);
      points.push(p);
      const n = new Vector3(...c.normal);
      if (n.lengthSq() > 0) this.normals.add(p, n.normalize(), this.size * 0.08, head);
      const f = new Vector3(...c.force);
      const length = f.length() * scale;
      // Every non-zero force gets its arrow, so the arrows count the loaded contacts.
      if (length > 0) this.forces.add(p, f.normalize(), length, head * 1.2);
    }
    this.points.set(points);
    this.normals.end();
    this.forces.end();
  }

  /** What the contact overlay draws now: points, normal arrows and force arrows. */
  contactCounts() {
    if (!this.contactGroup.visible) return { points: 0, normals: 0, forces: 0 };
    return {
      points: this.points.mesh ? this.points.mesh.count : 0,
      normals: this.normals.used,
      forces: this.forces.used,
    };
  }

  /** Joint anchors (on body A) and axes at the bodies' poses in `frame`. */
  showJoints(joints, frame, visible) {
    this.jointGroup.visible = visible;
    if (!visible || !frame) return;
    const points = [];
    this.axes.begin();
    const poseOf = (b) => {
      if (b === null || b === undefined) return null;
      const p = frame.positions[b];
      const q = frame.orientations[b];
      return { position: new Vector3(...p), rotation: new Quaternion(q[1], q[2], q[3], q[0]) };
    };
    for (const j of joints) {
      const a = poseOf(j.body_a);
      const anchor = a
        ? new Vector3(...j.local_anchor).applyQuaternion(a.rotation).add(a.position)
        : new Vector3(...j.anchor);
      points.push(anchor);
      if (j.local_axis) {
        const frameOf = poseOf(j.axis_body);
        const axis = new Vector3(...j.local_axis);
        if (frameOf) axis.applyQuaternion(frameOf.rotation);
        if (axis.lengthSq() > 0) {
          axis.normalize();
          const length = this.size * 0.15;
          this.axes.add(anchor.clone().addScaledVector(axis, -length / 2), axis, length, this.size * 0.025);
        }
      }
    }
    this.anchors.set(points);
    this.axes.end();
  }
}
