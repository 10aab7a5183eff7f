//! ODE's own Dantzig solver (`dxSolveLCP`) on a [`BoxedLcp`], through shim/ode_shim.cpp.

use super::ffi::{
    peers_ode_lcp_arena_free, peers_ode_lcp_arena_new, peers_ode_lcp_solve, peers_ode_pad,
};
use std::os::raw::{c_int, c_uint, c_void};
use stiction_lcp::BoxedLcp;

/// ODE's solver with its arena and its problem arrays in ODE's layout.
pub struct OdeLcp {
    arena: *mut c_void,
    n: usize,
    nub: usize,
    stride: usize,
    a: Vec<f64>,
    pairs_bx: Vec<f64>,
    pairs_lh: Vec<f64>,
    w: Vec<f64>,
    findex: Vec<c_int>,
}

impl OdeLcp {
    /// A solver for problems of `n` rows, or `None` if the shim does not recognise the arena
    /// libode makes (then ODE's LCP solver cannot be called reliably).
    pub fn new(n: usize) -> Option<Self> {
        let rows = c_uint::try_from(n).ok()?;
        super::world::init_ode();
        // SAFETY: the shim returns null or an arena it checked.
        let arena = unsafe { peers_ode_lcp_arena_new(rows) };
        if arena.is_null() {
            return None;
        }
        // SAFETY: pure arithmetic in the shim.
        let stride = unsafe { peers_ode_pad(rows) } as usize;
        Some(Self {
            arena,
            n,
            nub: 0,
            stride,
            a: vec![0.0; n * stride],
            pairs_bx: vec![0.0; 2 * n],
            pairs_lh: vec![0.0; 2 * n],
            w: vec![0.0; n],
            findex: vec![-1; n],
        })
    }

    /// Copies `p` into ODE's layout (ODE permutes and overwrites its arrays, so every solve
    /// needs a fresh copy): `A` with row stride dPAD(n), (b, x) and (lo, hi) pairs, friction
    /// rows with `lo = -mu`, `hi = mu` and `findex` the normal row.
    pub fn load(&mut self, p: &BoxedLcp) -> Result<(), String> {
        if p.len() != self.n {
            return Err(format!("problem has {} rows, solver {}", p.len(), self.n));
        }
        for i in 0..self.n {
            self.a[i * self.stride..i * self.stride + self.n].copy_from_slice(p.a.row(i));
            self.pairs_bx[2 * i] = p.b[i];
            self.pairs_bx[2 * i + 1] = 0.0;
            let (lo, hi) = match p.findex[i] {
                Some(_) => (-p.hi[i], p.hi[i]),
                None => (p.lo[i], p.hi[i]),
            };
            self.pairs_lh[2 * i] = lo;
            self.pairs_lh[2 * i + 1] = hi;
            self.findex[i] = p.findex[i].map_or(-1, |j| j as c_int);
        }
        self.w.fill(0.0);
        self.nub = p.nub;
        Ok(())
    }

    /// Solves the loaded problem in place.
    pub fn solve_loaded(&mut self) -> Result<(), String> {
        // SAFETY: every array has the size the arena and ODE expect for `n` rows.
        let status = unsafe {
            peers_ode_lcp_solve(
                self.arena,
                self.n as c_uint,
                self.a.as_mut_ptr(),
                self.pairs_bx.as_mut_ptr(),
                self.w.as_mut_ptr(),
                self.nub as c_uint,
                self.pairs_lh.as_mut_ptr(),
                self.findex.as_mut_ptr(),
            )
        };
        if status == 0 {
            Ok(())
        } else {
            Err("ODE overran its LCP arena".into())
        }
    }

    /// The solution of the last solve, in the problem's row order.
    pub fn x(&self) -> Vec<f64> {
        (0..self.n).map(|i| self.pairs_bx[2 * i + 1]).collect()
    }
}

impl Drop for OdeLcp {
    fn drop(&mut self) {
        // SAFETY: the arena came from the shim and is freed once.
        unsafe { peers_ode_lcp_arena_free(self.arena) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ode::ffi::peers_ode_lcp_message_count;
    use stiction::lcp::generate::box_stack_problem;
    use stiction::lcp::{boxed_residual, DenseMatrix};

    fn solve(p: &BoxedLcp) -> Vec<f64> {
        let mut ode = OdeLcp::new(p.len()).expect("libode 0.16's arena is recognised");
        ode.load(p).unwrap();
        ode.solve_loaded().unwrap();
        ode.x()
    }

    #[test]
    fn ode_solves_a_box_on_the_ground_like_the_closed_form() {
        // One unit cube at rest, four corner contacts: each normal carries 9.81 / 4 N (less a
        // hair for the CFM), no friction.
        let p = box_stack_problem(1, 0.5, 6e-4);
        let x = solve(&p);
        for contact in 0..4 {
            assert!((x[3 * contact] - 9.81 / 4.0).abs() < 1e-3, "{x:?}");
            assert_eq!((x[3 * contact + 1], x[3 * contact + 2]), (0.0, 0.0));
        }
        let w = p.slack(&x);
        assert!(boxed_residual(&p, &x, &w).max() < 1e-12);
    }

    #[test]
    fn ode_and_the_all_unbounded_solve_agree_with_the_hand_answer() {
        // [[2, 1], [1, 2]] x = [5, 6] unbounded: x = (4/3, 7/3); padded stride 4 in ODE.
        let a = DenseMatrix::from_rows(&[[2.0, 1.0], [1.0, 2.0]]).unwrap();
        let mut p = BoxedLcp::new(a, vec![5.0, 6.0]);
        p.nub = 2;
        p.lo.fill(f64::NEG_INFINITY);
        let x = solve(&p);
        assert!((x[0] - 4.0 / 3.0).abs() < 1e-14 && (x[1] - 7.0 / 3.0).abs() < 1e-14);
    }

    #[test]
    fn ode_gives_up_on_a_five_box_stack_and_says_so() {
        // ODE's `s <= 0` exit on the redundant coplanar contacts of a stack: it zeroes the
        // rows it had not reached and reports d_ERR_LCP through dMessage.
        let p = box_stack_problem(5, 0.5, 6e-4);
        // SAFETY: reads a counter.
        let before = unsafe { peers_ode_lcp_message_count() };
        let x = solve(&p);
        let after = unsafe { peers_ode_lcp_message_count() };
        assert_eq!(after - before, 1);
        let w = p.slack(&x);
        assert!(boxed_residual(&p, &x, &w).max() > 0.1);
    }
}
