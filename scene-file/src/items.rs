//! Large scene files parsed item by item: every `[[body]]` and `[[joint]]` table on its own,
//! the rest of the file as one document with those tables blanked out (byte offsets, so
//! lines, unchanged).
//!
//! The TOML parser lexes a whole document into tokens and events and builds a table tree
//! before deserializing it: about 16 kB of memory per body, 16 GB and minutes for 10⁶
//! bodies. One item at a time, only the raw scene stays. The split is the parser's own
//! whenever it is used: a header is a line starting with `[` outside any string, array or
//! inline table; a `[[body]]` table holds the key/value lines up to the next header. Any file
//! this reading does not cover exactly (multi-line strings, other headers naming `body` or
//! `joint`, a syntax error anywhere) is parsed as one document, as before, so errors read the
//! same either way.

use std::ops::Range;

use serde::de::DeserializeOwned;
use toml::Spanned;

use super::format::{RawBody, RawFrame, RawJoint, RawScene};
use super::parallel;

/// Parses the scene file `text` (item by item where that reads the same, else whole).
pub fn parse(text: &str) -> Result<RawScene, toml::de::Error> {
    by_items(text).map_or_else(|| toml::from_str(text), Ok)
}

/// The file parsed item by item; `None` where that would not read as the whole document.
fn by_items(text: &str) -> Option<RawScene> {
    let headers = headers(text)?;
    // (header line, end) of every `[[body]]` and of every `[[joint]]` table.
    let (mut bodies, mut joints) = (Vec::new(), Vec::new());
    // Where the text after the last table that is not an item starts: the items from there on
    // are left out of the rest rather than blanked (a 10⁶-body file is 380 MB of them).
    let mut tail = 0;
    for (k, header) in headers.iter().enumerate() {
        let end = headers.get(k + 1).map_or(text.len(), |next| next.start);
        let name = text[header.clone()].trim();
        match name {
            "[[body]]" => bodies.push((header.clone(), end)),
            "[[joint]]" => joints.push((header.clone(), end)),
            // `[body.x]`, `[[ body ]]` and the like extend or repeat the items: whole file.
            _ if name.contains("body") || name.contains("joint") => return None,
            _ => tail = end,
        }
    }
    if bodies.is_empty() && joints.is_empty() {
        return toml::from_str(text).ok();
    }
    // Before the first header when the file starts with items.
    let tail = tail.max(headers.first().map_or(0, |h| h.start));
    // The rest: the text up to the trailing items, those before them blanked (byte offsets, so
    // lines, unchanged). Its blanks end a line: what it leaves out is whitespace to the parser.
    let mut rest = text.as_bytes()[..tail].to_vec();
    for (header, end) in bodies.iter().chain(&joints) {
        if let Some(blank) = rest.get_mut(header.start..(*end).min(tail)) {
            blank.fill(b' ');
        }
    }
    let mut scene: RawScene = toml::from_str(std::str::from_utf8(&rest).ok()?).ok()?;
    if !scene.body.is_empty() || !scene.joint.is_empty() {
        return None;
    }
    // The bodies, then the joints, each on every core for a large file.
    scene.body = parallel::map(&bodies, || true, |_, (header, end)| item(text, header, *end))?;
    scene.joint = parallel::map(&joints, || true, |_, (header, end)| item(text, header, *end))?;
    Some(scene)
}

/// The table of the header at `header` (the header line's byte range), ending at `end`,
/// with its spans in file offsets.
fn item<T: DeserializeOwned + Shift>(text: &str, header: &Range<usize>, end: usize) -> Option<Spanned<T>> {
    let body = header.end.min(end);
    let table = &text[body..end];
    // The common flat shape fast; anything else, and every error, the parser's.
    let value: T = super::flat::from_str(table).or_else(|| toml::from_str(table).ok())?;
    // The parser spans an array-of-tables item by its header.
    let line = &text[header.clone()];
    let start = header.start + line.len() - line.trim_start().len();
    Some(Spanned::new(start..start + line.trim().len(), value.shift(body)))
}

/// The byte ranges of the table header lines of `text` (line start to line end), `None` for
/// a file with multi-line strings (their content could look like a header). Scanned in parts
/// on every core for a large file ([`headers_in`]).
fn headers(text: &str) -> Option<Vec<Range<usize>>> {
    headers_in(text, parallel::parts(text))
}

/// [`headers`] of `text` scanned in `parts` pieces cut at line starts, each on its own thread.
/// A piece is scanned as if no array or inline table were open at its start; when one is (a
/// value spanning the cut, which a scene file rarely has), the whole text is scanned in one
/// piece instead, so the result is always the one-piece scan's. A multi-line string in any
/// piece is one in the whole text (a quote reads the same at any depth).
fn headers_in(text: &str, parts: usize) -> Option<Vec<Range<usize>>> {
    if parts < 2 {
        return scan(text, 0).map(|(headers, _)| headers);
    }
    let pieces: Option<Vec<(Vec<Range<usize>>, usize)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = parallel::pieces(text, parts)
            .into_iter()
            .map(|piece| scope.spawn(move || scan(&text[piece.clone()], piece.start)))
            .collect();
        // A panic in one is its piece not read: the file is then parsed whole, as with a
        // multi-line string.
        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    let pieces = pieces?;
    let open_at_a_cut = pieces.iter().rev().skip(1).any(|(_, depth)| *depth > 0);
    if open_at_a_cut {
        return scan(text, 0).map(|(headers, _)| headers);
    }
    Some(pieces.into_iter().flat_map(|(headers, _)| headers).collect())
}

/// The header lines of `text` (starting at byte `offset` of the file) and the depth of arrays
/// and inline tables open at its end, scanned from depth 0; `None` at a multi-line string.
/// Read as bytes: the characters that matter are ASCII, which no byte of a longer UTF-8
/// character is.
fn scan(text: &str, offset: usize) -> Option<(Vec<Range<usize>>, usize)> {
    let mut headers = Vec::new();
    // Open arrays and inline tables: a value may span lines.
    let mut depth = 0usize;
    let mut start = offset;
    for line in text.as_bytes().split_inclusive(|&c| c == b'\n') {
        let range = start..start + line.len();
        start = range.end;
        let code = line.trim_ascii_start();
        if depth == 0 && code.first() == Some(&b'[') {
            headers.push(range);
            continue;
        }
        let mut bytes = code.iter();
        while let Some(c) = bytes.next() {
            match c {
                b'#' => break,
                // A multi-line string starts with three quotes (seen here, in the one pass).
                b'"' | b'\'' if bytes.as_slice().starts_with(&[*c, *c]) => return None,
                b'"' => skip_string(&mut bytes, b'"', true),
                b'\'' => skip_string(&mut bytes, b'\'', false),
                b'[' | b'{' => depth += 1,
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    Some((headers, depth))
}

/// Skips to the end of a one-line string closed by `quote` (`escapes`: a basic string).
fn skip_string(bytes: &mut std::slice::Iter<u8>, quote: u8, escapes: bool) {
    while let Some(&c) = bytes.next() {
        if c == quote {
            return;
        }
        if escapes && c == b'\\' {
            bytes.next();
        }
    }
}

/// Moves every span of a raw item by `by` bytes (an item parsed on its own starts at 0).
trait Shift {
    fn shift(self, by: usize) -> Self;
}

impl<T> Shift for Spanned<T> {
    fn shift(self, by: usize) -> Self {
        let span = self.span();
        Spanned::new(span.start + by..span.end + by, self.into_inner())
    }
}

impl<T: Shift> Shift for Option<T> {
    fn shift(self, by: usize) -> Self {
        self.map(|v| v.shift(by))
    }
}

impl Shift for RawBody {
    fn shift(self, by: usize) -> Self {
        Self {
            id: self.id.shift(by),
            name: self.name.shift(by),
            mass: self.mass.shift(by),
            inertia: self.inertia.shift(by),
            cg: self.cg.shift(by),
            pos: self.pos.shift(by),
            orient: self.orient.shift(by),
            velocity: self.velocity.shift(by),
            angular_velocity: self.angular_velocity.shift(by),
        }
    }
}

impl Shift for RawFrame {
    fn shift(self, by: usize) -> Self {
        Self {
            origin: self.origin,
            axis: self.axis.shift(by),
            orientation: self.orientation,
        }
    }
}

impl Shift for RawJoint {
    fn shift(self, by: usize) -> Self {
        let frame = |f: Option<Spanned<RawFrame>>| {
            f.map(|f| {
                let span = f.span();
                Spanned::new(span.start + by..span.end + by, f.into_inner().shift(by))
            })
        };
        Self {
            name: self.name.shift(by),
            kind: self.kind.shift(by),
            body_i: self.body_i.shift(by),
            body_j: self.body_j.shift(by),
            frame_i: frame(self.frame_i),
            frame_j: frame(self.frame_j),
            length: self.length.shift(by),
            limits: self.limits.shift(by),
            limit_stiffness: self.limit_stiffness.shift(by),
            limit_damping: self.limit_damping.shift(by),
            armature: self.armature.shift(by),
            friction: self.friction.shift(by),
            friction_velocity: self.friction_velocity.shift(by),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Item by item and whole, the raw scenes must print the same (values and spans).
    fn assert_same(items: &RawScene, whole: &RawScene, name: &str) {
        let (items, whole) = (format!("{items:?}"), format!("{whole:?}"));
        if let Some(at) = items.bytes().zip(whole.bytes()).position(|(a, b)| a != b) {
            let near = |s: &str| s[at.saturating_sub(200)..(at + 100).min(s.len())].to_string();
            panic!("{name}: items {} whole {}", near(&items), near(&whole));
        }
        assert_eq!(items.len(), whole.len(), "{name}");
    }

    #[test]
    fn a_large_file_reads_on_several_threads_as_whole() {
        // 3,000 bodies and joints (more items than one thread takes), with comments, a
        // multi-line array and strings holding brackets between them.
        let mut text = String::from("[simulation]\nend_time = 1e-3\nstep = 1e-3\n");
        for k in 0..3_000 {
            text += &format!(
                "[[body]]\nid = {k}\nname = \"rod[{k}\" # [[joint]]\nmass = 1.0\ninertia = {{ Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }}\npos = [\n  {k}.5,\n  0.0, 0.0]\n"
            );
        }
        for k in 0..3_000 {
            let parent = if k == 0 {
                "ground".to_string()
            } else {
                format!("rod[{}", k - 1)
            };
            text += &format!(
                "\n[[joint]]\nname = \"hinge{k}\"\ntype = \"revolute\"\nbody_i = \"{parent}\"\nbody_j = \"rod[{k}\"\nframe_i = {{ origin = [0.5, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}\n"
            );
        }
        text += "[output]\nplots = false\n";
        let whole: RawScene = toml::from_str(&text).unwrap();
        assert_eq!((whole.body.len(), whole.joint.len()), (3_000, 3_000));
        assert_same(&by_items(&text).expect("read by items"), &whole, "3,000 rods");
        // Its headers scanned in pieces are the one-piece scan's: with arrays open across the
        // cuts (the pieces then give way to one scan), and with every array on one line.
        let one_line = text.replace("[\n  ", "[").replace(",\n  ", ", ");
        for text in [&text, &one_line] {
            let one = headers_in(text, 1).expect("no multi-line strings");
            assert_eq!(one.len(), 6_002);
            for parts in 2..9 {
                assert_eq!(headers_in(text, parts).as_ref(), Some(&one), "{parts} pieces");
            }
        }
        let multi_line = format!("{one_line}[extra]\nnote = '''\n[[body]]\n'''\n");
        assert_eq!(headers_in(&multi_line, 4), None);
    }

    #[test]
    fn headers_scanned_in_pieces_are_the_one_piece_scan() {
        // Nested arrays over several lines: in a piece cut inside one, `[1, 2],` starts a line
        // at depth 0, and only the depth carried from the piece before tells it from a header.
        let text: String = (0..500)
            .map(|k| format!("[t{k}]\nx = [\n[{k}, 2],\n[3, 4]\n]\n"))
            .collect();
        let one = headers_in(&text, 1).expect("no multi-line strings");
        assert_eq!(one.len(), 500);
        for parts in 2..12 {
            assert_eq!(headers_in(&text, parts).as_ref(), Some(&one), "{parts} pieces");
        }
    }

    #[test]
    fn items_first_or_last_in_the_file_read_as_whole() {
        // Items last are left out of the rest, not blanked: what comes before keeps its
        // values and spans.
        let body = |k: usize| {
            format!("[[body]]\nid = {k}\nname = \"b{k}\"\nmass = 1.0\ninertia = {{ Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }}\n")
        };
        let simulation = "[simulation]\nend_time = 1e-3\nstep = 1e-3\n";
        for text in [
            format!("# two rods\n{simulation}{}{}", body(0), body(1)),
            format!("{}{simulation}{}", body(0), body(1)),
            format!("{}{}{simulation}", body(0), body(1)),
        ] {
            let whole: RawScene = toml::from_str(&text).unwrap();
            assert_same(&by_items(&text).expect("read by items"), &whole, &text);
        }
    }

    #[test]
    fn a_file_the_split_does_not_cover_reads_whole() {
        // A sub-table of a body, and a multi-line string: the whole document's reading.
        for text in [
            "[simulation]\nend_time = 1.0\nstep = 0.1\n[[body]]\nid = 1\nname = \"a\"\nmass = 1.0\n[body.inertia]\nIxx = 1.0\nIyy = 1.0\nIzz = 1.0\n",
            "[simulation]\nend_time = 1.0\nstep = 0.1\nintegrator = \"\"\"\n[[body]]\n\"\"\"\n",
            "[simulation]\nend_time = 1.0\nstep = 0.1\nintegrator = '''\n[[body]]\n'''\n",
        ] {
            assert!(by_items(text).is_none(), "{text}");
        }
    }

    /// Every shipped scene reads the same item by item as whole: the same values and spans.
    #[test]
    fn items_read_as_the_whole_document() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
        let mut read = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(whole) = toml::from_str::<RawScene>(&text) else {
                continue;
            };
            let items = by_items(&text).unwrap_or_else(|| panic!("{}: not read by items", path.display()));
            assert_same(&items, &whole, &path.display().to_string());
            read += 1;
        }
        assert!(read >= 10, "{read} scenes");
    }
}
