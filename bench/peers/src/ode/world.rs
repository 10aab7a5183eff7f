//! A small owner of one ODE world: bodies, geoms in a hash space, ball joints, contact joints
//! made by a near callback each step, and the two steppers.

use super::ffi::*;
use crate::spec::{CFM, ERP, ITERATIONS, MU};
use std::collections::HashMap;
use std::os::raw::{c_int, c_void};
use std::sync::Once;

/// Contact points asked of `dCollide` per geom pair (a box face on a box or the ground gives
/// four, as in this engine's manifolds).
const MAX_CONTACTS_PER_PAIR: usize = 4;

/// Which ODE stepper runs the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OdeStepper {
    /// `dWorldStep`: Dantzig on each island's dense LCP.
    Exact,
    /// `dWorldQuickStep` with [`ITERATIONS`] SOR-LCP sweeps.
    Quick,
}

impl OdeStepper {
    /// Label for the table.
    pub fn label(self) -> &'static str {
        match self {
            OdeStepper::Exact => "ODE dWorldStep",
            OdeStepper::Quick => "ODE dWorldQuickStep",
        }
    }
}

/// What the near callback needs, behind a stable pointer.
struct Collision {
    world: dWorldID,
    group: dJointGroupID,
    buffer: [dContact; MAX_CONTACTS_PER_PAIR],
    contacts: usize,
    /// Body pairs that got contacts this step (null: the static world), with their count.
    pairs: Vec<(dBodyID, dBodyID, usize)>,
}

/// One ODE world.
pub struct OdeWorld {
    world: dWorldID,
    space: dSpaceID,
    contact_group: dJointGroupID,
    stepper: OdeStepper,
    bodies: Vec<dBodyID>,
    index_of: HashMap<usize, usize>,
    balls: Vec<dJointID>,
    geoms: usize,
    collision: Box<Collision>,
}

pub fn init_ode() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        // SAFETY: called once, before any other ODE call, from the thread that uses ODE.
        unsafe {
            dInitODE2(0);
            dAllocateODEDataForThread(D_ALLOCATE_MASK_ALL);
            peers_ode_count_messages();
        }
    });
}

impl OdeWorld {
    /// An empty world with gravity `(0, 0, gravity_z)`, docs/scenes.md's ERP and CFM, 20 quickstep
    /// iterations, no auto-disable.
    pub fn new(stepper: OdeStepper, gravity_z: f64) -> Self {
        init_ode();
        // SAFETY: plain ODE object creation after initialisation.
        unsafe {
            // dWorldQuickStep shuffles its rows with ODE's global random generator: the same
            // seed for every world makes each run reproducible whatever ran before it.
            dRandSetSeed(0);
            let world = dWorldCreate();
            dWorldSetGravity(world, 0.0, 0.0, gravity_z);
            dWorldSetERP(world, ERP);
            dWorldSetCFM(world, CFM);
            dWorldSetQuickStepNumIterations(world, ITERATIONS as c_int);
            dWorldSetAutoDisableFlag(world, 0);
            let space = dHashSpaceCreate(std::ptr::null_mut());
            let contact_group = dJointGroupCreate(0);
            Self {
                world,
                space,
                contact_group,
                stepper,
                bodies: Vec::new(),
                index_of: HashMap::new(),
                balls: Vec::new(),
                geoms: 0,
                collision: Box::new(Collision {
                    world,
                    group: contact_group,
                    buffer: [dContact::default(); MAX_CONTACTS_PER_PAIR],
                    contacts: 0,
                    pairs: Vec::new(),
                }),
            }
        }
    }

    /// Sets `dWorldQuickStep`'s SOR-LCP sweeps per step.
    pub fn set_quick_iterations(&mut self, iterations: usize) {
        let n = c_int::try_from(iterations).unwrap_or(c_int::MAX);
        // SAFETY: `self.world` is a live world.
        unsafe { dWorldSetQuickStepNumIterations(self.world, n) };
    }

    /// Adds a dynamic body with mass `mass` at `centre`; returns its index.
    pub fn add_body(&mut self, centre: [f64; 3], mass: &dMass) -> usize {
        // SAFETY: the world is alive; ODE copies the mass.
        let body = unsafe {
            let body = dBodyCreate(self.world);
            dBodySetMass(body, mass);
            dBodySetPosition(body, centre[0], centre[1], centre[2]);
            body
        };
        self.index_of.insert(body as usize, self.bodies.len());
        self.bodies.push(body);
        self.bodies.len() - 1
    }

    /// Adds a box body of total mass `mass` with a box geom; returns its index.
    pub fn add_box(&mut self, centre: [f64; 3], half: [f64; 3], mass: f64) -> usize {
        let [lx, ly, lz] = half.map(|v| 2.0 * v);
        let mut m = dMass::default();
        // SAFETY: `m` is a valid dMass.
        unsafe { dMassSetBoxTotal(&mut m, mass, lx, ly, lz) };
        let index = self.add_body(centre, &m);
        // SAFETY: the space and body are alive.
        unsafe {
            let geom = dCreateBox(self.space, lx, ly, lz);
            dGeomSetBody(geom, self.bodies[index]);
        }
        self.geoms += 1;
        index
    }

    /// Adds a sphere body of total mass `mass` with a sphere geom; returns its index.
    pub fn add_sphere(&mut self, centre: [f64; 3], radius: f64, mass: f64) -> usize {
        let mut m = dMass::default();
        // SAFETY: `m` is a valid dMass.
        unsafe { dMassSetSphereTotal(&mut m, mass, radius) };
        let index = self.add_body(centre, &m);
        // SAFETY: the space and body are alive.
        unsafe {
            let geom = dCreateSphere(self.space, radius);
            dGeomSetBody(geom, self.bodies[index]);
        }
        self.geoms += 1;
        index
    }

    /// Adds the static ground z <= 0.
    pub fn add_ground(&mut self) {
        // SAFETY: the space is alive.
        unsafe { dCreatePlane(self.space, 0.0, 0.0, 1.0, 0.0) };
        self.geoms += 1;
    }

    /// Adds a static box (no body).
    pub fn add_static_box(&mut self, centre: [f64; 3], half: [f64; 3]) {
        let [lx, ly, lz] = half.map(|v| 2.0 * v);
        // SAFETY: the space is alive.
        unsafe {
            let geom = dCreateBox(self.space, lx, ly, lz);
            dGeomSetPosition(geom, centre[0], centre[1], centre[2]);
        }
        self.geoms += 1;
    }

    /// Adds a ball joint between body `a` and body `b` (`None`: the static world) at the
    /// world point `anchor`; returns its index.
    pub fn add_ball(&mut self, a: usize, b: Option<usize>, anchor: [f64; 3]) -> usize {
        let body_b = b.map_or(std::ptr::null_mut(), |b| self.bodies[b]);
        // SAFETY: the world and bodies are alive.
        let joint = unsafe {
            let joint = dJointCreateBall(self.world, std::ptr::null_mut());
            dJointAttach(joint, self.bodies[a], body_b);
            dJointSetBallAnchor(joint, anchor[0], anchor[1], anchor[2]);
            joint
        };
        self.balls.push(joint);
        self.balls.len() - 1
    }

    /// Sets a body's angular velocity (world frame).
    pub fn set_angular_velocity(&mut self, body: usize, w: [f64; 3]) {
        // SAFETY: the body is alive.
        unsafe { dBodySetAngularVel(self.bodies[body], w[0], w[1], w[2]) };
    }

    /// Turns ODE's gyroscopic term on or off for a body (on by default).
    pub fn set_gyroscopic(&mut self, body: usize, enabled: bool) {
        // SAFETY: the body is alive.
        unsafe { dBodySetGyroscopicMode(self.bodies[body], c_int::from(enabled)) };
    }

    /// Replaces last step's contact joints by this step's: `dSpaceCollide` with a near
    /// callback that makes up to four contacts per pair, box friction (`dContactApprox1`,
    /// `mu` 0.5), the world's ERP and CFM. Returns the number of contacts.
    pub fn collide(&mut self) -> usize {
        self.collision.contacts = 0;
        self.collision.pairs.clear();
        if self.geoms == 0 {
            return 0;
        }
        let data: *mut Collision = &mut *self.collision;
        // SAFETY: `data` outlives the call; the callback only touches ODE objects of this
        // world and the buffer inside `data`.
        unsafe {
            dJointGroupEmpty(self.contact_group);
            dSpaceCollide(self.space, data.cast::<c_void>(), near_callback);
        }
        self.collision.contacts
    }

    /// Rows of the largest island the next `dWorldStep` will solve: 3 per contact of this
    /// step (box friction) and 3 per ball joint (the chain, the only jointed scene, is one
    /// island without contacts).
    pub fn largest_island_rows(&self) -> usize {
        let mut parent: Vec<usize> = (0..self.bodies.len()).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let index = |b: dBodyID| self.index_of.get(&(b as usize)).copied();
        for &(a, b, _) in &self.collision.pairs {
            if let (Some(a), Some(b)) = (index(a), index(b)) {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra] = rb;
            }
        }
        let mut rows = vec![0usize; self.bodies.len()];
        for &(a, b, contacts) in &self.collision.pairs {
            if let Some(body) = index(a).or(index(b)) {
                let r = root(&mut parent, body);
                rows[r] += 3 * contacts;
            }
        }
        let contact_rows = rows.into_iter().max().unwrap_or(0);
        contact_rows.max(3 * self.balls.len())
    }

    /// One step of `h` with this world's stepper (after [`Self::collide`]).
    pub fn step(&mut self, h: f64) -> Result<(), String> {
        // SAFETY: the world is alive.
        let ok = unsafe {
            match self.stepper {
                OdeStepper::Exact => dWorldStep(self.world, h),
                OdeStepper::Quick => dWorldQuickStep(self.world, h),
            }
        };
        if ok == 0 {
            Err("ODE could not allocate the step's memory".into())
        } else {
            Ok(())
        }
    }

    /// A body's position.
    pub fn position(&self, body: usize) -> [f64; 3] {
        // SAFETY: ODE returns a pointer to the body's 4-element position.
        unsafe { read3(dBodyGetPosition(self.bodies[body])) }
    }

    /// A body's rotation, row-major.
    pub fn rotation(&self, body: usize) -> [[f64; 3]; 3] {
        // SAFETY: ODE returns a pointer to the body's 3 x 4 rotation matrix.
        unsafe {
            let r = dBodyGetRotation(self.bodies[body]);
            std::array::from_fn(|i| read3(r.add(4 * i)))
        }
    }

    /// A body's angular velocity, world frame.
    pub fn angular_velocity(&self, body: usize) -> [f64; 3] {
        // SAFETY: ODE returns a pointer to the body's 4-element angular velocity.
        unsafe { read3(dBodyGetAngularVel(self.bodies[body])) }
    }

    /// The world anchor points of ball joint `j` on its first and second body.
    pub fn ball_anchors(&self, j: usize) -> ([f64; 3], [f64; 3]) {
        let (mut a, mut b) = ([0.0; 4], [0.0; 4]);
        // SAFETY: the joint is alive; ODE writes a dVector3 (4 reals) each.
        unsafe {
            dJointGetBallAnchor(self.balls[j], a.as_mut_ptr());
            dJointGetBallAnchor2(self.balls[j], b.as_mut_ptr());
        }
        ([a[0], a[1], a[2]], [b[0], b[1], b[2]])
    }

    /// Number of ball joints.
    pub fn ball_count(&self) -> usize {
        self.balls.len()
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }
}

impl Drop for OdeWorld {
    fn drop(&mut self) {
        // SAFETY: each object is destroyed once; the space destroys its geoms, the world its
        // bodies and joints.
        unsafe {
            dJointGroupEmpty(self.contact_group);
            dJointGroupDestroy(self.contact_group);
            dSpaceDestroy(self.space);
            dWorldDestroy(self.world);
        }
    }
}

unsafe fn read3(p: *const dReal) -> [f64; 3] {
    [*p, *p.add(1), *p.add(2)]
}

/// ODE's near callback: contacts between two geoms, at least one on a body.
unsafe extern "C" fn near_callback(data: *mut c_void, o1: dGeomID, o2: dGeomID) {
    let state = &mut *data.cast::<Collision>();
    let (b1, b2) = (dGeomGetBody(o1), dGeomGetBody(o2));
    if b1.is_null() && b2.is_null() {
        return;
    }
    let found = dCollide(
        o1,
        o2,
        MAX_CONTACTS_PER_PAIR as c_int,
        &mut state.buffer[0].geom,
        std::mem::size_of::<dContact>() as c_int,
    );
    let found = (found.max(0) as usize).min(MAX_CONTACTS_PER_PAIR);
    for contact in state.buffer.iter_mut().take(found) {
        contact.surface.mode = D_CONTACT_APPROX1;
        contact.surface.mu = MU;
        let joint = dJointCreateContact(state.world, state.group, contact);
        dJointAttach(joint, b1, b2);
    }
    if found > 0 {
        state.contacts += found;
        state.pairs.push((b1, b2, found));
    }
}
