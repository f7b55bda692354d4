//! The validation context shared by every kind of table: the file and item for error
//! messages, checked numbers and vectors, and the names already declared.

use std::collections::HashMap;

use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::BodyRef;
use toml::Spanned;

use super::convert::{self, Rule};
use super::error::{ErrorKind, ItemName, SceneError, Source};
use super::format::{Num, Vec3Field};

/// The reserved body name of the fixed global frame.
pub const GROUND: &str = "ground";

/// Longest name accepted (characters).
pub const NAME_LENGTH_LIMIT: usize = 64;

/// The rule every user name follows (bodies, joints, drives, forces, sensors, inputs, flexible
/// bodies, contact shapes): names become file names (`sensor_NAME.png`, `NAME_00001.vtu`) and
/// CSV headers (`NAME_x`), so nothing in them may leave the output folder or split a column.
pub const NAME_RULE: &str =
    "a name is 1 to 64 letters, digits, '_', '-' or '.', and starts with a letter, a digit or '_'";

/// Checks `name` against [`NAME_RULE`]; the error says which part breaks it.
pub fn check_name(name: &str) -> Result<(), String> {
    let first = name.chars().next();
    let bad = name
        .chars()
        .find(|&ch| !(ch.is_alphanumeric() || matches!(ch, '_' | '-' | '.')));
    let problem = if name.is_empty() {
        "it is empty".to_string()
    } else if name.chars().count() > NAME_LENGTH_LIMIT {
        format!("it has {} characters", name.chars().count())
    } else if let Some(ch) = bad {
        format!("it contains {ch:?}")
    } else if let Some(ch @ ('-' | '.')) = first {
        format!("it starts with {ch:?}")
    } else {
        return Ok(());
    };
    Err(format!("{problem}; {NAME_RULE}"))
}

/// Validation context: the file, for lines, and the item being checked.
pub(super) struct Checker<'a> {
    /// The file.
    pub source: &'a Source,
    /// The item under check (named in errors).
    pub item: Option<ItemName>,
}

impl<'a> Checker<'a> {
    /// A checker of the same file with no item under check: the one the checks on every core
    /// share ([`super::parallel`]); an error found there is reported by the serial check after.
    pub fn without_item(&self) -> Checker<'a> {
        Checker {
            source: self.source,
            item: None,
        }
    }
    /// Makes `kind` `name` the item under check, in the memory of the last one: the body and
    /// joint loops name a million items.
    pub fn name_item(&mut self, kind: &'static str, name: &str) {
        match &mut self.item {
            Some(item) => {
                item.kind = kind;
                item.name.clear();
                item.name.push_str(name);
            }
            None => self.item = Some(ItemName::new(kind, name)),
        }
    }
    /// An error at the start of `span`.
    pub fn error(&self, span: &std::ops::Range<usize>, kind: ErrorKind) -> SceneError {
        self.source
            .error(Some(self.source.line_of(span)), self.item.clone(), kind)
    }
    /// An `Invalid` error about `field` at `span`.
    pub fn invalid(&self, span: &std::ops::Range<usize>, field: &'static str, reason: String) -> SceneError {
        self.error(span, ErrorKind::Invalid { field, reason })
    }
    /// Checks a spanned number.
    pub fn number(&self, field: &'static str, v: &Num, rule: Rule) -> Result<f64, SceneError> {
        convert::number(*v.get_ref(), rule).map_err(|r| self.invalid(&v.span(), field, r))
    }
    /// Checks an optional spanned number; `default` when absent.
    pub fn number_or(
        &self,
        field: &'static str,
        v: &Option<Num>,
        rule: Rule,
        default: f64,
    ) -> Result<f64, SceneError> {
        v.as_ref().map_or(Ok(default), |v| self.number(field, v, rule))
    }
    /// Checks an optional spanned vector; `default` when absent.
    pub fn vector_or(
        &self,
        field: &'static str,
        v: &Option<Vec3Field>,
        default: Vec3<f64>,
    ) -> Result<Vec3<f64>, SceneError> {
        v.as_ref().map_or(Ok(default), |v| {
            convert::vector(*v.get_ref()).map_err(|r| self.invalid(&v.span(), field, r))
        })
    }
    /// A required key that is optional in the raw format (its presence depends on a type).
    pub fn required<'v, T>(
        &self,
        at: &std::ops::Range<usize>,
        field: &'static str,
        v: &'v Option<T>,
    ) -> Result<&'v T, SceneError> {
        v.as_ref()
            .ok_or_else(|| self.invalid(at, field, "missing (required by this type)".into()))
    }
}

/// Names of one kind of item with where they are declared, for references and duplicate
/// checks.
pub(super) struct Names<'a> {
    kind: &'static str,
    /// Each name's index and the byte offset of its declaration (its line is looked up only
    /// for an error: a million lookups were a tenth of a large scene's registration). Hashed
    /// with foldhash, seeded per process like std's SipHash but several times faster on short
    /// keys; no output depends on the map's order (`order` keeps the file's).
    index: HashMap<&'a str, (usize, usize), foldhash::fast::RandomState>,
    order: Vec<&'a str>,
}

impl<'a> Names<'a> {
    pub fn new(kind: &'static str) -> Self {
        Self::with_capacity(kind, 0)
    }
    /// Room for `n` names made at once: a million names added one by one would rebuild the
    /// index about twenty times.
    pub fn with_capacity(kind: &'static str, n: usize) -> Self {
        Self {
            kind,
            index: HashMap::with_capacity_and_hasher(n, Default::default()),
            order: Vec::with_capacity(n),
        }
    }
    /// Registers `name` declared at `span`; a name breaking [`NAME_RULE`] or a second use is
    /// an error.
    pub fn add(&mut self, c: &Checker, name: &'a Spanned<String>) -> Result<usize, SceneError> {
        check_name(name.get_ref()).map_err(|reason| c.invalid(&name.span(), "name", reason))?;
        if let Some(&(_, first)) = self.index.get(name.get_ref().as_str()) {
            let what = format!("{} name \"{}\"", self.kind, name.get_ref());
            let first_line = c.source.line(first);
            return Err(c.error(&name.span(), ErrorKind::Duplicate { what, first_line }));
        }
        let i = self.order.len();
        self.index.insert(name.get_ref(), (i, name.span().start));
        self.order.push(name.get_ref());
        Ok(i)
    }
    /// The index of `name`, or an error listing what exists.
    pub fn find(
        &self,
        c: &Checker,
        field: &'static str,
        name: &Spanned<String>,
    ) -> Result<usize, SceneError> {
        self.index
            .get(name.get_ref().as_str())
            .map(|&(i, _)| i)
            .ok_or_else(|| {
                let available = self.listing();
                let kind = ErrorKind::UnknownReference {
                    field,
                    name: name.get_ref().clone(),
                    available,
                };
                c.error(&name.span(), kind)
            })
    }
    /// "bodies: a, b" (the kind's plural and the names).
    pub fn listing(&self) -> String {
        format!("{}: {}", self.plural(), self.order.join(", "))
    }
    /// How many names are registered.
    pub fn len(&self) -> usize {
        self.order.len()
    }
    fn plural(&self) -> &'static str {
        match self.kind {
            "body" => "bodies",
            "joint" => "joints",
            "sensor" => "sensors",
            "flexible" => "flexible bodies",
            _ => "items",
        }
    }
    /// A body reference: "ground" or a body name.
    pub fn body_ref(
        &self,
        c: &Checker,
        field: &'static str,
        name: &Spanned<String>,
    ) -> Result<BodyRef, SceneError> {
        if name.get_ref() == GROUND {
            Ok(BodyRef::Ground)
        } else {
            self.find(c, field, name).map(BodyRef::Body)
        }
    }
}
