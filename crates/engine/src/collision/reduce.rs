//! Contact point reduction: at most four points per manifold.
//!
//! parry's polygon clipping can give up to eight points for two coplanar faces (each
//! face's corners inside the other, in coincident pairs when the faces are aligned). Four
//! well-spread points support a face as well as eight, and the exact stepper's cost grows
//! with the cube of the row count, so (as ODE's box-box culling does) we keep four: the
//! extreme points of the contact patch along the four diagonals `+-u +-v` of a basis of
//! the contact plane fixed in collider A's frame.
//!
//! The choice must be **stable** from step to step, because each point carries its warm
//! start: among points within [`TIE`] of the extreme (coincident corners), the one parry
//! lists first wins, never the one roundoff happens to favour.

use crate::math::Vec3;
use crate::rows::parts::plane_basis;

/// Most points kept per manifold.
pub(crate) const MAX_POINTS: usize = 4;
/// Points whose extents differ by less than this (m) tie.
const TIE: f64 = 1e-6;

/// Writes into `keep` the indices of at most [`MAX_POINTS`] of `points` (witness points in
/// collider A's frame, `normal` the manifold normal in that frame) and returns how many.
/// All points are kept, in order, when there are no more than [`MAX_POINTS`].
#[inline(always)]
pub(crate) fn select(points: &[Vec3], normal: Vec3, keep: &mut [usize; MAX_POINTS]) -> usize {
    let n = points.len();
    if n <= MAX_POINTS {
        for (i, k) in keep.iter_mut().enumerate().take(n) {
            *k = i;
        }
        return n;
    }
    let (u, v) = plane_basis(normal);
    let mut kept = 0;
    for direction in [u + v, u - v, -u - v, -u + v] {
        let extent = points
            .iter()
            .fold(f64::NEG_INFINITY, |m, p| m.max(p.dot(direction)));
        let first = (0..n)
            .find(|&i| points[i].dot(direction) >= extent - TIE)
            .unwrap_or(0);
        if !keep[..kept].contains(&first) {
            keep[kept] = first;
            kept += 1;
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<Vec3>) -> Vec<Vec3> {
        v.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
        v
    }

    #[test]
    fn keeps_the_four_corners_of_a_face_and_the_first_of_coincident_points() {
        let corners = [
            Vec3::new(-0.5, -0.5, 0.0),
            Vec3::new(0.5, -0.5, 0.0),
            Vec3::new(0.5, 0.5, 0.0),
            Vec3::new(-0.5, 0.5, 0.0),
        ];
        // Every corner twice (the second copy off by roundoff), plus the centre.
        let mut points: Vec<Vec3> = corners.to_vec();
        points.extend(corners.iter().map(|c| *c * (1.0 + 1e-12)));
        points.push(Vec3::ZERO);
        let mut keep = [0; MAX_POINTS];
        assert_eq!(select(&points, Vec3::Z, &mut keep), 4);
        assert!(
            keep.iter().all(|&i| i < 4),
            "first copies win ties: {keep:?}"
        );
        let chosen: Vec<Vec3> = keep.iter().map(|&i| points[i]).collect();
        assert_eq!(sorted(chosen), sorted(corners.to_vec()));
        // Four or fewer: all kept, in order.
        assert_eq!(select(&points[..3], Vec3::Z, &mut keep), 3);
        assert_eq!(&keep[..3], &[0, 1, 2]);
    }

    #[test]
    fn a_rotated_patch_keeps_four_distinct_spread_points() {
        // An octagon (two squares at 45 degrees overlapping): four distinct points, each
        // the farthest along its diagonal.
        let points: Vec<Vec3> = (0..8)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / 8.0 + 0.1;
                Vec3::new(a.cos(), a.sin(), 0.0)
            })
            .collect();
        let mut keep = [0; MAX_POINTS];
        assert_eq!(select(&points, Vec3::Z, &mut keep), 4);
        let mut unique = keep.to_vec();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 4);
    }
}
