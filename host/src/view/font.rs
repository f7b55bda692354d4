//! On-screen text with the 8×8 bitmap font of `font8x8` (ASCII; anything else draws as '?').

use super::raster::{pack, Image, Rgb};
use font8x8::legacy::BASIC_LEGACY;

/// Height of a text line at scale 1, with spacing (pixels).
pub const LINE_HEIGHT: usize = 10;

/// Width of `text` in pixels at `scale`.
pub fn text_width(text: &str, scale: usize) -> usize {
    8 * scale * text.chars().count()
}

/// Draws `text` with its top-left corner at (x, y), each font pixel a `scale`×`scale` block,
/// over a one-pixel dark shadow so it reads on any background.
pub fn draw_text(img: &mut Image, x: i64, y: i64, text: &str, colour: Rgb, scale: usize) {
    let scale = scale.max(1) as i64;
    for (offset, c) in [(1, pack([0.0; 3])), (0, pack(colour))] {
        for (k, ch) in text.chars().enumerate() {
            let glyph = BASIC_LEGACY[if ch.is_ascii() { ch as usize } else { '?' as usize }];
            let left = x + offset + 8 * scale * k as i64;
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) != 0 {
                        for sy in 0..scale {
                            for sx in 0..scale {
                                img.put(left + col * scale + sx, y + offset + row as i64 * scale + sy, c);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_sets_pixels_inside_its_box_only() {
        let mut img = Image::new(40, 12);
        draw_text(&mut img, 2, 2, "Hi", [1.0, 1.0, 1.0], 1);
        let lit: Vec<(usize, usize)> = (0..12)
            .flat_map(|y| (0..40).map(move |x| (x, y)))
            .filter(|&(x, y)| img.get(x, y) == pack([1.0, 1.0, 1.0]))
            .collect();
        assert!(lit.len() > 10);
        assert!(lit
            .iter()
            .all(|&(x, y)| (2..2 + 16).contains(&x) && (2..10).contains(&y)));
        assert_eq!(text_width("Hi", 2), 32);
    }
}
