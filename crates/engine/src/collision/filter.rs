//! Collision filtering by groups and masks (Rapier's interaction groups, ODE's category and
//! collide bits).

/// Which groups a collider belongs to and which groups it collides with, as 32-bit masks.
///
/// Two colliders `a` and `b` are tested for contact only if each is in a group the other
/// accepts: `a.memberships & b.filter != 0 && b.memberships & a.filter != 0`. The default
/// belongs to every group and accepts every group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CollisionGroups {
    /// The groups this collider belongs to (bit `i` set: member of group `i`).
    pub memberships: u32,
    /// The groups this collider can collide with.
    pub filter: u32,
}

impl Default for CollisionGroups {
    fn default() -> Self {
        Self::ALL
    }
}

impl CollisionGroups {
    /// Member of every group, collides with every group (the default).
    pub const ALL: Self = Self {
        memberships: u32::MAX,
        filter: u32::MAX,
    };

    /// Member of no group, collides with nothing.
    pub const NONE: Self = Self {
        memberships: 0,
        filter: 0,
    };

    /// Groups from explicit masks.
    pub const fn new(memberships: u32, filter: u32) -> Self {
        Self {
            memberships,
            filter,
        }
    }

    /// Whether colliders with these groups and `other` may collide (the rule is symmetric).
    pub const fn interacts_with(self, other: Self) -> bool {
        self.memberships & other.filter != 0 && other.memberships & self.filter != 0
    }
}

#[cfg(test)]
mod tests {
    use super::CollisionGroups;

    #[test]
    fn both_sides_must_accept_each_other() {
        let debris = CollisionGroups::new(0b01, 0b10);
        let walls = CollisionGroups::new(0b10, 0b11);
        let ghosts = CollisionGroups::new(0b100, 0b000);
        assert!(debris.interacts_with(walls) && walls.interacts_with(debris));
        // Debris does not accept its own group.
        assert!(!debris.interacts_with(debris));
        // Walls accept ghosts, but ghosts accept nobody.
        assert!(!walls.interacts_with(ghosts) && !ghosts.interacts_with(walls));
        assert!(CollisionGroups::ALL.interacts_with(CollisionGroups::default()));
        assert!(!CollisionGroups::NONE.interacts_with(CollisionGroups::ALL));
    }
}
