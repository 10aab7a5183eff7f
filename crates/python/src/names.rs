//! Bodies and joints as Python sees them: an index in the order they were added (the row
//! of every state array) and an optional name, mapped to and from the engine's handles.

use std::collections::HashMap;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use stiction::{BodyHandle, ColliderHandle, JointHandle, World, WorldError};

use crate::errors::WorldError as PyWorldError;

/// Handles in index order, their names, and the way back from a handle's arena slot.
#[derive(Debug, Clone)]
pub struct Registry<H> {
    /// The engine handle of each index.
    pub handles: Vec<H>,
    /// The name of each index (`None`: unnamed).
    pub names: Vec<Option<String>>,
    by_name: HashMap<String, usize>,
    /// Index by arena slot (`usize::MAX`: none).
    by_slot: Vec<usize>,
}

impl<H> Default for Registry<H> {
    fn default() -> Self {
        Self {
            handles: Vec::new(),
            names: Vec::new(),
            by_name: HashMap::new(),
            by_slot: Vec::new(),
        }
    }
}

/// What a registry needs of a handle.
pub trait Slot: Copy {
    /// The arena slot.
    fn slot(self) -> usize;
}

impl Slot for BodyHandle {
    fn slot(self) -> usize {
        self.index()
    }
}

impl Slot for JointHandle {
    fn slot(self) -> usize {
        self.index()
    }
}

impl Slot for ColliderHandle {
    fn slot(self) -> usize {
        self.index()
    }
}

impl<H: Slot + PartialEq> Registry<H> {
    /// Adds `handle` under `name`; refuses a name already taken (before anything changes).
    pub fn check_name(&self, name: Option<&str>, kind: &str) -> PyResult<()> {
        match name {
            Some(n) if self.by_name.contains_key(n) => Err(PyWorldError::new_err(format!(
                "a {kind} named `{n}` already exists"
            ))),
            Some("") => Err(PyWorldError::new_err(format!(
                "a {kind} name must not be empty"
            ))),
            _ => Ok(()),
        }
    }

    /// Appends `handle` (its name checked by [`Self::check_name`]); returns its index.
    pub fn push(&mut self, handle: H, name: Option<String>) -> usize {
        let index = self.handles.len();
        if let Some(n) = &name {
            self.by_name.insert(n.clone(), index);
        }
        let slot = handle.slot();
        if self.by_slot.len() <= slot {
            self.by_slot.resize(slot + 1, usize::MAX);
        }
        self.by_slot[slot] = index;
        self.handles.push(handle);
        self.names.push(name);
        index
    }

    /// Unnamed `handles`, indexed in the order given.
    pub fn of_handles(handles: impl IntoIterator<Item = H>) -> Self {
        let mut registry = Self::default();
        for handle in handles {
            registry.push(handle, None);
        }
        registry
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    /// The index of `handle`, if it is registered.
    pub fn index_of(&self, handle: H) -> Option<usize> {
        let i = *self.by_slot.get(handle.slot())?;
        (self.handles.get(i) == Some(&handle)).then_some(i)
    }

    /// The handle an index (int) or name (str) argument names.
    pub fn resolve(&self, obj: &Bound<'_, PyAny>, kind: &str) -> PyResult<H> {
        if let Ok(name) = obj.extract::<String>() {
            return match self.by_name.get(&name) {
                Some(&i) => Ok(self.handles[i]),
                None => Err(PyWorldError::new_err(format!(
                    "no {kind} named `{name}`{}",
                    self.known_names()
                ))),
            };
        }
        let index: i64 = obj.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "a {kind} is given by its index (int) or name (str)"
            ))
        })?;
        usize::try_from(index)
            .ok()
            .and_then(|i| self.handles.get(i).copied())
            .ok_or_else(|| {
                PyWorldError::new_err(match self.len() {
                    0 => format!("no {kind} {index}: the world has none"),
                    n => format!("no {kind} {index}: indices run from 0 to {}", n - 1),
                })
            })
    }

    /// Index of an index-or-name argument.
    pub fn resolve_index(&self, obj: &Bound<'_, PyAny>, kind: &str) -> PyResult<usize> {
        let handle = self.resolve(obj, kind)?;
        Ok(self.index_of(handle).unwrap_or(usize::MAX))
    }

    /// ` (named: a, b, c)` for a message, or nothing.
    fn known_names(&self) -> String {
        let mut names: Vec<&str> = self.names.iter().flatten().map(String::as_str).collect();
        if names.is_empty() {
            return String::new();
        }
        names.truncate(20);
        format!(" (named: {})", names.join(", "))
    }

    /// How a message names the element of `handle`: `` `name` ``, its index, or the
    /// engine's handle for one this world never registered.
    pub fn describe(&self, handle: H) -> String
    where
        H: std::fmt::Debug,
    {
        match self.index_of(handle) {
            Some(i) => match &self.names[i] {
                Some(n) => format!("`{n}`"),
                None => i.to_string(),
            },
            None => format!("{handle:?}"),
        }
    }
}

/// Both registries of a world.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// Bodies.
    pub bodies: Registry<BodyHandle>,
    /// Joints.
    pub joints: Registry<JointHandle>,
}

impl Names {
    /// Every body and joint of `world` in arena-slot order, which is the order they were
    /// added in a world that never removed one (scene files, snapshots of them), named by
    /// `body_names` and `joint_names` where given.
    pub fn of_world(
        world: &World,
        body_names: &[Option<String>],
        joint_names: &[Option<String>],
    ) -> Self {
        let mut names = Names::default();
        for (i, (handle, _)) in world.bodies().enumerate() {
            let name = body_names.get(i).cloned().flatten();
            let name = name.filter(|n| names.bodies.check_name(Some(n), "body").is_ok());
            names.bodies.push(handle, name);
        }
        for (i, (handle, _)) in world.joints().enumerate() {
            let name = joint_names.get(i).cloned().flatten();
            let name = name.filter(|n| names.joints.check_name(Some(n), "joint").is_ok());
            names.joints.push(handle, name);
        }
        names
    }

    /// A refused step in the world's own words: the engine's message with bodies and joints
    /// by name (or index) instead of the engine's handles, as `stiction run` words it.
    pub fn describe_step_error(&self, error: &WorldError) -> String {
        match error {
            WorldError::NonFinite {
                phase,
                body: Some(handle),
            } => format!(
                "non-finite value during the {phase} phase (body {})",
                self.bodies.describe(*handle)
            ),
            WorldError::NonFinite { phase, body: None } => {
                format!("non-finite value during the {phase} phase")
            }
            WorldError::Integration { body, source } => format!(
                "integration of body {} failed: {source}",
                self.bodies.describe(*body)
            ),
            WorldError::StaleBody(handle) => format!(
                "body {} is no longer in the world",
                self.bodies.describe(*handle)
            ),
            WorldError::StaleJoint(handle) => format!(
                "joint {} is no longer in the world",
                self.joints.describe(*handle)
            ),
            other => other.to_string(),
        }
    }
}
