//! The part of ODE 0.16's C API this program uses (declarations written from
//! /usr/include/ode/*.h, double precision as Debian builds it), and the C shim of
//! shim/ode_shim.cpp.

#![allow(non_camel_case_types)]

use std::os::raw::{c_int, c_long, c_uint, c_void};

/// ODE's `dReal` in Debian's double-precision build.
pub type dReal = f64;

macro_rules! opaque {
    ($($name:ident),*) => {
        $(
            /// An ODE object behind a pointer.
            #[repr(C)]
            pub struct $name {
                _private: [u8; 0],
            }
        )*
    };
}

opaque!(dxWorld, dxBody, dxJoint, dxJointGroup, dxGeom, dxSpace);

pub type dWorldID = *mut dxWorld;
pub type dBodyID = *mut dxBody;
pub type dJointID = *mut dxJoint;
pub type dJointGroupID = *mut dxJointGroup;
pub type dGeomID = *mut dxGeom;
/// ODE's spaces are geoms too (`dSpaceID` converts to `dGeomID`).
pub type dSpaceID = *mut dxSpace;

/// `dMass`: mass, centre of mass (`dVector3`, padded to 4), inertia (`dMatrix3`, 3 x 4).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct dMass {
    pub mass: dReal,
    pub c: [dReal; 4],
    pub i: [dReal; 12],
}

/// `dSurfaceParameters`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct dSurfaceParameters {
    pub mode: c_int,
    pub mu: dReal,
    pub mu2: dReal,
    pub rho: dReal,
    pub rho2: dReal,
    pub rho_n: dReal,
    pub bounce: dReal,
    pub bounce_vel: dReal,
    pub soft_erp: dReal,
    pub soft_cfm: dReal,
    pub motion1: dReal,
    pub motion2: dReal,
    pub motion_n: dReal,
    pub slip1: dReal,
    pub slip2: dReal,
}

/// `dContactGeom`: the normal points into geom 1.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dContactGeom {
    pub pos: [dReal; 4],
    pub normal: [dReal; 4],
    pub depth: dReal,
    pub g1: dGeomID,
    pub g2: dGeomID,
    pub side1: c_int,
    pub side2: c_int,
}

/// `dContact`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dContact {
    pub surface: dSurfaceParameters,
    pub geom: dContactGeom,
    pub fdir1: [dReal; 4],
}

impl Default for dContact {
    fn default() -> Self {
        Self {
            surface: dSurfaceParameters::default(),
            geom: dContactGeom {
                pos: [0.0; 4],
                normal: [0.0; 4],
                depth: 0.0,
                g1: std::ptr::null_mut(),
                g2: std::ptr::null_mut(),
                side1: 0,
                side2: 0,
            },
            fdir1: [0.0; 4],
        }
    }
}

/// `dContactApprox1`: friction bounded by `mu` times the normal force, in both directions
/// (ODE's box friction through `findex`).
pub const D_CONTACT_APPROX1: c_int = 0x7000;

/// `dAllocateMaskAll`.
pub const D_ALLOCATE_MASK_ALL: c_uint = !0;

/// `dNearCallback`.
pub type dNearCallback = unsafe extern "C" fn(data: *mut c_void, o1: dGeomID, o2: dGeomID);

#[link(name = "ode")]
extern "C" {
    pub fn dInitODE2(flags: c_uint) -> c_int;
    pub fn dAllocateODEDataForThread(flags: c_uint) -> c_int;

    pub fn dRandSetSeed(seed: std::os::raw::c_ulong);

    pub fn dWorldCreate() -> dWorldID;
    pub fn dWorldDestroy(world: dWorldID);
    pub fn dWorldSetGravity(world: dWorldID, x: dReal, y: dReal, z: dReal);
    pub fn dWorldSetERP(world: dWorldID, erp: dReal);
    pub fn dWorldSetCFM(world: dWorldID, cfm: dReal);
    pub fn dWorldStep(world: dWorldID, h: dReal) -> c_int;
    pub fn dWorldQuickStep(world: dWorldID, h: dReal) -> c_int;
    pub fn dWorldSetQuickStepNumIterations(world: dWorldID, iterations: c_int);
    pub fn dWorldSetAutoDisableFlag(world: dWorldID, enabled: c_int);

    pub fn dBodyCreate(world: dWorldID) -> dBodyID;
    pub fn dBodySetPosition(body: dBodyID, x: dReal, y: dReal, z: dReal);
    pub fn dBodySetAngularVel(body: dBodyID, x: dReal, y: dReal, z: dReal);
    pub fn dBodySetMass(body: dBodyID, mass: *const dMass);
    pub fn dBodyGetPosition(body: dBodyID) -> *const dReal;
    pub fn dBodyGetRotation(body: dBodyID) -> *const dReal;
    pub fn dBodyGetAngularVel(body: dBodyID) -> *const dReal;
    pub fn dBodySetGyroscopicMode(body: dBodyID, enabled: c_int);

    pub fn dMassSetBoxTotal(mass: *mut dMass, total: dReal, lx: dReal, ly: dReal, lz: dReal);
    pub fn dMassSetBox(mass: *mut dMass, density: dReal, lx: dReal, ly: dReal, lz: dReal);
    pub fn dMassSetSphereTotal(mass: *mut dMass, total: dReal, radius: dReal);

    pub fn dJointGroupCreate(max_size: c_int) -> dJointGroupID;
    pub fn dJointGroupDestroy(group: dJointGroupID);
    pub fn dJointGroupEmpty(group: dJointGroupID);
    pub fn dJointCreateContact(
        world: dWorldID,
        group: dJointGroupID,
        contact: *const dContact,
    ) -> dJointID;
    pub fn dJointCreateBall(world: dWorldID, group: dJointGroupID) -> dJointID;
    pub fn dJointAttach(joint: dJointID, body1: dBodyID, body2: dBodyID);
    pub fn dJointSetBallAnchor(joint: dJointID, x: dReal, y: dReal, z: dReal);
    pub fn dJointGetBallAnchor(joint: dJointID, result: *mut dReal);
    pub fn dJointGetBallAnchor2(joint: dJointID, result: *mut dReal);

    pub fn dHashSpaceCreate(parent: dSpaceID) -> dSpaceID;
    pub fn dSpaceDestroy(space: dSpaceID);
    pub fn dSpaceCollide(space: dSpaceID, data: *mut c_void, callback: dNearCallback);
    pub fn dCreatePlane(space: dSpaceID, a: dReal, b: dReal, c: dReal, d: dReal) -> dGeomID;
    pub fn dCreateBox(space: dSpaceID, lx: dReal, ly: dReal, lz: dReal) -> dGeomID;
    pub fn dCreateSphere(space: dSpaceID, radius: dReal) -> dGeomID;
    pub fn dGeomSetBody(geom: dGeomID, body: dBodyID);
    pub fn dGeomGetBody(geom: dGeomID) -> dBodyID;
    pub fn dGeomSetPosition(geom: dGeomID, x: dReal, y: dReal, z: dReal);
    pub fn dCollide(
        o1: dGeomID,
        o2: dGeomID,
        flags: c_int,
        contact: *mut dContactGeom,
        skip: c_int,
    ) -> c_int;
}

// shim/ode_shim.cpp, compiled and linked by build.rs.
extern "C" {
    pub fn peers_ode_lcp_arena_new(n: c_uint) -> *mut c_void;
    pub fn peers_ode_lcp_arena_free(arena: *mut c_void);
    pub fn peers_ode_lcp_solve(
        arena: *mut c_void,
        n: c_uint,
        a: *mut dReal,
        pairs_bx: *mut dReal,
        w: *mut dReal,
        nub: c_uint,
        pairs_lh: *mut dReal,
        findex: *mut c_int,
    ) -> c_int;
    pub fn peers_ode_pad(n: c_uint) -> c_uint;
    pub fn peers_ode_count_messages();
    pub fn peers_ode_lcp_message_count() -> c_long;
    pub fn peers_thread_cpu_ns() -> std::os::raw::c_longlong;
}
