//! [`std::str::FromStr`] for [`HloSharding`], after XLA's `ParseSharding`
//! (`xla/hlo/parser/hlo_parser.cc`).

use std::str::FromStr;

use schema::OpMetadata;

use crate::cursor::{Parsed, Parser};
use crate::error::{ParseError, ShardingError};
use crate::lex::{Token, tokens};
use crate::reduction::{push_reduction, reduction_of};
use crate::sharding::{HloSharding, Kind, ShardGroup, SubgroupType};
use crate::tile_assignment::TileAssignment;

impl Parser {
    /// `{...}` after the opening brace was read (or not, `pre_lexed`).
    fn single(&mut self, pre_lexed: bool) -> Parsed<HloSharding> {
        if !pre_lexed {
            self.expect(b'{', "expected '{' to start sharding attribute")?;
        }
        if *self.peek() == Token::Ident("mesh".to_string()) {
            return self.named();
        }
        let loc = self.at;
        let mut attributes = self.attributes()?;
        let mut sharding = self.kind_of(&mut attributes, loc)?;
        let Attributes {
            flags,
            mut metadata,
            group_id,
            ..
        } = attributes;
        let reduction = reduction_of(&metadata);
        push_reduction(&mut metadata, reduction, sharding.has_unreduced());
        sharding.metadata = metadata;
        if flags.shard_as {
            sharding.shard_group = Some(ShardGroup::As(group_id));
        } else if flags.shard_like {
            sharding.shard_group = Some(ShardGroup::Like(group_id));
        }
        self.bump();
        Ok(sharding)
    }

    /// The words and attributes of a sharding up to its closing brace
    /// (left unread).
    fn attributes(&mut self) -> Parsed<Attributes> {
        let mut a = Attributes {
            group_id: -1,
            ..Attributes::default()
        };
        loop {
            match self.peek().clone() {
                Token::Punct(b'}') => return Ok(a),
                Token::Ident(word) => {
                    let flags = &mut a.flags;
                    match word.as_str() {
                        "maximal" => flags.maximal = true,
                        "replicated" => flags.replicated = true,
                        "manual" => flags.manual = true,
                        "unknown" => flags.unknown = true,
                        "unreduced" => flags.unreduced = true,
                        "last_tile_dim_replicate" => flags.last_tile_dim_replicate = true,
                        "shard_as" | "shard_like" => {
                            if word == "shard_as" {
                                flags.shard_as = true;
                            } else {
                                flags.shard_like = true;
                            }
                            self.bump();
                            a.group_id = self.int()?;
                            continue;
                        }
                        _ => return Err(self.error("unexpected token")),
                    }
                    self.bump();
                }
                Token::Attr(name) => self.attribute(&name, &mut a)?,
                _ => return Err(self.error("unexpected token")),
            }
        }
    }

    /// The attribute `name=` (its token next) into `a`.
    fn attribute(&mut self, name: &str, a: &mut Attributes) -> Parsed<()> {
        match name {
            "device" => {
                self.bump();
                match *self.peek() {
                    Token::Int(v) => a.devices = vec![v],
                    _ => return Err(self.error("device= attribute must be an integer")),
                }
                self.bump();
            }
            "devices" => {
                self.bump();
                self.expect(b'[', "expected '[' to start sharding devices shape")?;
                a.dims = self.int_list()?;
                self.expect(b']', "expected ']' to end sharding devices shape")?;
                if *self.peek() == Token::Leq {
                    self.bump();
                    a.iota = Some(self.iota()?);
                } else {
                    a.devices = self.int_list()?;
                }
            }
            "metadata" => {
                self.bump();
                a.metadata = self.metadata_list()?;
            }
            "last_tile_dims" => {
                self.bump();
                a.last_tile_dims = true;
                a.subgroups = self.subgroup_types()?;
            }
            _ => {
                return Err(self.error(
                    "unknown attribute in sharding: expected device=, devices= metadata= or last_tile_dims= ",
                ));
            }
        }
        Ok(())
    }

    /// The sharding the attributes say, without its metadata and shard
    /// group; errors at `loc`, the sharding's start.
    fn kind_of(&self, a: &mut Attributes, loc: usize) -> Parsed<HloSharding> {
        let no_devices = |what: &str| -> Parsed<()> {
            if a.devices.is_empty() {
                Ok(())
            } else {
                Err(self.error_at(
                    loc,
                    format!("{what} shardings should not have any devices assigned"),
                ))
            }
        };
        let flags = &a.flags;
        if flags.replicated {
            no_devices("replicated")?;
            Ok(HloSharding::new(Kind::Replicated))
        } else if flags.maximal {
            if a.devices.len() != 1 {
                return Err(self.error_at(
                    loc,
                    "maximal shardings should have exactly one device assigned",
                ));
            }
            Ok(HloSharding::new(Kind::Maximal(a.devices[0])))
        } else if flags.manual {
            no_devices("manual")?;
            Ok(HloSharding::new(Kind::Manual))
        } else if flags.unknown {
            no_devices("unknown")?;
            Ok(HloSharding::new(Kind::Unknown))
        } else if flags.unreduced {
            no_devices("unreduced")?;
            Ok(HloSharding::new(Kind::Unreduced))
        } else {
            self.tiled(a, loc)
        }
    }

    /// A tiled sharding of the attributes' `devices=` (a list or an iota).
    fn tiled(&self, a: &mut Attributes, loc: usize) -> Parsed<HloSharding> {
        let at_loc = |e: ShardingError| self.error_at(loc, e.message());
        if a.dims.is_empty() {
            return Err(self.error_at(
                loc,
                "non-maximal shardings must have a tile assignment list including dimensions",
            ));
        }
        if a.flags.last_tile_dim_replicate {
            if a.last_tile_dims && !a.subgroups.is_empty() {
                return Err(self.error_at(
                    loc,
                    "last_tile_dim_replicate and last_tile_dims= cannot be given together (XLA aborts)",
                ));
            }
            a.subgroups = vec![SubgroupType::Replicated];
        }
        let dims = std::mem::take(&mut a.dims);
        let tiles = match a.iota.take() {
            Some((reshape, perm)) => {
                if perm.len() != reshape.len() {
                    return Err(self.error_at(
                        loc,
                        format!(
                            "iota_transpose_perm should have the same rank as iota_reshape_dims : expected {}, saw {}.",
                            reshape.len(),
                            perm.len()
                        ),
                    ));
                }
                let perm = perm
                    .iter()
                    .map(|&p| usize::try_from(p).unwrap_or(usize::MAX))
                    .collect();
                TileAssignment::iota(dims, reshape, perm).map_err(at_loc)?
            }
            None => {
                if a.devices.len() <= 1 {
                    return Err(self.error_at(
                        loc,
                        "non-maximal shardings must have more than one device assigned",
                    ));
                }
                TileAssignment::list(dims, std::mem::take(&mut a.devices)).map_err(at_loc)?
            }
        };
        HloSharding::subgroup(tiles, &a.subgroups).map_err(at_loc)
    }

    /// `{manual, replicated}` after `last_tile_dims=`.
    fn subgroup_types(&mut self) -> Parsed<Vec<SubgroupType>> {
        self.expect(b'{', "expected '{' to start sharding type list")?;
        let mut out = Vec::new();
        if *self.peek() != Token::Punct(b'}') {
            loop {
                let t = match self.peek() {
                    Token::Ident(w) if w == "maximal" => SubgroupType::Maximal,
                    Token::Ident(w) if w == "replicated" => SubgroupType::Replicated,
                    Token::Ident(w) if w == "manual" => SubgroupType::Manual,
                    Token::Ident(w) if w == "unreduced" => SubgroupType::Unreduced,
                    _ => {
                        return Err(self.error(
                            "expected a sharding type: maximal, replicated, manual or unreduced (XLA gives no message)",
                        ));
                    }
                };
                out.push(t);
                self.bump();
                if !self.eat(b',') {
                    break;
                }
            }
        }
        self.expect(b'}', "expected '}' to end sharding type list")?;
        Ok(out)
    }
}

/// What a sharding's braces hold, read before it is built.
#[derive(Default)]
struct Attributes {
    flags: Flags,
    devices: Vec<i64>,
    dims: Vec<i64>,
    iota: Option<(Vec<i64>, Vec<i64>)>,
    subgroups: Vec<SubgroupType>,
    last_tile_dims: bool,
    metadata: Vec<OpMetadata>,
    group_id: i64,
}

#[derive(Default)]
struct Flags {
    maximal: bool,
    replicated: bool,
    manual: bool,
    unknown: bool,
    unreduced: bool,
    last_tile_dim_replicate: bool,
    shard_as: bool,
    shard_like: bool,
}

/// Parses XLA's sharding text as XLA's `ParseSharding` (what
/// `xla_client.HloSharding.from_string` calls), into XLA's normal form.
///
/// ```
/// use sharding_util::HloSharding;
///
/// let s: HloSharding = "{devices=[2,2,2]<=[8] last_tile_dims={replicated}}".parse().unwrap();
/// assert_eq!(s.to_string(), "{devices=[2,2,2]<=[8] last_tile_dim_replicate}");
///
/// let error = "{devices=[2,4]<=[8]T(0)}".parse::<HloSharding>().unwrap_err();
/// assert_eq!(error.to_string(), "Syntax error:\nunexpected token (at byte 19: `T`)");
/// ```
///
/// # Errors
///
/// [`ParseError`] for what XLA rejects, and also where XLA would crash or
/// accept a tile assignment no device grid can have: a dimension that is not
/// positive, more than [`crate::MAX_DEVICES`] devices, a transpose that is
/// not a permutation, `last_tile_dim_replicate` with `last_tile_dims=`, more
/// subgroup types than dimensions.
impl FromStr for HloSharding {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Self, ParseError> {
        let mut p = Parser {
            tokens: tokens(text),
            at: 0,
        };
        p.expect(b'{', "expected '{' to start sharding attribute")?;
        let sharding = if matches!(p.peek(), Token::Punct(b'{' | b'}')) {
            let mut elements = Vec::new();
            if *p.peek() != Token::Punct(b'}') {
                loop {
                    elements.push(p.single(false)?);
                    if !p.eat(b',') {
                        break;
                    }
                }
            }
            p.expect(b'}', "expected '}' to end sharding attribute")?;
            HloSharding::new(Kind::Tuple(elements))
        } else {
            p.single(true)?
        };
        if *p.peek() != Token::End {
            return Err(p.error("Extra content after sharding"));
        }
        Ok(sharding)
    }
}
