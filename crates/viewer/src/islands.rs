//! Islands for the viewer: dynamic bodies connected by the last step's contacts and by
//! joints, numbered in order of their first body.

use stiction::{BodyHandle, BodyKind, World};

use crate::scene::BodyIndex;

/// The island of each of `bodies`, numbered as the viewer's frames number them (from 0 in
/// order of each island's lowest body slot; `None` for a body in no island): what a run
/// directory records per body so that its playback can colour islands.
pub fn body_islands(world: &World, bodies: &[BodyHandle]) -> Vec<Option<u32>> {
    let index = BodyIndex::new(world);
    let all = islands(world, &index);
    bodies
        .iter()
        .map(|&h| index.of(h).and_then(|i| all[i]))
        .collect()
}

/// The island of each body (`None` for bodies in no contact or joint with another dynamic
/// body or the world, and for static and kinematic bodies), numbered from 0 in order of
/// each island's lowest body index.
pub(crate) fn islands(world: &World, index: &BodyIndex) -> Vec<Option<u32>> {
    let n = index.count;
    let mut parent: Vec<usize> = (0..n).collect();
    let mut linked = vec![false; n];
    let dynamic: Vec<bool> = world
        .bodies()
        .map(|(_, b)| b.kind() == BodyKind::Dynamic)
        .collect();
    let mut link = |a: Option<usize>, b: Option<usize>, parent: &mut Vec<usize>| {
        let a = a.filter(|&i| dynamic[i]);
        let b = b.filter(|&i| dynamic[i]);
        match (a, b) {
            (Some(a), Some(b)) => {
                linked[a] = true;
                linked[b] = true;
                let (ra, rb) = (find(parent, a), find(parent, b));
                if ra != rb {
                    parent[ra.max(rb)] = ra.min(rb);
                }
            }
            (Some(a), None) | (None, Some(a)) => linked[a] = true,
            (None, None) => {}
        }
    };
    for c in world.contacts() {
        let [a, b] = c.geometry.bodies;
        link(
            a.and_then(|h| index.of(h)),
            b.and_then(|h| index.of(h)),
            &mut parent,
        );
    }
    for (_, j) in world.joints() {
        if !j.enabled() || j.is_broken() {
            continue;
        }
        link(
            index.of(j.body_a()),
            j.body_b().and_then(|h| index.of(h)),
            &mut parent,
        );
    }
    let mut number = vec![None; n];
    let mut next = 0u32;
    let mut out = vec![None; n];
    for i in 0..n {
        if !linked[i] {
            continue;
        }
        let root = find(&mut parent, i);
        let id = *number[root].get_or_insert_with(|| {
            next += 1;
            next - 1
        });
        out[i] = Some(id);
    }
    out
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}
