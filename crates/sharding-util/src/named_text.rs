//! The text of named (mesh-axes) shardings, as XLA 0.12 parses and prints
//! it: `{mesh['x'=2,'y'=4], device_ids=(...), [{'y', 'x'}, {?}],
//! replicated={...}, unreduced=max{...}, manual={...}}`.

use std::fmt;

use schema::OpMetadata;

use crate::cursor::{Parsed, Parser};
use crate::lex::Token;
use crate::named::{AxisRef, DimSharding, Mesh, MeshDevices, NamedSharding};
use crate::reduction::Reduction;
use crate::sharding::HloSharding;
use crate::tile_assignment::{Devices, TileAssignment, join};

impl fmt::Display for Mesh {
    /// `mesh['x'=2,'y'=4]`, then `, device_ids=(...)` unless the devices
    /// are in mesh order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let axes: Vec<String> = self
            .axes
            .iter()
            .map(|(n, s)| format!("'{n}'={s}"))
            .collect();
        write!(f, "mesh[{}]", axes.join(","))?;
        match &self.devices {
            MeshDevices::Iota => Ok(()),
            MeshDevices::Transposed { reshape, perm } => {
                write!(f, ", device_ids=([{}]T({}))", join(reshape), join(perm))
            }
            MeshDevices::List(ids) => write!(f, ", device_ids=({})", join(ids)),
        }
    }
}

impl fmt::Display for NamedSharding {
    /// XLA's text: axis names quoted, `{'y', 'x'}` with a space, trivial
    /// device ids and empty axis lists left out, `replicated` for a mesh
    /// that splits nothing, a reduction other than a sum after
    /// `unreduced=` (`unreduced=max{'x'}`, or `unreduced=max` for the
    /// whole mesh).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}", self.mesh)?;
        let refs = |list: &[AxisRef]| -> String {
            list.iter()
                .map(|r| self.axis_text(r))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if let Some(word) = self.whole_mesh_word() {
            return write!(f, ", {word}}}");
        }
        let dims: Vec<String> = self
            .dims
            .iter()
            .map(|d| match (d.axes.is_empty(), d.closed) {
                (_, true) => format!("{{{}}}", refs(&d.axes)),
                (true, false) => "{?}".to_string(),
                (false, false) => format!("{{{}, ?}}", refs(&d.axes)),
            })
            .collect();
        write!(f, ", [{}]", dims.join(", "))?;
        for (name, op, list) in [
            ("replicated", "", &self.replicated),
            ("unreduced", self.reduction_word(), &self.unreduced),
            ("manual", "", &self.manual),
        ] {
            if !list.is_empty() {
                write!(f, ", {name}={op}{{{}}}", refs(list))?;
            }
        }
        f.write_str("}")
    }
}

/// Full references to every axis of `mesh`, in order.
fn every_axis(mesh: &Mesh) -> Vec<AxisRef> {
    (0..mesh.axes.len())
        .map(|axis| AxisRef { axis, sub: None })
        .collect()
}

impl NamedSharding {
    /// The one-word form XLA prints for a sharding that splits no
    /// dimension (none listed): `replicated` when it uses no axis at all;
    /// `unreduced` when its unreduced axes span every device (axes of size
    /// 1 left over are dropped), with its reduction unless a sum, and with
    /// the axes unless they are every axis (`unreduced=max{'a'}`);
    /// `manual` when its manual axes span every device.
    fn whole_mesh_word(&self) -> Option<String> {
        if !self.dims.is_empty() {
            return None;
        }
        let every_device = |list: &[AxisRef]| {
            !list.is_empty()
                && list
                    .iter()
                    .try_fold(1i64, |acc, r| acc.checked_mul(self.ref_size(r)))
                    == Some(self.total())
        };
        if self.replicated.is_empty() && self.unreduced.is_empty() && self.manual.is_empty() {
            return Some("replicated".to_string());
        }
        if every_device(&self.unreduced) {
            let op = match self.reduction_word() {
                "" => String::new(),
                word => format!("={word}"),
            };
            let axes = if self.unreduced == every_axis(&self.mesh) {
                String::new()
            } else {
                let refs: Vec<String> = self.unreduced.iter().map(|r| self.axis_text(r)).collect();
                format!("{{{}}}", refs.join(", "))
            };
            return Some(format!("unreduced{op}{axes}"));
        }
        every_device(&self.manual).then(|| "manual".to_string())
    }

    /// `max` or `min` as XLA writes it after `unreduced=`; nothing for a sum.
    fn reduction_word(&self) -> &'static str {
        match self.reduction {
            Reduction::Sum => "",
            r => r.text(),
        }
    }
}

impl Parser {
    /// A named sharding, at `mesh` (after the opening brace), through its
    /// closing brace.
    pub(crate) fn named(&mut self) -> Parsed<HloSharding> {
        let start = self.at;
        self.bump();
        let axes = self.mesh_axes()?;
        let comma = self.eat(b',');
        let mut devices = MeshDevices::Iota;
        if comma && *self.peek() == Token::Attr("device_ids".to_string()) {
            self.bump();
            devices = self.mesh_device_ids(&axes, start)?;
            self.eat(b',');
        }
        let mut named = NamedSharding {
            mesh: Mesh { axes, devices },
            dims: Vec::new(),
            replicated: Vec::new(),
            unreduced: Vec::new(),
            manual: Vec::new(),
            reduction: Reduction::Sum,
        };
        let keyword = self.named_body(&mut named)?;
        let metadata = self.named_attributes(&mut named, keyword)?;
        self.bump();
        HloSharding::from_named(named, metadata).map_err(|e| self.error_at(start, e.message()))
    }

    /// `["x"=2, ...]`: the mesh's axes, names and sizes.
    fn mesh_axes(&mut self) -> Parsed<Vec<(String, i64)>> {
        self.expect(b'[', "expected '[' after mesh")?;
        let mut axes: Vec<(String, i64)> = Vec::new();
        if *self.peek() != Token::Punct(b']') {
            loop {
                let name = self.quoted()?;
                if *self.peek() != Token::Bad('=') {
                    return Err(self.error("expects '=' after axis name"));
                }
                self.bump();
                axes.push((name, self.int()?));
                if !self.eat(b',') {
                    break;
                }
            }
        }
        self.expect(b']', "expected ']' to end mesh axes")?;
        Ok(axes)
    }

    /// `(ids...)` or `([reshape]T(perm))` after `device_ids=`: the mesh's
    /// devices, as many as its `axes` hold (errors of the iota at `start`).
    fn mesh_device_ids(&mut self, axes: &[(String, i64)], start: usize) -> Parsed<MeshDevices> {
        self.expect(b'(', "expected '(' for device_ids")?;
        let mut reshape_perm = None;
        let mut ids = Vec::new();
        if *self.peek() == Token::Punct(b'[') {
            reshape_perm = Some(self.iota()?);
        } else {
            ids = self.int_list()?;
        }
        self.expect(b')', "expected ')' to end device_ids")?;
        let total = axes
            .iter()
            .try_fold(1i64, |acc, (_, s)| acc.checked_mul(*s))
            .unwrap_or(i64::MAX);
        let devices = match reshape_perm {
            Some((reshape, perm)) => {
                let perm = perm
                    .iter()
                    .map(|&p| usize::try_from(p).unwrap_or(usize::MAX))
                    .collect();
                let size = reshape
                    .iter()
                    .try_fold(1i64, |acc, &d| acc.checked_mul(d))
                    .unwrap_or(i64::MAX);
                if size != total {
                    return Err(self.error(format!(
                            "mesh device_ids iota size {size} does not match the product of the mesh axis sizes {total}"
                        )));
                }
                let tiles = TileAssignment::iota(vec![total.max(1)], reshape, perm)
                    .map_err(|e| self.error_at(start, e.message()))?;
                match tiles.devices() {
                    Devices::Iota(iota) if iota.reshape_dims().len() > 1 => {
                        MeshDevices::Transposed {
                            reshape: iota.reshape_dims().to_vec(),
                            perm: iota.transpose_perm().to_vec(),
                        }
                    }
                    _ => MeshDevices::Iota,
                }
            }
            None => {
                if i64::try_from(ids.len()).ok() != Some(total) {
                    return Err(self.error(format!(
                        "Expected {total} device_ids based on mesh axes, but got {}",
                        ids.len()
                    )));
                }
                MeshDevices::List(ids)
            }
        };
        Ok(devices)
    }

    /// The sharding's body after its mesh: a one-word form (`replicated`,
    /// `unreduced`, `manual`; true) or the list of dimension shardings.
    fn named_body(&mut self, named: &mut NamedSharding) -> Parsed<bool> {
        let word = match self.peek() {
            Token::Ident(w) if ["replicated", "unreduced", "manual"].contains(&w.as_str()) => {
                Some(w.clone())
            }
            Token::Attr(w) if w == "unreduced" => Some(w.clone()),
            _ => None,
        };
        let keyword = word.is_some();
        if let Some(word) = word {
            let with_op = matches!(self.peek(), Token::Attr(_));
            self.bump();
            match word.as_str() {
                // `unreduced=max`, or `unreduced=max{'x'}` naming the axes.
                "unreduced" if with_op => {
                    named.reduction = self.reduction_op()?;
                    named.unreduced = if *self.peek() == Token::Punct(b'{') {
                        self.axis_list(&named.mesh)?
                    } else {
                        every_axis(&named.mesh)
                    };
                }
                // `unreduced{'x'}`, as XLA prints some, names the axes.
                "unreduced" if *self.peek() == Token::Punct(b'{') => {
                    named.unreduced = self.axis_list(&named.mesh)?;
                }
                "unreduced" => named.unreduced = every_axis(&named.mesh),
                "manual" => named.manual = every_axis(&named.mesh),
                _ => {}
            }
        } else {
            self.expect(b'[', "expects a list starting with kLsquare")?;
            if *self.peek() != Token::Punct(b']') {
                loop {
                    let dim = self.dim_sharding(&named.mesh)?;
                    named.dims.push(dim);
                    if !self.eat(b',') {
                        break;
                    }
                }
            }
            self.expect(b']', "expects a list to end with kRsquare")?;
        }
        Ok(keyword)
    }

    /// The attributes after the body, through (not past) the closing
    /// brace: the axes `replicated`, `unreduced` or `manual` add to
    /// `named`, and the metadata returned (all that may follow a one-word
    /// form, `keyword`).
    fn named_attributes(
        &mut self,
        named: &mut NamedSharding,
        keyword: bool,
    ) -> Parsed<Vec<OpMetadata>> {
        let mut metadata: Vec<OpMetadata> = Vec::new();
        while *self.peek() != Token::Punct(b'}') {
            self.expect(b',', "expected ',' before next attribute")?;
            let Token::Attr(name) = self.peek().clone() else {
                return Err(self.error("expects attribute name"));
            };
            // After a one-word form (`replicated`, ...) XLA reads only
            // metadata (jaxlib 0.12.0.1: a syntax error otherwise).
            if keyword && name != "metadata" {
                return Err(
                    self.error("expects only metadata after `replicated`, `unreduced` or `manual`")
                );
            }
            self.bump();
            match name.as_str() {
                // A repeated attribute adds to the list (XLA then finds the
                // axes overlapping).
                "replicated" => {
                    let more = self.axis_list(&named.mesh)?;
                    named.replicated.extend(more);
                }
                "unreduced" => {
                    // `unreduced=max{...}`: the last reduction given wins.
                    if matches!(self.peek(), Token::Ident(_)) {
                        named.reduction = self.reduction_op()?;
                    }
                    let more = self.axis_list(&named.mesh)?;
                    named.unreduced.extend(more);
                }
                "manual" => {
                    let more = self.axis_list(&named.mesh)?;
                    named.manual.extend(more);
                }
                "metadata" => metadata = self.metadata_list()?,
                _ => {
                    return Err(self.error(
                        "unknown attribute in named sharding: expected replicated, unreduced, manual or metadata",
                    ));
                }
            }
        }
        Ok(metadata)
    }

    /// `sum`, `max` or `min` after `unreduced=`.
    fn reduction_op(&mut self) -> Parsed<Reduction> {
        let op = match self.peek() {
            Token::Ident(w) => Reduction::from_text(w),
            _ => None,
        };
        let op = op.ok_or_else(|| self.error("expected sum, max, or min for unreduced op"))?;
        self.bump();
        Ok(op)
    }

    /// A quoted name.
    fn quoted(&mut self) -> Parsed<String> {
        match self.peek().clone() {
            Token::Str(s) => {
                self.bump();
                Ok(s)
            }
            _ => Err(self.error("expects string")),
        }
    }

    /// `{'x', 'y':(1)2, ?}`.
    fn dim_sharding(&mut self, mesh: &Mesh) -> Parsed<DimSharding> {
        self.expect(b'{', "expects a list starting with kLbrace")?;
        let mut dim = DimSharding {
            axes: Vec::new(),
            closed: true,
        };
        while *self.peek() != Token::Punct(b'}') {
            if *self.peek() == Token::Bad('?') {
                self.bump();
                dim.closed = false;
                if self.eat(b',') && *self.peek() != Token::Punct(b'}') {
                    return Err(self.error("Saw axis ref after '?'"));
                }
                break;
            }
            dim.axes.push(self.axis_ref(mesh)?);
            if !self.eat(b',') {
                break;
            }
        }
        self.expect(b'}', "expects a list to end with kRbrace")?;
        Ok(dim)
    }

    /// `{'x', 'y'}` after `replicated=` (or `unreduced=`, `manual=`).
    fn axis_list(&mut self, mesh: &Mesh) -> Parsed<Vec<AxisRef>> {
        self.expect(b'{', "expects a list starting with kLbrace")?;
        let mut out = Vec::new();
        while *self.peek() != Token::Punct(b'}') {
            out.push(self.axis_ref(mesh)?);
            if !self.eat(b',') {
                break;
            }
        }
        self.expect(b'}', "expects a list to end with kRbrace")?;
        Ok(out)
    }

    /// `'y'` or `'y':(pre)size`.
    fn axis_ref(&mut self, mesh: &Mesh) -> Parsed<AxisRef> {
        let name = self.quoted()?;
        let Some(axis) = mesh.axes.iter().position(|(n, _)| *n == name) else {
            return Err(self.error(format!(
                "axis '{name}' is not a valid axis name or index in mesh {mesh}"
            )));
        };
        let mut sub = None;
        if *self.peek() == Token::Bad(':') {
            self.bump();
            self.expect(b'(', "expected '(' before pre_size in sub axis")?;
            let pre = self.int()?;
            self.expect(b')', "expects ')' to end a sub-axis pre-size")?;
            sub = Some((pre, self.int()?));
        }
        Ok(AxisRef { axis, sub })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::{HloSharding, Reduction};

    fn parse(text: &str) -> HloSharding {
        text.parse().unwrap()
    }

    #[test]
    fn a_reduction_follows_unreduced_and_prints_unless_a_sum() {
        for (text, printed, reduction) in [
            (
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}}",
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}}",
                Reduction::Max,
            ),
            (
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced= min {'x'}}",
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=min{'x'}}",
                Reduction::Min,
            ),
            (
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=sum{'x'}}",
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced={'x'}}",
                Reduction::Sum,
            ),
            // The last reduction given wins; a list without one keeps it.
            (
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}, unreduced=min{}}",
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=min{'x'}}",
                Reduction::Min,
            ),
            (
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}, unreduced={}}",
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{'x'}}",
                Reduction::Max,
            ),
            // No unreduced axis: the reduction is kept but not printed.
            (
                "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max{}}",
                "{mesh['x'=2,'y'=4], [{'y'}, {}]}",
                Reduction::Max,
            ),
            // The one-word forms.
            (
                "{mesh['x'=8], unreduced=max}",
                "{mesh['x'=8], unreduced=max}",
                Reduction::Max,
            ),
            (
                "{mesh['x'=8], unreduced=min{'x'}}",
                "{mesh['x'=8], unreduced=min}",
                Reduction::Min,
            ),
            (
                "{mesh['x'=8], unreduced=sum}",
                "{mesh['x'=8], unreduced}",
                Reduction::Sum,
            ),
            (
                "{mesh['x'=8], unreduced=max{}}",
                "{mesh['x'=8], replicated}",
                Reduction::Max,
            ),
            (
                "{mesh['x'=2,'y'=4], unreduced=max{'x'}}",
                "{mesh['x'=2,'y'=4], [], unreduced=max{'x'}}",
                Reduction::Max,
            ),
            (
                "{mesh['x'=2,'y'=4], device_ids=(7,6,5,4,3,2,1,0), unreduced=max}",
                "{mesh['x'=2,'y'=4], device_ids=(7,6,5,4,3,2,1,0), unreduced=max}",
                Reduction::Max,
            ),
        ] {
            let s = parse(text);
            assert_eq!(s.to_string(), printed, "{text}");
            assert_eq!(s.named().unwrap().reduction, reduction, "{text}");
            assert_eq!(parse(printed).to_string(), printed);
        }
    }

    #[test]
    fn a_sharding_splitting_no_dimension_prints_one_word_by_the_devices_it_spans() {
        for (text, printed) in [
            ("{mesh['a'=1], []}", "{mesh['a'=1], replicated}"),
            ("{mesh['a'=1], [{}]}", "{mesh['a'=1], [{}]}"),
            (
                "{mesh['a'=3,'b'=1], [], unreduced={'a', 'b'}}",
                "{mesh['a'=3,'b'=1], unreduced}",
            ),
            // Unreduced axes spanning every device, not every axis, are listed.
            (
                "{mesh['a'=3,'b'=1], [], replicated={'b'}, unreduced={'a'}}",
                "{mesh['a'=3,'b'=1], unreduced{'a'}}",
            ),
            (
                "{mesh['a'=3,'b'=1], unreduced{'a'}}",
                "{mesh['a'=3,'b'=1], unreduced{'a'}}",
            ),
            (
                "{mesh['a'=3,'b'=1], [], replicated={'b'}, unreduced=max{'a'}}",
                "{mesh['a'=3,'b'=1], unreduced=max{'a'}}",
            ),
            (
                "{mesh['a'=1,'b'=1], [], unreduced={'a'}, manual={'b'}}",
                "{mesh['a'=1,'b'=1], unreduced{'a'}}",
            ),
            // Manual axes spanning every device: one word, the rest dropped.
            (
                "{mesh['a'=3,'b'=1], [], unreduced=min{'b'}, manual={'a'}}",
                "{mesh['a'=3,'b'=1], manual}",
            ),
            ("{mesh['a'=1], [], manual={'a'}}", "{mesh['a'=1], manual}"),
            // Not every device: listed.
            (
                "{mesh['a'=1,'b'=2], [], manual={'a'}}",
                "{mesh['a'=1,'b'=2], [], manual={'a'}}",
            ),
            (
                "{mesh['a'=1,'b'=2], [], unreduced={'a'}}",
                "{mesh['a'=1,'b'=2], [], unreduced={'a'}}",
            ),
            (
                "{mesh['a'=3,'b'=1], [{}], manual={'a'}}",
                "{mesh['a'=3,'b'=1], [{}], manual={'a'}}",
            ),
        ] {
            assert_eq!(parse(text).to_string(), printed, "{text}");
            assert_eq!(parse(printed).to_string(), printed, "{printed}");
        }
    }

    #[test]
    fn an_unknown_reduction_is_refused_at_its_word() {
        for (text, offset) in [
            ("{mesh['x'=8], unreduced=prod}", 24),
            ("{mesh['x'=8], unreduced=Max}", 24),
            ("{mesh['x'=8], unreduced={'x'}}", 24),
            ("{mesh['x'=8], unreduced=}", 24),
            ("{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=MAX{'x'}}", 43),
        ] {
            let error = text.parse::<HloSharding>().unwrap_err();
            assert_eq!(
                (error.message.as_str(), error.offset),
                ("expected sum, max, or min for unreduced op", offset),
                "{text}"
            );
        }
        let error = "{mesh['x'=2,'y'=4], [{'y'}, {}], unreduced=max}"
            .parse::<HloSharding>()
            .unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.offset),
            ("expects a list starting with kLbrace", 46)
        );
    }
}
