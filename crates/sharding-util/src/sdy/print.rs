//! Shardy's text, printed as Shardy prints it.

use std::fmt::{self, Display, Formatter, Write};

use crate::sdy::mesh::SdyMesh;
use crate::sdy::sharding::{MeshRef, SdyAxisRef, SdyDim, SdySharding, SdyShardingPerValue};

/// A string literal as MLIR prints it (`"`, `\` and unprintable bytes as
/// `\XX`).
pub(crate) fn quoted(name: &str) -> String {
    let mut out = String::from("\"");
    for b in name.bytes() {
        if b == b'\\' {
            out.push_str("\\\\");
        } else if (0x20..0x7f).contains(&b) && b != b'"' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "\\{b:02X}");
        }
    }
    out.push('"');
    out
}

/// A symbol name after `@`: bare when it is an identifier, else quoted.
pub(crate) fn symbol(name: &str) -> String {
    let mut bytes = name.bytes();
    let ident = bytes
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, b'_' | b'$'))
        && bytes.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-'));
    if ident {
        name.to_string()
    } else {
        quoted(name)
    }
}

fn list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl SdyMesh {
    /// The mesh's `<...>` body.
    fn body(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("<[")?;
        for (k, (name, size)) in self.axes.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}={size}", quoted(name))?;
        }
        f.write_str("]")?;
        if let Some(ids) = &self.device_ids {
            f.write_str(", device_ids=[")?;
            list(f, ids)?;
            f.write_str("]")?;
        }
        f.write_str(">")
    }

    /// The mesh as a module's `sdy.mesh @name = <...>` line (`@mesh` when
    /// it has no name).
    pub fn line(&self) -> String {
        struct Body<'a>(&'a SdyMesh);
        impl Display for Body<'_> {
            fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
                self.0.body(f)
            }
        }
        let name = symbol(self.name.as_deref().unwrap_or("mesh"));
        format!("sdy.mesh @{name} = {}", Body(self))
    }
}

impl Display for SdyMesh {
    /// `#sdy.mesh<["a"=2, "b"=4]>`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("#sdy.mesh")?;
        self.body(f)
    }
}

impl Display for SdyAxisRef {
    /// `"a"` or `"a":(2)4`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(&quoted(&self.name))?;
        if let Some((pre, size)) = self.sub {
            write!(f, ":({pre}){size}")?;
        }
        Ok(())
    }
}

impl Display for SdyDim {
    /// `{"a", ?}p1`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        list(f, &self.axes)?;
        if !self.closed {
            f.write_str(if self.axes.is_empty() { "?" } else { ", ?" })?;
        }
        f.write_str("}")?;
        if let Some(p) = self.priority {
            write!(f, "p{p}")?;
        }
        Ok(())
    }
}

impl SdySharding {
    /// The `<...>` body, as `#sdy.sharding_per_value` lists it.
    fn body(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("<")?;
        match &self.mesh {
            MeshRef::Symbol(name) => write!(f, "@{}", symbol(name))?,
            MeshRef::Inline(mesh) => {
                f.write_str("mesh")?;
                mesh.body(f)?;
            }
        }
        f.write_str(", [")?;
        list(f, &self.dims)?;
        f.write_str("]")?;
        for (word, axes) in [
            ("replicated", &self.replicated),
            ("unreduced", &self.unreduced),
        ] {
            if !axes.is_empty() {
                write!(f, ", {word}={{")?;
                list(f, axes)?;
                f.write_str("}")?;
            }
        }
        f.write_str(">")
    }
}

impl Display for SdySharding {
    /// `#sdy.sharding<@mesh, [{"a"}, {}]>`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("#sdy.sharding")?;
        self.body(f)
    }
}

impl Display for SdyShardingPerValue {
    /// `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("#sdy.sharding_per_value<[")?;
        for (k, s) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            s.body(f)?;
        }
        f.write_str("]>")
    }
}
