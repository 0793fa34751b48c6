//! [`std::fmt::Display`] for [`HloSharding`], as XLA's `HloSharding::ToString`
//! (without metadata, as `xla_client.HloSharding.to_string` prints).

use std::fmt;

use crate::sharding::{HloSharding, Kind, ShardGroup};

impl fmt::Display for ShardGroup {
    /// ` shard_as 1` or ` shard_like 1` (with the leading space, as XLA).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::As(id) => write!(f, " shard_as {id}"),
            Self::Like(id) => write!(f, " shard_like {id}"),
        }
    }
}

impl fmt::Display for HloSharding {
    /// XLA's canonical text: `{replicated}`, `{maximal device=3}`,
    /// `{devices=[2,4]<=[8] last_tile_dim_replicate shard_as 1}`,
    /// `{{replicated}, {manual}}` (every fifth element of a tuple after the
    /// first marked `/*index=5*/`, as XLA does).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(named) = &self.named {
            return write!(f, "{named}");
        }
        let group = self.shard_group.map(|g| g.to_string()).unwrap_or_default();
        match &self.kind {
            Kind::Tuple(elements) => {
                f.write_str("{")?;
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                        if i % 5 == 0 {
                            write!(f, "/*index={i}*/")?;
                        }
                    }
                    write!(f, "{e}")?;
                }
                f.write_str("}")
            }
            Kind::Replicated => write!(f, "{{replicated{group}}}"),
            Kind::Manual => write!(f, "{{manual{group}}}"),
            Kind::Unknown => write!(f, "{{unknown{group}}}"),
            Kind::Unreduced => write!(f, "{{unreduced{group}}}"),
            Kind::Maximal(device) => write!(f, "{{maximal device={device}{group}}}"),
            Kind::Tiled {
                tiles,
                replicate_on_last_tile_dim,
                subgroups,
            } => {
                write!(f, "{{{tiles}")?;
                if *replicate_on_last_tile_dim {
                    f.write_str(" last_tile_dim_replicate")?;
                }
                if !subgroups.is_empty() {
                    let names: Vec<&str> = subgroups.iter().map(|t| t.name()).collect();
                    write!(f, " last_tile_dims={{{}}}", names.join(", "))?;
                }
                write!(f, "{group}}}")
            }
        }
    }
}
