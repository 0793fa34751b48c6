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
        let mut flags = Flags::default();
        let mut devices: Vec<i64> = Vec::new();
        let mut dims: Vec<i64> = Vec::new();
        let mut iota: Option<(Vec<i64>, Vec<i64>)> = None;
        let mut subgroups: Vec<SubgroupType> = Vec::new();
        let mut last_tile_dims = false;
        let mut metadata: Vec<OpMetadata> = Vec::new();
        let mut group_id: i64 = -1;
        loop {
            match self.peek().clone() {
                Token::Punct(b'}') => break,
                Token::Ident(word) => {
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
                            group_id = self.int()?;
                            continue;
                        }
                        _ => return Err(self.error("unexpected token")),
                    }
                    self.bump();
                }
                Token::Attr(name) => match name.as_str() {
                    "device" => {
                        self.bump();
                        match *self.peek() {
                            Token::Int(v) => devices = vec![v],
                            _ => return Err(self.error("device= attribute must be an integer")),
                        }
                        self.bump();
                    }
                    "devices" => {
                        self.bump();
                        self.expect(b'[', "expected '[' to start sharding devices shape")?;
                        dims = self.int_list()?;
                        self.expect(b']', "expected ']' to end sharding devices shape")?;
                        if *self.peek() == Token::Leq {
                            self.bump();
                            iota = Some(self.iota()?);
                        } else {
                            devices = self.int_list()?;
                        }
                    }
                    "metadata" => {
                        self.bump();
                        metadata = self.metadata_list()?;
                    }
                    "last_tile_dims" => {
                        self.bump();
                        last_tile_dims = true;
                        subgroups = self.subgroup_types()?;
                    }
                    _ => {
                        return Err(self.error(
                            "unknown attribute in sharding: expected device=, devices= metadata= or last_tile_dims= ",
                        ));
                    }
                },
                _ => return Err(self.error("unexpected token")),
            }
        }
        let at_loc = |parser: &Self, e: ShardingError| parser.error_at(loc, e.message());
        let no_devices = |parser: &Self, what: &str| -> Parsed<()> {
            if devices.is_empty() {
                Ok(())
            } else {
                Err(parser.error_at(
                    loc,
                    format!("{what} shardings should not have any devices assigned"),
                ))
            }
        };
        let mut sharding = if flags.replicated {
            no_devices(self, "replicated")?;
            HloSharding::new(Kind::Replicated)
        } else if flags.maximal {
            if devices.len() != 1 {
                return Err(self.error_at(
                    loc,
                    "maximal shardings should have exactly one device assigned",
                ));
            }
            HloSharding::new(Kind::Maximal(devices[0]))
        } else if flags.manual {
            no_devices(self, "manual")?;
            HloSharding::new(Kind::Manual)
        } else if flags.unknown {
            no_devices(self, "unknown")?;
            HloSharding::new(Kind::Unknown)
        } else if flags.unreduced {
            no_devices(self, "unreduced")?;
            HloSharding::new(Kind::Unreduced)
        } else {
            if dims.is_empty() {
                return Err(self.error_at(
                    loc,
                    "non-maximal shardings must have a tile assignment list including dimensions",
                ));
            }
            if flags.last_tile_dim_replicate {
                if last_tile_dims && !subgroups.is_empty() {
                    return Err(self.error_at(
                        loc,
                        "last_tile_dim_replicate and last_tile_dims= cannot be given together (XLA aborts)",
                    ));
                }
                subgroups = vec![SubgroupType::Replicated];
            }
            let tiles = match iota {
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
                    TileAssignment::iota(dims, reshape, perm).map_err(|e| at_loc(self, e))?
                }
                None => {
                    if devices.len() <= 1 {
                        return Err(self.error_at(
                            loc,
                            "non-maximal shardings must have more than one device assigned",
                        ));
                    }
                    TileAssignment::list(dims, devices).map_err(|e| at_loc(self, e))?
                }
            };
            HloSharding::subgroup(tiles, &subgroups).map_err(|e| at_loc(self, e))?
        };
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
