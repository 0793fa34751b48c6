//! The parser: [`FromStr`] for [`Shape`] and [`Layout`], after XLA's
//! `ParseShape`/`ParseLayout` (`xla/hlo/parser/hlo_parser.cc`).
//!
//! The parser is iterative: nesting (`(`, `b(`, a layout's `P(`) lives on an
//! explicit stack, so parsing never exhausts the thread's stack.
//!
//! It accepts what XLA's parser accepts (except nesting deeper than
//! [`MAX_DEPTH`]), including XLA's leniency inside a
//! layout: a malformed `D`, `T`, `L`, `#`, `*`, `E`, `S`, `SC`, `P` or `M`
//! attribute is parsed as far as it goes and parsing continues, so
//! `{0:E(4}` is accepted (XLA records an error there but only reports it when
//! the whole parse fails). The padded-layout extension (`PAD(..)`, `PV(..)`)
//! is strict.
//!
//! XLA's parser keeps a list of every error it records, including those of
//! the lenient attributes (and `expects integer` for each `*` of a tile,
//! read after an integer was tried), and reports the list when the parse
//! fails. Some failures add nothing to the list: an invalid dimension size,
//! a tuple element that fails validation, a buffer of a non-array. A failed
//! parse here reports the first error recorded, which is the first of XLA's
//! messages, or else the failure itself (for the silent ones XLA's text is
//! a bare `Syntax error:`; ours describes the failure).

use std::str::FromStr;

use super::events::ShapeEvent;
use super::lex::{Lexer, Token};
use super::print::padding_value_name;
use super::validate::tuple_element_error;
use crate::{
    COMBINE_DIMENSION, Layout, PaddingValue, PrimitiveType, Shape, SplitConfig, Tile,
    UNBOUNDED_SIZE,
};

/// The deepest nesting of shapes the parser accepts: a shape nested in 100
/// tuples (or buffers) fails with XLA's `maximum recursion depth exceeded`.
///
/// XLA's parser allows 8192 levels (its default `max_recursion_depth`), but
/// the message types are recursive: cloning, comparing, printing, dropping
/// or encoding a shape recurses once per level, and a few thousand levels
/// exhaust a 2 MiB thread stack. This limit is protobuf's instead: the
/// binary decoders (prost, and XLA's C++ protobuf) accept 100 messages
/// nested in the outermost one, so every shape the parser accepts (99
/// tuples around an array and its layout at most) also decodes from its
/// own bytes.
///
/// ```
/// use schema::{MAX_DEPTH, Shape};
///
/// let nest = |depth: usize| format!("{}f32[]{}", "(".repeat(depth), ")".repeat(depth));
/// assert!(nest(MAX_DEPTH - 1).parse::<Shape>().is_ok());
/// let error = nest(MAX_DEPTH).parse::<Shape>().unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "Syntax error:\nmaximum recursion depth exceeded (at byte 100: `f32`)"
/// );
/// ```
pub const MAX_DEPTH: usize = 100;

/// Why a shape or layout string was rejected.
///
/// The text starts with XLA's error text (`Syntax error:` and, where XLA has
/// one, its message) and then says where: the byte offset and the token
/// found there.
///
/// ```
/// let error = "f32[2,3]{1,0}x".parse::<schema::Shape>().unwrap_err();
/// assert_eq!(error.to_string(), "Syntax error:\nExtra content after shape (at byte 13: `x`)");
/// assert_eq!(error.offset(), 13);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The text does not follow the grammar, or describes an invalid shape.
    #[error("Syntax error:\n{message} (at byte {offset}: {found})")]
    Syntax {
        /// What is wrong, in XLA's words where XLA has them
        /// (`expects integer`, `maximum recursion depth exceeded`).
        message: String,
        /// Byte offset of the offending token.
        offset: usize,
        /// The offending token, quoted, or `end of input`. A character
        /// that is not printable ASCII is followed by its code point
        /// (`` `２` (U+FF12) ``); an integer literal out of range says so and
        /// gives the range.
        found: String,
    },
    /// A complete shape or layout is followed by more text.
    #[error("Syntax error:\nExtra content after {what} (at byte {offset}: {found})")]
    ExtraContent {
        /// `shape` or `layout`.
        what: &'static str,
        /// Byte offset of the first token after the shape or layout.
        offset: usize,
        /// That token, quoted.
        found: String,
    },
}

impl ParseError {
    /// The byte offset in the input where the error was found.
    pub fn offset(&self) -> usize {
        match self {
            Self::Syntax { offset, .. } | Self::ExtraContent { offset, .. } => *offset,
        }
    }
}

/// Parses XLA's human string of a shape, as XLA's `ParseShape`:
/// `f32[2,3]{0,1}`, `(s32[], token[])`, `b(f32[8]{0})`, `bf16[?,<=4]`.
///
/// As in XLA, an array without a layout gets the default descending layout
/// (`f32[2,3]` has `{1,0}`), every layout has a tail padding alignment of 1
/// unless it says `L(n)`, and every array has one `is_dynamic_dimension` flag
/// per dimension, so the shape encodes to the bytes XLA serializes.
///
/// ```
/// use schema::Shape;
///
/// let shape: Shape = "f32[2,?]".parse().unwrap();
/// assert_eq!(shape.dimensions, [2, schema::UNBOUNDED_SIZE]);
/// assert_eq!(shape.is_dynamic_dimension, [false, true]);
/// assert_eq!(shape.to_string(), "f32[2,?]{1,0}");
///
/// let tuple: Shape = "(f32[1], (token[]), opaque[])".parse().unwrap();
/// assert_eq!(tuple.tuple_shapes.len(), 3);
/// ```
///
/// # Errors
///
/// [`ParseError`] if the text is not a shape XLA's parser accepts, or has
/// anything after the shape (`Extra content after shape`).
impl FromStr for Shape {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, ParseError> {
        parse_shape(Parser::new(s))
    }
}

impl Shape {
    /// Parses the shape `text` as [`str::parse`] does, with the same
    /// errors, but hands `receiver` each tuple's elements as they are read
    /// instead of building the tuple: memory is one element and the
    /// nesting, whatever the tuple's size.
    ///
    /// ```
    /// use schema::{Shape, ShapeEvent};
    ///
    /// let mut arrays = Vec::new();
    /// Shape::parse_events("(f32[2], (s8[], token[]))", |event| {
    ///     if let ShapeEvent::Element(shape) = event {
    ///         arrays.push(shape.to_string());
    ///     }
    /// })
    /// .unwrap();
    /// assert_eq!(arrays, ["f32[2]{0}", "s8[]", "token[]"]);
    /// ```
    ///
    /// # Errors
    ///
    /// [`ParseError`], as [`str::parse`] gives it; the events handed over
    /// before it are of text that is no shape.
    pub fn parse_events(
        text: &str,
        mut receiver: impl FnMut(ShapeEvent<'_>),
    ) -> Result<(), ParseError> {
        let mut parser = Parser::new(text);
        parser.events = Some(&mut receiver);
        parse_shape(parser).map(drop)
    }
}

/// The shape `parser` reads, and nothing after it.
fn parse_shape(mut parser: Parser<'_>) -> Result<Shape, ParseError> {
    let parsed = parser
        .shape(None)
        .map_err(|error| parser.first_error(error))?;
    match parsed {
        Parsed::Shape(shape) => {
            parser.expect_end("shape")?;
            Ok(shape)
        }
        Parsed::Layout(_) => parser.error("expected a shape"),
    }
}

/// Parses XLA's text of a layout, as XLA's `ParseLayout`: `{1,0}`, `{}`,
/// `{1,0:T(8,128)(2,1)E(16)S(1)}`, and the padded-layout extension
/// `{0,1:PAD(3,5)PV(zero)}`.
///
/// ```
/// use schema::Layout;
///
/// let layout: Layout = "{1,0:T(8,128)(2,1)}".parse().unwrap();
/// assert_eq!(layout.minor_to_major, [1, 0]);
/// assert_eq!(layout.tiles.len(), 2);
/// assert_eq!(layout.to_string(), "{1,0:T(8,128)(2,1)}");
/// ```
///
/// # Errors
///
/// [`ParseError`] if the text is not a layout, or has anything after it
/// (`Extra content after layout`).
impl FromStr for Layout {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, ParseError> {
        let mut parser = Parser::new(s);
        let layout = parser
            .whole_layout()
            .map_err(|error| parser.first_error(error))?;
        parser.expect_end("layout")?;
        Ok(layout)
    }
}

impl Parser<'_> {
    /// A layout on its own, up to its closing `}`.
    fn whole_layout(&mut self) -> Result<Layout> {
        let mut layout = new_layout();
        Ok(match self.layout_head(&mut layout)? {
            Head::Done => {
                self.layout_tail(&mut layout)?;
                layout
            }
            Head::PhysicalShape => {
                let frame = Frame::Physical {
                    array: None,
                    layout: Box::new(layout),
                };
                match self.shape(Some(frame))? {
                    Parsed::Layout(layout) => layout,
                    Parsed::Shape(_) => return self.error("expected a layout"),
                }
            }
        })
    }
}

/// The type a type-name token names, as XLA's lexer decides: any lowercase
/// type name but `tuple` and `buffer` (and `opaque_type`, which XLA's
/// `IsPrimitiveTypeName` does not know: only `opaque`).
fn type_token(name: &str) -> Option<PrimitiveType> {
    if name == "opaque_type" {
        return None;
    }
    PrimitiveType::from_lowercase_name(name).filter(|t| {
        !matches!(
            t,
            PrimitiveType::Invalid | PrimitiveType::Tuple | PrimitiveType::Buffer
        )
    })
}

/// A layout as XLA's parser makes it before reading attributes.
fn new_layout() -> Layout {
    Layout {
        tail_padding_alignment_in_elements: 1,
        ..Layout::default()
    }
}

/// A shape under construction, waiting for its inner shapes.
enum Frame {
    /// Inside `( ... )`.
    Tuple(TupleFrame),
    /// Inside `b( ... )`.
    Buffer,
    /// Inside a layout's `P( ... )`: the layout, and the array it belongs to
    /// (`None` when the layout is parsed on its own).
    Physical {
        array: Option<Box<Shape>>,
        layout: Box<Layout>,
    },
}

/// A tuple being read.
#[derive(Default)]
struct TupleFrame {
    /// The elements read so far (none kept when `streamed`).
    elements: Vec<Shape>,
    /// How many elements were read.
    count: usize,
    /// The validation error of the first element that fails it, which XLA
    /// reports at the tuple's end.
    error: Option<String>,
    /// Whether the elements are handed to the parser's `events` rather
    /// than kept: the tuple is the whole shape or an element of a streamed
    /// tuple.
    streamed: bool,
}

/// How the head of a layout (up to `P(`) ended.
enum Head {
    /// No physical shape follows: read the tail next.
    Done,
    /// `P(` was read: a shape follows.
    PhysicalShape,
}

/// The result of [`Parser::shape`]: a shape, or (when the parse started
/// inside the physical shape of a layout parsed on its own) that layout.
enum Parsed {
    Shape(Shape),
    Layout(Layout),
}

type Result<T, E = ParseError> = std::result::Result<T, E>;

/// The text of a token XLA's lexer rejects, quoted: an integer out of range
/// says so and gives the range; a character that is not printable ASCII is
/// escaped and followed by its code point (`` `\u{feff}` (U+FEFF) ``).
fn describe_error_text(text: &str) -> String {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return format!(
            "`{text}`, an integer out of range: integers run from {} to {}",
            i64::MIN,
            u64::MAX
        );
    }
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !(c.is_ascii_graphic() || c == ' ') => {
            format!("`{}` (U+{:04X})", c.escape_debug(), u32::from(c))
        }
        _ => format!("`{}`", text.escape_debug()),
    }
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The first error recorded and gone past (see the module docs).
    recorded: Option<ParseError>,
    /// Whether the error being returned is one XLA records nothing for.
    silent: bool,
    /// The array as far as it was built when it failed, which XLA keeps
    /// as a physical shape (`P(s32[2,-1])` is `P(s32[2])`).
    partial: Option<Shape>,
    /// Where the elements of streamed tuples go ([`Shape::parse_events`]).
    events: Option<&'a mut dyn FnMut(ShapeEvent<'_>)>,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Self {
            lexer: Lexer::new(src),
            recorded: None,
            silent: false,
            partial: None,
            events: None,
        }
    }

    /// Hands `event` to the events' receiver, if any.
    fn emit(&mut self, event: ShapeEvent<'_>) {
        if let Some(receiver) = self.events.as_mut() {
            receiver(event);
        }
    }

    /// Records the error of a lenient step, as XLA does, and goes on.
    fn record(&mut self, result: Result<()>) {
        if let Err(error) = result {
            self.recorded.get_or_insert(error);
        }
    }

    /// Records `message` at the current token.
    fn record_here(&mut self, message: &str) {
        let error = self.error(message);
        self.record(error);
    }

    /// Returns `error` as a failure XLA records no message for.
    fn silent<T>(&mut self, error: Result<T>) -> Result<T> {
        self.silent = true;
        error
    }

    /// What a failed parse reports: the first error recorded on the way,
    /// which XLA prints first, or else `error`.
    fn first_error(&self, error: ParseError) -> ParseError {
        self.recorded.clone().unwrap_or(error)
    }

    fn token(&self) -> Token<'a> {
        self.lexer.token()
    }

    fn is_ident(&self, name: &str) -> bool {
        self.token() == Token::Ident(name)
    }

    /// An error at the current token.
    fn error<T>(&self, message: impl Into<String>) -> Result<T> {
        Err(ParseError::Syntax {
            message: message.into(),
            offset: self.lexer.start(),
            found: self.found(),
        })
    }

    fn found(&self) -> String {
        match self.token() {
            Token::Eof => "end of input".to_owned(),
            Token::Error => describe_error_text(self.lexer.text()),
            _ => format!("`{}`", self.lexer.text()),
        }
    }

    /// Consumes `token` or fails with `message`.
    fn expect(&mut self, token: Token<'_>, message: &str) -> Result<()> {
        if self.lexer.eat(token) {
            Ok(())
        } else {
            self.error(message)
        }
    }

    fn expect_end(&self, what: &'static str) -> Result<()> {
        if self.token() == Token::Eof {
            return Ok(());
        }
        Err(ParseError::ExtraContent {
            what,
            offset: self.lexer.start(),
            found: self.found(),
        })
    }

    fn int(&mut self) -> Result<i64> {
        match self.token() {
            Token::Int(value) => {
                self.lexer.bump();
                Ok(value)
            }
            _ => self.error("expects integer"),
        }
    }

    /// Parses one shape. With `root` set, the caller is a layout parsed on
    /// its own whose `P(` was just read, and the result is that layout.
    fn shape(&mut self, root: Option<Frame>) -> Result<Parsed> {
        let layout_root = root.is_some();
        let mut stack: Vec<Frame> = root.into_iter().collect();
        loop {
            // Read shapes until one is complete.
            let mut done = match self.shape_start(&mut stack, layout_root) {
                Ok(Some(shape)) => shape,
                Ok(None) => continue,
                Err(error) => self.recover_in_physical_shape(&mut stack, error)?,
            };
            // Whether `done` is a streamed tuple, its elements handed over.
            let mut done_streamed = false;
            // Complete the enclosing shapes that this finishes.
            loop {
                let result = match stack.pop() {
                    None => {
                        if !done_streamed {
                            self.emit(ShapeEvent::Element(&done));
                        }
                        return Ok(Parsed::Shape(done));
                    }
                    Some(Frame::Tuple(mut tuple)) => {
                        if tuple.error.is_none() {
                            tuple.error = tuple_element_error(&done);
                        }
                        tuple.count += 1;
                        if !tuple.streamed {
                            tuple.elements.push(done);
                        } else if !done_streamed {
                            self.emit(ShapeEvent::Element(&done));
                        }
                        if self.lexer.eat(Token::Comma) {
                            stack.push(Frame::Tuple(tuple));
                            break;
                        }
                        done_streamed = tuple.streamed;
                        self.finish_tuple(tuple)
                    }
                    Some(Frame::Buffer) => self.finish_buffer(done),
                    Some(Frame::Physical { array, mut layout }) => {
                        layout.physical_shape = Some(Box::new(done));
                        // XLA records a missing ')' here and goes on.
                        if !self.lexer.eat(Token::RParen) {
                            self.record_here("expects physical shape to end with kRparen");
                        }
                        match (self.layout_tail(&mut layout), array) {
                            (Err(error), _) => Err(error),
                            (Ok(()), Some(array)) => self.finish_array(*array, *layout),
                            (Ok(()), None) => return Ok(Parsed::Layout(*layout)),
                        }
                    }
                };
                done = match result {
                    Ok(shape) => shape,
                    Err(error) => self.recover_in_physical_shape(&mut stack, error)?,
                };
            }
        }
    }

    /// XLA records a failure to parse a physical shape (`P(...)`) and goes
    /// on after it with the shape as far as it was built (an array that
    /// failed is kept partly, anything else is empty): unwinds `stack` to
    /// the innermost physical shape and returns that shape, or returns
    /// `error` if no physical shape is being parsed.
    fn recover_in_physical_shape(
        &mut self,
        stack: &mut Vec<Frame>,
        error: ParseError,
    ) -> Result<Shape> {
        let physical = stack
            .iter()
            .rposition(|frame| matches!(frame, Frame::Physical { .. }));
        let partial = self.partial.take();
        match physical {
            Some(index) => {
                let direct = index + 1 == stack.len();
                stack.truncate(index + 1);
                if !std::mem::take(&mut self.silent) {
                    self.record(Err(error));
                }
                Ok(partial.filter(|_| direct).unwrap_or_default())
            }
            None => Err(error),
        }
    }

    /// Reads the start of a shape: returns it if it is complete, or pushes
    /// the frame of a shape that encloses more shapes and returns `None`.
    fn shape_start(&mut self, stack: &mut Vec<Frame>, layout_root: bool) -> Result<Option<Shape>> {
        let depth = stack.len() + 1 - usize::from(layout_root);
        if depth > MAX_DEPTH {
            return self.error("maximum recursion depth exceeded");
        }
        if self.is_ident("b") && self.lexer.peek() == Token::LParen {
            self.lexer.bump();
            self.lexer.bump();
            stack.push(Frame::Buffer);
            return Ok(None);
        }
        if self.lexer.eat(Token::LParen) {
            if self.token() == Token::RParen {
                return self.finish_tuple(TupleFrame::default()).map(Some);
            }
            let streamed = self.events.is_some()
                && stack
                    .last()
                    .is_none_or(|frame| matches!(frame, Frame::Tuple(t) if t.streamed));
            if streamed {
                self.emit(ShapeEvent::TupleStart);
            }
            stack.push(Frame::Tuple(TupleFrame {
                streamed,
                ..TupleFrame::default()
            }));
            return Ok(None);
        }
        let element_type = match self.token() {
            Token::Ident(name) => type_token(name),
            _ => None,
        };
        let Some(element_type) = element_type else {
            return self.error(format!(
                "expected primitive type, saw {}",
                self.token().kind_name()
            ));
        };
        let type_offset = self.lexer.start();
        self.lexer.bump();
        self.array(element_type, type_offset, stack)
    }

    /// The rest of an array (or token/opaque) shape after its type name.
    fn array(
        &mut self,
        element_type: PrimitiveType,
        type_offset: usize,
        stack: &mut Vec<Frame>,
    ) -> Result<Option<Shape>> {
        let mut shape = Shape {
            element_type: element_type as i32,
            ..Shape::default()
        };
        self.dimension_sizes(&mut shape)?;
        let has_layout = self.token() == Token::LBrace
            && matches!(self.lexer.peek(), Token::Int(_) | Token::Colon);
        if !element_type.is_array_type() {
            if !shape.dimensions.is_empty() {
                return Err(ParseError::Syntax {
                    message: format!("{}[] cannot have dimensions", element_type.lowercase_name()),
                    offset: type_offset,
                    found: format!("`{}`", element_type.lowercase_name()),
                });
            }
            if has_layout {
                return self.error(format!(
                    "{}[] cannot have a layout",
                    element_type.lowercase_name()
                ));
            }
            return Ok(Some(shape));
        }
        let rank = i64::try_from(shape.dimensions.len()).unwrap_or(i64::MAX);
        let default_layout = Layout {
            minor_to_major: (0..rank).rev().collect(),
            ..new_layout()
        };
        if !has_layout {
            shape.layout = Some(Box::new(default_layout));
            return Ok(Some(shape));
        }
        let mut layout = new_layout();
        match self.layout_head(&mut layout)? {
            Head::Done => {
                self.layout_tail(&mut layout)?;
                self.finish_array(shape, layout).map(Some)
            }
            Head::PhysicalShape => {
                stack.push(Frame::Physical {
                    array: Some(Box::new(shape)),
                    layout: Box::new(layout),
                });
                Ok(None)
            }
        }
    }

    /// `'[' [dim (',' dim)*] ']'` with `dim ::= '?' | ['<='] int`. As in
    /// XLA, the whole list is read before any size is checked, and an
    /// invalid size adds no message of its own.
    fn dimension_sizes(&mut self, shape: &mut Shape) -> Result<()> {
        self.expect(Token::LSquare, "expects a list starting with kLsquare")?;
        // Each size with the literal as written and where: XLA reads
        // 9223372036854775808 as i64::MIN, but the error quotes the input.
        let mut sizes = Vec::new();
        if self.token() != Token::RSquare {
            loop {
                let (offset, found) = (self.lexer.start(), self.found());
                let size = if self.lexer.eat(Token::Question) {
                    (UNBOUNDED_SIZE, true)
                } else {
                    let dynamic = self.lexer.eat(Token::Leq);
                    (self.int()?, dynamic)
                };
                sizes.push((size, offset, found));
                if !self.lexer.eat(Token::Comma) {
                    break;
                }
            }
        }
        self.expect(Token::RSquare, "expects a list to end with kRsquare")?;
        for ((size, dynamic), offset, found) in sizes {
            // XLA's Shape::IsValidDimensionSize.
            if size < 0 && !(dynamic && size == UNBOUNDED_SIZE) {
                self.partial = Some(shape.clone());
                return self.silent(Err(ParseError::Syntax {
                    message: format!("Invalid dimension size {size}, is_dynamic={dynamic}"),
                    offset,
                    found,
                }));
            }
            shape.dimensions.push(size);
            shape.is_dynamic_dimension.push(dynamic);
        }
        Ok(())
    }

    /// XLA's checks of an explicit layout, then attaches it.
    fn finish_array(&self, mut shape: Shape, layout: Layout) -> Result<Shape> {
        if layout.minor_to_major.len() != shape.dimensions.len() {
            return self.error(format!(
                "Dimensions size is {}, but minor to major size is {}.",
                shape.dimensions.len(),
                layout.minor_to_major.len()
            ));
        }
        if layout.physical_shape.is_some() {
            return self.error(format!(
                "Layout has physical shape, but is not for a sparse array: {layout}"
            ));
        }
        shape.layout = Some(Box::new(layout));
        Ok(shape)
    }

    /// XLA's validation of the elements, then the closing `)` of a tuple
    /// (a streamed tuple comes back without its elements).
    fn finish_tuple(&mut self, tuple: TupleFrame) -> Result<Shape> {
        if let Some(message) = tuple.error {
            let error = self.error(message);
            return self.silent(error);
        }
        self.expect(Token::RParen, "expects ')' at the end of tuple.")?;
        if tuple.streamed {
            self.emit(ShapeEvent::TupleEnd(tuple.count));
        }
        Ok(Shape {
            element_type: PrimitiveType::Tuple as i32,
            tuple_shapes: tuple.elements,
            ..Shape::default()
        })
    }

    /// The closing `)` of a buffer, whose inner shape must be an array.
    fn finish_buffer(&mut self, inner: Shape) -> Result<Shape> {
        let inner_type = PrimitiveType::try_from(inner.element_type).unwrap_or_default();
        if !inner_type.is_array_type() {
            let error = self.error("Buffer shape must have array shape.");
            return self.silent(error);
        }
        self.expect(Token::RParen, "expects ')' at the end of buffer shape.")?;
        Ok(Shape {
            element_type: PrimitiveType::Buffer as i32,
            tuple_shapes: vec![inner],
            ..Shape::default()
        })
    }

    /// A layout up to its physical shape: `'{' [int (',' int)*] [':' D T L
    /// # * E S SC P`.
    fn layout_head(&mut self, layout: &mut Layout) -> Result<Head> {
        self.expect(Token::LBrace, "expects layout to start with kLbrace")?;
        if self.token() == Token::RBrace {
            return Ok(Head::Done);
        }
        if matches!(self.token(), Token::Int(_)) {
            loop {
                layout.minor_to_major.push(self.int()?);
                if !self.lexer.eat(Token::Comma) {
                    break;
                }
            }
        }
        if !self.lexer.eat(Token::Colon) {
            // Attributes need the `:`: `{1,0M(0)}` is an error.
            if self.token() != Token::RBrace {
                return self.error("expects layout to end with kRbrace");
            }
            return Ok(Head::Done);
        }
        // Each attribute below is optional and read once, in XLA's order;
        // like XLA, a malformed attribute is read as far as it goes.
        if self.is_ident("D") {
            self.lexer.bump();
            // Dim level types are parsed and dropped, as XLA does since 2025.
            let result = self.dim_level_types();
            self.record(result);
        }
        if self.is_ident("T") {
            self.lexer.bump();
            let result = self.tiles(&mut layout.tiles);
            self.record(result);
        }
        if self.is_ident("L") {
            self.lexer.bump();
            if let Some(value) = self.int_attribute("multiple padded to in elements") {
                layout.tail_padding_alignment_in_elements = value;
            }
        }
        if self.lexer.eat(Token::Octothorp)
            && let Some(t) = self.index_type("kOctothorp", "index")
        {
            layout.index_primitive_type = t as i32;
        }
        if self.lexer.eat(Token::Asterisk)
            && let Some(t) = self.index_type("kAsterisk", "pointer")
        {
            layout.pointer_primitive_type = t as i32;
        }
        if self.is_ident("E") {
            self.lexer.bump();
            if let Some(value) = self.int_attribute("element size in bits") {
                layout.element_size_in_bits = value;
            }
        }
        if self.is_ident("S") {
            self.lexer.bump();
            if let Some(value) = self.int_attribute("memory space") {
                // XLA keeps the memory space in an int8: S(128) is S(-128).
                layout.memory_space = i64::from(i8::from_le_bytes([value.to_le_bytes()[0]]));
            }
        }
        if self.is_ident("SC") {
            self.lexer.bump();
            let result = self.split_configs(&mut layout.split_configs);
            self.record(result);
        }
        if self.is_ident("P") {
            self.lexer.bump();
            if self.lexer.eat(Token::LParen) {
                return Ok(Head::PhysicalShape);
            }
            self.record_here("expects physical shape to start with kLparen");
            // XLA creates the physical shape before looking for '('.
            layout.physical_shape = Some(Box::default());
        }
        Ok(Head::Done)
    }

    /// The rest of a layout after its physical shape: `M(n)`, the padding
    /// extension `PAD(d,...)PV(name)`, and `}`.
    fn layout_tail(&mut self, layout: &mut Layout) -> Result<()> {
        if self.is_ident("M") {
            self.lexer.bump();
            if let Some(value) = self.int_attribute("dynamic shape metadata prefix bytes") {
                layout.dynamic_shape_metadata_prefix_bytes = value;
            }
        }
        // The extension's keywords count only before `(`: otherwise they are
        // what XLA sees, an unexpected word (`expects layout to end with
        // kRbrace`).
        if self.is_ident("PAD") && self.lexer.peek() == Token::LParen {
            self.lexer.bump();
            self.lexer.bump();
            if self.token() != Token::RParen {
                loop {
                    layout.padded_dimensions.push(self.int()?);
                    if !self.lexer.eat(Token::Comma) {
                        break;
                    }
                }
            }
            self.expect(
                Token::RParen,
                "expects padded dimensions to end with kRparen",
            )?;
        }
        if self.is_ident("PV") && self.lexer.peek() == Token::LParen {
            self.lexer.bump();
            self.lexer.bump();
            layout.padding_value = self.padding_value()?;
            self.expect(Token::RParen, "expects padding value to end with kRparen")?;
        }
        self.expect(Token::RBrace, "expects layout to end with kRbrace")?;
        self.check_layout_values(layout)
    }

    /// The values XLA's `LayoutUtil::MakeLayout` CHECK-fails on (XLA aborts
    /// the process; this is an error instead).
    fn check_layout_values(&self, layout: &Layout) -> Result<()> {
        let tile_dimensions = layout.tiles.iter().flat_map(|t| &t.dimensions);
        if let Some(d) = tile_dimensions
            .copied()
            .find(|&d| d < 0 && d != COMBINE_DIMENSION)
        {
            return self.error(format!(
                "Tile dimension size needs to be minimum int64_t value if it's negative. Value is {d}"
            ));
        }
        if layout.tail_padding_alignment_in_elements < 1 {
            return self.error(format!(
                "tail padding alignment in elements must be >= 1, but is {}",
                layout.tail_padding_alignment_in_elements
            ));
        }
        Ok(())
    }

    /// `zero`, `one`, `lowest`, `highest`, `unknown`, or the enum number.
    fn padding_value(&mut self) -> Result<i32> {
        let value = match self.token() {
            Token::Int(n) => i32::try_from(n).ok(),
            Token::Ident(name) => [
                PaddingValue::ZeroPad,
                PaddingValue::OnePad,
                PaddingValue::LowestPad,
                PaddingValue::HighestPad,
                PaddingValue::UnknownPad,
            ]
            .into_iter()
            .find(|&v| padding_value_name(v as i32) == Some(name))
            .map(|v| v as i32),
            _ => None,
        };
        match value {
            Some(value) => {
                self.lexer.bump();
                Ok(value)
            }
            None => self.error(
                "expects a padding value: zero, one, lowest, highest, unknown or an integer",
            ),
        }
    }

    /// `'(' int ')'`, as XLA's `ParseLayoutIntAttribute`: the value counts
    /// once the integer is read, even if `)` is missing. A missing part is
    /// recorded with XLA's message naming the attribute (`what`).
    fn int_attribute(&mut self, what: &str) -> Option<i64> {
        if !self.lexer.eat(Token::LParen) {
            self.record_here(&format!("expects {what} to start with kLparen"));
            return None;
        }
        let value = self.int();
        let value = match value {
            Ok(value) => value,
            Err(error) => {
                self.record(Err(error));
                return None;
            }
        };
        if !self.lexer.eat(Token::RParen) {
            self.record_here(&format!("expects {what} to end with kRparen"));
        }
        Some(value)
    }

    /// `'(' type ')'` after `#` or `*` (`marker`, for `kind` index or
    /// pointer): each part is optional, as in XLA, and any type name counts;
    /// what is missing, and a type that is not an unsigned integer, is
    /// recorded with XLA's message.
    fn index_type(&mut self, marker: &str, kind: &str) -> Option<PrimitiveType> {
        if !self.lexer.eat(Token::LParen) {
            self.record_here(&format!("expects {marker} to be followed by kLparen"));
        }
        let found = match self.token() {
            Token::Ident(name) => type_token(name),
            _ => None,
        };
        // XLA reads the type, then refuses a signed one at the token after
        // it.
        match found {
            Some(t) => {
                self.lexer.bump();
                if !t.is_unsigned_integral() {
                    self.record_here("expecting an unsigned integer type");
                }
            }
            None => self.record_here(&format!(
                "expected primitive type, saw {}",
                self.token().kind_name()
            )),
        }
        if !self.lexer.eat(Token::RParen) {
            self.record_here(&format!(
                "expects {kind} primitive type to be followed by kRparen"
            ));
        }
        found
    }

    /// `'(' [dlt (',' dlt)*] ')'` with `dlt ::= (D|C|S|H) ['+'] ['~']`.
    fn dim_level_types(&mut self) -> Result<()> {
        self.list(Token::LParen, Token::RParen, |p| {
            if matches!(p.token(), Token::Ident("D" | "C" | "S" | "H")) {
                p.lexer.bump();
                p.lexer.eat(Token::Plus);
                p.lexer.eat(Token::Tilde);
                Ok(())
            } else {
                p.error("expected a DimLevelType abbreviation (D, C, or S)")
            }
        })
    }

    /// `('(' [tdim (',' tdim)*] ')')+` with `tdim ::= int | '*'`. As in
    /// XLA, each tile is added before its `(` is read.
    fn tiles(&mut self, tiles: &mut Vec<Tile>) -> Result<()> {
        loop {
            tiles.push(Tile::default());
            self.list(Token::LParen, Token::RParen, |p| {
                // XLA tries an integer first and records that it failed.
                let dimension = if p.token() == Token::Asterisk {
                    p.record_here("expects integer");
                    p.lexer.bump();
                    COMBINE_DIMENSION
                } else {
                    p.int()?
                };
                if let Some(tile) = tiles.last_mut() {
                    tile.dimensions.push(dimension);
                }
                Ok(())
            })?;
            if self.token() != Token::LParen {
                return Ok(());
            }
        }
    }

    /// `('(' int ':' [int (',' int)*] ')')+`.
    fn split_configs(&mut self, configs: &mut Vec<SplitConfig>) -> Result<()> {
        loop {
            self.expect(Token::LParen, "expects split configs to start with kLparen")?;
            let dimension = self.int()?;
            configs.push(SplitConfig {
                dimension,
                split_indices: Vec::new(),
            });
            self.list(Token::Colon, Token::RParen, |p| {
                let index = p.int()?;
                if let Some(config) = configs.last_mut() {
                    config.split_indices.push(index);
                }
                Ok(())
            })?;
            if self.token() != Token::LParen {
                return Ok(());
            }
        }
    }

    /// XLA's `ParseList`: `start [item (',' item)*] end`.
    fn list(
        &mut self,
        start: Token<'static>,
        end: Token<'static>,
        mut item: impl FnMut(&mut Self) -> Result<()>,
    ) -> Result<()> {
        self.expect(
            start,
            &format!("expects a list starting with {}", start.kind_name()),
        )?;
        if self.token() != end {
            loop {
                item(self)?;
                if !self.lexer.eat(Token::Comma) {
                    break;
                }
            }
        }
        self.expect(
            end,
            &format!("expects a list to end with {}", end.kind_name()),
        )
    }
}
