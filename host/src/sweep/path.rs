//! Parameter paths: a dotted address of one value in a scene's TOML (`simulation.step`,
//! `body.bob.mass`, `flexible.beam.material.E`, `simulation.gravity.2`). A segment after an
//! array of tables (`[[body]]`) selects the element by its `name` field (or by its position,
//! `contact_material.0`); a segment after an array of values selects by position. Values are
//! set in place in a [`DocumentMut`], so the file keeps its order, comments and line numbers.

use std::path::Path;
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, Value};

/// What kind of value a path addresses, which decides how a parameter's values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A number; `integer` when the scene writes it as an integer (kept one when the value is
    /// whole, so `id = 3` stays an integer).
    Number {
        /// Written as an integer in the scene.
        integer: bool,
    },
    /// A string (e.g. `simulation.integrator`).
    Text,
    /// A boolean (e.g. `output.plots`).
    Bool,
}

/// The kind of the value at `path` in `doc`; the error says which segment does not exist
/// and what does.
pub fn kind_at(doc: &mut DocumentMut, path: &str) -> Result<Kind, String> {
    let value = locate(doc, path)?;
    match value {
        Value::Integer(_) => Ok(Kind::Number { integer: true }),
        Value::Float(_) => Ok(Kind::Number { integer: false }),
        Value::String(_) => Ok(Kind::Text),
        Value::Boolean(_) => Ok(Kind::Bool),
        Value::Datetime(_) => Err(format!(
            "{path} is a date-time; only numbers, strings and booleans can be swept"
        )),
        Value::Array(_) => Err(format!("{path} is an array; address one element, e.g. {path}.0")),
        Value::InlineTable(t) => Err(format!(
            "{path} is a table; address one of its keys ({})",
            keys(t.iter().map(|(k, _)| k))
        )),
    }
}

/// Sets the value at `path` to `cell` (a manifest cell: a number, a string or `true`/`false`,
/// as the scene's value there is), keeping the comment around it.
pub fn assign(doc: &mut DocumentMut, path: &str, cell: &str) -> Result<(), String> {
    let kind = kind_at(doc, path)?;
    let new = match kind {
        Kind::Number { integer } => {
            let x: f64 = cell
                .parse()
                .map_err(|_| format!("{path}: '{cell}' is not a number"))?;
            // An integer stays one when the value is whole and exactly representable.
            if integer && x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
                Value::from(x as i64)
            } else {
                Value::from(x)
            }
        }
        Kind::Text => Value::from(cell),
        Kind::Bool => Value::from(
            cell.parse::<bool>()
                .map_err(|_| format!("{path}: '{cell}' is not true or false"))?,
        ),
    };
    let old = locate(doc, path)?;
    let decor = old.decor().clone();
    *old = new;
    *old.decor_mut() = decor;
    Ok(())
}

/// Makes every relative `mesh = "…"` file name absolute against `dir`, so a copy of the scene
/// elsewhere (the study directory) reads the same meshes.
pub fn absolute_meshes(doc: &mut DocumentMut, dir: &Path) {
    fn in_table(table: &mut Table, dir: &Path) {
        for (key, item) in table.iter_mut() {
            match item {
                Item::Table(t) => in_table(t, dir),
                Item::ArrayOfTables(a) => a.iter_mut().for_each(|t| in_table(t, dir)),
                Item::Value(v) => in_value(key.get(), v, dir),
                Item::None => {}
            }
        }
    }
    fn in_value(key: &str, value: &mut Value, dir: &Path) {
        match value {
            Value::String(s) if key == "mesh" && Path::new(s.value()).is_relative() => {
                let absolute = dir.join(s.value()).to_string_lossy().into_owned();
                let decor = value.decor().clone();
                *value = Value::from(absolute);
                *value.decor_mut() = decor;
            }
            Value::InlineTable(t) => t.iter_mut().for_each(|(k, v)| in_value(k.get(), v, dir)),
            Value::Array(a) => a.iter_mut().for_each(|v| in_value("", v, dir)),
            _ => {}
        }
    }
    in_table(doc.as_table_mut(), dir);
}

/// The value at `path`; the error names the first segment that leads nowhere and lists what
/// is there instead.
fn locate<'a>(doc: &'a mut DocumentMut, path: &str) -> Result<&'a mut Value, String> {
    let segments: Vec<&str> = path.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(format!(
            "'{path}' is not a path: segments are separated by single dots"
        ));
    }
    in_table(doc.as_table_mut(), &segments, "the scene", path)
}

fn in_table<'a>(table: &'a mut Table, rest: &[&str], at: &str, path: &str) -> Result<&'a mut Value, String> {
    let Some((first, rest)) = rest.split_first() else {
        return Err(format!(
            "{path} is a table; address one of its keys ({})",
            keys(table.iter().map(|(k, _)| k))
        ));
    };
    let known = keys(table.iter().map(|(k, _)| k));
    match table.get_mut(first) {
        Some(item) => in_item(item, rest, &extend(at, first), path),
        None => Err(format!("{at} has no key `{first}` (keys: {known})")),
    }
}

fn in_item<'a>(item: &'a mut Item, rest: &[&str], at: &str, path: &str) -> Result<&'a mut Value, String> {
    match item {
        Item::Value(v) => in_value(v, rest, at),
        Item::Table(t) => in_table(t, rest, at, path),
        Item::ArrayOfTables(tables) => {
            let Some((first, rest)) = rest.split_first() else {
                return Err(format!(
                    "{path} is an array of tables; select one by name, e.g. {path}.NAME"
                ));
            };
            let table = select_table(tables, first, at)?;
            in_table(table, rest, &extend(at, first), path)
        }
        Item::None => Err(format!("{at} has no value")),
    }
}

fn in_value<'a>(value: &'a mut Value, rest: &[&str], at: &str) -> Result<&'a mut Value, String> {
    let Some((first, rest)) = rest.split_first() else {
        return Ok(value);
    };
    match value {
        Value::InlineTable(t) => {
            let known = keys(t.iter().map(|(k, _)| k));
            match t.get_mut(first) {
                Some(v) => in_value(v, rest, &extend(at, first)),
                None => Err(format!("{at} has no key `{first}` (keys: {known})")),
            }
        }
        Value::Array(a) => {
            let names: Vec<Option<String>> = a
                .iter()
                .map(|v| {
                    v.as_inline_table()
                        .and_then(|t| t.get("name"))
                        .and_then(|n| n.as_str())
                        .map(String::from)
                })
                .collect();
            let position = names
                .iter()
                .position(|n| n.as_deref() == Some(*first))
                .or_else(|| first.parse::<usize>().ok().filter(|&i| i < names.len()));
            let len = names.len();
            match position.and_then(|i| a.get_mut(i)) {
                Some(v) => in_value(v, rest, &extend(at, first)),
                None => Err(format!(
                    "{at} has no element `{first}` ({})",
                    elements(&names, len)
                )),
            }
        }
        _ => Err(format!("{at} is a single value; it has no `{first}`")),
    }
}

/// The element of an array of tables named `segment` (its `name` field), else at that position.
fn select_table<'a>(tables: &'a mut ArrayOfTables, segment: &str, at: &str) -> Result<&'a mut Table, String> {
    let names: Vec<Option<String>> = tables
        .iter()
        .map(|t| t.get("name").and_then(|n| n.as_str()).map(String::from))
        .collect();
    let position = names
        .iter()
        .position(|n| n.as_deref() == Some(segment))
        .or_else(|| segment.parse::<usize>().ok().filter(|&i| i < names.len()));
    let len = names.len();
    position.and_then(|i| tables.get_mut(i)).ok_or_else(|| {
        format!(
            "{at} has no element named `{segment}` ({})",
            elements(&names, len)
        )
    })
}

/// "names: a, b" or "positions 0…n−1" for an error message.
fn elements(names: &[Option<String>], len: usize) -> String {
    let named: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
    match (named.is_empty(), len) {
        (_, 0) => "it is empty".into(),
        (true, n) => format!("positions 0…{}", n - 1),
        (false, _) => format!("names: {}", named.join(", ")),
    }
}

fn keys<'k>(keys: impl Iterator<Item = &'k str>) -> String {
    keys.collect::<Vec<_>>().join(", ")
}

fn extend(at: &str, segment: &str) -> String {
    if at == "the scene" {
        segment.to_string()
    } else {
        format!("{at}.{segment}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = "[simulation]\nstep = 1e-3 # s\ngravity = [0.0, 0.0, -9.81]\n\n[[body]]\nid = 1\nname = \"bob\"\nmass = 1.0\ninertia = { Ixx = 4e-05, Iyy = 4e-05, Izz = 4e-05 }\n";

    #[test]
    fn finds_and_sets_values_keeping_the_rest_of_the_file() {
        let mut doc: DocumentMut = SCENE.parse().unwrap();
        assert_eq!(
            kind_at(&mut doc, "body.bob.mass"),
            Ok(Kind::Number { integer: false })
        );
        assert_eq!(kind_at(&mut doc, "body.0.id"), Ok(Kind::Number { integer: true }));
        assert_eq!(kind_at(&mut doc, "body.bob.name"), Ok(Kind::Text));
        assert_eq!(
            kind_at(&mut doc, "body.bob.inertia.Ixx"),
            Ok(Kind::Number { integer: false })
        );
        assign(&mut doc, "simulation.step", "2e-3").unwrap();
        assign(&mut doc, "simulation.gravity.2", "-1.5e0").unwrap();
        assign(&mut doc, "body.bob.id", "7e0").unwrap();
        let text = doc.to_string();
        assert!(text.contains("step = 0.002 # s\n"), "{text}");
        assert!(text.contains("gravity = [0.0, 0.0, -1.5]"), "{text}");
        assert!(text.contains("id = 7\n"), "{text}");
        assert_eq!(text.lines().count(), SCENE.lines().count());
    }

    #[test]
    fn unknown_segments_are_named_with_what_exists() {
        let mut doc: DocumentMut = SCENE.parse().unwrap();
        let e = kind_at(&mut doc, "body.bobb.mass").unwrap_err();
        assert!(e.contains("body has no element named `bobb` (names: bob)"), "{e}");
        let e = kind_at(&mut doc, "simulation.stepp").unwrap_err();
        assert!(
            e.contains("simulation has no key `stepp` (keys: step, gravity)"),
            "{e}"
        );
        let e = kind_at(&mut doc, "simulation.gravity.3").unwrap_err();
        assert!(
            e.contains("simulation.gravity has no element `3` (positions 0…2)"),
            "{e}"
        );
        let e = kind_at(&mut doc, "simulation.gravity").unwrap_err();
        assert!(e.contains("is an array"), "{e}");
        assert!(kind_at(&mut doc, "simulation..step").is_err());
    }
}
