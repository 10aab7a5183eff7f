//! Generational storage behind the typed handles: a removed slot bumps its generation, so a
//! handle kept after removal is recognised as stale instead of silently naming a newer
//! object that reused the slot.

use std::fmt;

/// The slot index and generation a handle carries.
pub(crate) trait Handle: Copy {
    fn from_parts(index: u32, generation: u32) -> Self;
    fn index(self) -> u32;
    fn generation(self) -> u32;
}

macro_rules! handle_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name {
            index: u32,
            generation: u32,
        }

        impl $name {
            /// The slot index, stable for the handle's lifetime: dense per-step arrays are
            /// indexed by it.
            pub fn index(self) -> usize {
                self.index as usize
            }

            /// How many times the slot had been reused when this handle was issued.
            pub fn generation(self) -> u32 {
                self.generation
            }
        }

        impl Handle for $name {
            fn from_parts(index: u32, generation: u32) -> Self {
                Self { index, generation }
            }
            fn index(self) -> u32 {
                self.index
            }
            fn generation(self) -> u32 {
                self.generation
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({}v{})", stringify!($name), self.index, self.generation)
            }
        }
    };
}

handle_type!(
    /// Names a body of a [`crate::World`]. Stays valid until the body is removed; using it
    /// afterwards gives [`crate::WorldError::StaleBody`].
    BodyHandle
);
handle_type!(
    /// Names a joint of a [`crate::World`]. Stays valid until the joint (or one of its bodies)
    /// is removed; using it afterwards gives [`crate::WorldError::StaleJoint`].
    JointHandle
);
handle_type!(
    /// Names a collider of a [`crate::World`]. Stays valid until the collider (or its body)
    /// is removed; using it afterwards gives [`crate::WorldError::StaleCollider`].
    ColliderHandle
);

#[derive(Debug, Clone, PartialEq)]
struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Values addressed by generational handles `H`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Arena<T, H> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
    _handle: std::marker::PhantomData<H>,
}

impl<T, H: Handle> Default for Arena<T, H> {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            _handle: std::marker::PhantomData,
        }
    }
}

impl<T, H: Handle> Arena<T, H> {
    pub(crate) fn insert(&mut self, value: T) -> H {
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.value = Some(value);
            return H::from_parts(index, slot.generation);
        }
        let index = u32::try_from(self.slots.len()).unwrap_or(u32::MAX);
        self.slots.push(Slot {
            generation: 0,
            value: Some(value),
        });
        H::from_parts(index, 0)
    }

    pub(crate) fn remove(&mut self, handle: H) -> Option<T> {
        let slot = self.slots.get_mut(handle.index() as usize)?;
        if slot.generation != handle.generation() {
            return None;
        }
        let value = slot.value.take()?;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(handle.index());
        self.live -= 1;
        Some(value)
    }

    pub(crate) fn get(&self, handle: H) -> Option<&T> {
        let slot = self.slots.get(handle.index() as usize)?;
        (slot.generation == handle.generation())
            .then_some(slot.value.as_ref())
            .flatten()
    }

    pub(crate) fn get_mut(&mut self, handle: H) -> Option<&mut T> {
        let slot = self.slots.get_mut(handle.index() as usize)?;
        (slot.generation == handle.generation())
            .then_some(slot.value.as_mut())
            .flatten()
    }

    /// Number of slots ever used: per-slot arrays need this length.
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Number of live values.
    pub(crate) fn len(&self) -> usize {
        self.live
    }

    /// The value in slot `index`, if live.
    pub(crate) fn slot(&self, index: usize) -> Option<&T> {
        self.slots.get(index).and_then(|s| s.value.as_ref())
    }

    /// The value in slot `index`, if live.
    pub(crate) fn slot_mut(&mut self, index: usize) -> Option<&mut T> {
        self.slots.get_mut(index).and_then(|s| s.value.as_mut())
    }

    /// Live values with their handles, in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (H, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.value
                .as_ref()
                .map(|v| (H::from_parts(i as u32, s.generation), v))
        })
    }

    /// Every slot's generation and value, and the free list in the order `insert` pops it
    /// (for snapshots, which must reproduce future handles too).
    pub(crate) fn raw_parts(&self) -> (impl Iterator<Item = (u32, Option<&T>)>, &[u32]) {
        let slots = self.slots.iter().map(|s| (s.generation, s.value.as_ref()));
        (slots, &self.free)
    }

    /// The arena [`Self::raw_parts`] describes. Fails (naming the broken rule) unless the
    /// free list holds exactly the empty slots, once each.
    pub(crate) fn from_raw_parts(
        slots: Vec<(u32, Option<T>)>,
        free: Vec<u32>,
    ) -> Result<Self, &'static str> {
        if u32::try_from(slots.len()).is_err() {
            return Err("too many slots");
        }
        let mut listed = vec![false; slots.len()];
        for &index in &free {
            match slots.get(index as usize) {
                None => return Err("a free-list entry is past the last slot"),
                Some((_, Some(_))) => return Err("a free-list entry names an occupied slot"),
                Some((_, None)) if listed[index as usize] => {
                    return Err("a free-list entry appears twice")
                }
                Some((_, None)) => listed[index as usize] = true,
            }
        }
        let live = slots.iter().filter(|(_, v)| v.is_some()).count();
        if live + free.len() != slots.len() {
            return Err("an empty slot is missing from the free list");
        }
        Ok(Self {
            slots: slots
                .into_iter()
                .map(|(generation, value)| Slot { generation, value })
                .collect(),
            free,
            live,
            _handle: std::marker::PhantomData,
        })
    }

    /// The handle of the live value in slot `index`.
    pub(crate) fn handle_at(&self, index: usize) -> Option<H> {
        let slot = self.slots.get(index)?;
        slot.value
            .as_ref()
            .map(|_| H::from_parts(index as u32, slot.generation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_handles_go_stale_even_when_the_slot_is_reused() {
        let mut arena: Arena<&str, BodyHandle> = Arena::default();
        let a = arena.insert("a");
        let b = arena.insert("b");
        assert_eq!(arena.remove(a), Some("a"));
        assert_eq!(arena.get(a), None);
        assert_eq!(arena.remove(a), None);
        let c = arena.insert("c");
        assert_eq!(c.index(), a.index());
        assert_ne!(c, a);
        assert_eq!(arena.get(a), None);
        assert_eq!(arena.get(c), Some(&"c"));
        assert_eq!(arena.get(b), Some(&"b"));
        assert_eq!(arena.len(), 2);
        assert_eq!(arena.capacity(), 2);
        let order: Vec<_> = arena.iter().map(|(_, v)| *v).collect();
        assert_eq!(order, ["c", "b"]);
    }
}
