//! A Shardy mesh indexed once for the shardings over it: its axes by name,
//! and the axes that split its devices (those of size above 1), so that
//! verifying and converting a sharding costs its own references, not a
//! scan of the mesh.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use crate::named::{AxisRef, Mesh, MeshDevices};
use crate::sdy::mesh::SdyMesh;
use crate::sdy::sharding::SdyAxisRef;

/// The index of one mesh.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MeshIndex {
    /// Each axis's position and size, by name (the first of a name).
    by_name: HashMap<String, (usize, i64)>,
    /// For each axis, its position among `split`, if it is there.
    kept: Vec<Option<usize>>,
    /// The axes of size above 1, in mesh order.
    split: Vec<(String, i64)>,
    /// The mesh's devices in XLA's named-sharding model.
    devices: MeshDevices,
    /// The device of a maximal mesh.
    pub(crate) maximal: Option<i64>,
    /// The position of the first axis whose name an earlier axis has.
    pub(crate) duplicate: Option<usize>,
}

impl MeshIndex {
    /// Indexes `mesh`.
    pub(crate) fn new(mesh: &SdyMesh) -> Self {
        let mut by_name = HashMap::with_capacity(mesh.axes.len());
        let mut kept = Vec::with_capacity(mesh.axes.len());
        let mut split = Vec::new();
        let mut duplicate = None;
        for (k, (name, size)) in mesh.axes.iter().enumerate() {
            match by_name.entry(name.clone()) {
                Entry::Occupied(_) => {
                    duplicate = duplicate.or(Some(k));
                }
                Entry::Vacant(slot) => {
                    slot.insert((k, *size));
                }
            }
            if *size == 1 {
                kept.push(None);
            } else {
                kept.push(Some(split.len()));
                split.push((name.clone(), *size));
            }
        }
        // An explicit list of ids in order is the plain iota.
        let devices = match &mesh.device_ids {
            Some(ids) if ids.iter().zip(0..).any(|(&id, k): (&i64, i64)| id != k) => {
                MeshDevices::List(ids.clone())
            }
            _ => MeshDevices::Iota,
        };
        Self {
            by_name,
            kept,
            split,
            devices,
            maximal: mesh.maximal_device(),
            duplicate,
        }
    }

    /// The position and size of axis `name`.
    pub(crate) fn get(&self, name: &str) -> Option<(usize, i64)> {
        self.by_name.get(name).copied()
    }

    /// The reference `r` over [`Self::split_mesh`]: `None` for an axis of
    /// size 1 (or one the mesh lacks).
    pub(crate) fn split_ref(&self, r: &SdyAxisRef) -> Option<AxisRef> {
        let (k, _) = self.get(&r.name)?;
        let axis = (*self.kept.get(k)?)?;
        Some(AxisRef { axis, sub: r.sub })
    }

    /// The mesh without its axes of size 1, which move no device: the
    /// conversion to XLA's form then costs what the axes that split the
    /// devices cost (at most 31 of them), however many axes the mesh has.
    pub(crate) fn split_mesh(&self) -> Mesh {
        Mesh {
            axes: self.split.clone(),
            devices: self.devices.clone(),
        }
    }
}
