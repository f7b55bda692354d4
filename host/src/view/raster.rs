//! Software rasterizer: an RGB image with a depth buffer, filled triangles with per-vertex
//! colours (flat when the three are equal, Gouraud otherwise) and depth-tested lines.

use super::camera::Projected;

/// An RGB colour with components in 0…1.
pub type Rgb = [f32; 3];

/// A colour image with a depth buffer (smaller depth is nearer).
#[derive(Clone, Debug)]
pub struct Image {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// Pixels as 0x00RRGGBB, row by row from the top (the layout minifb shows).
    pub pixels: Vec<u32>,
    depth: Vec<f32>,
}

/// Packs a colour into 0x00RRGGBB.
pub fn pack(c: Rgb) -> u32 {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
    (byte(c[0]) << 16) | (byte(c[1]) << 8) | byte(c[2])
}

/// Unpacks 0x00RRGGBB into bytes.
pub fn unpack(p: u32) -> [u8; 3] {
    [(p >> 16) as u8, (p >> 8) as u8, p as u8]
}

impl Image {
    /// A black image, all depths at infinity.
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            pixels: vec![0; width * height],
            depth: vec![f32::INFINITY; width * height],
        }
    }

    /// Fills with a vertical gradient from `top` to `bottom` and clears the depth buffer.
    pub fn clear(&mut self, top: Rgb, bottom: Rgb) {
        for y in 0..self.height {
            let s = y as f32 / self.height.max(2) as f32;
            let c = pack(std::array::from_fn(|i| top[i] + s * (bottom[i] - top[i])));
            self.pixels[y * self.width..(y + 1) * self.width].fill(c);
        }
        self.depth.fill(f32::INFINITY);
    }

    /// The pixel at (x, y) as 0x00RRGGBB; black outside.
    pub fn get(&self, x: usize, y: usize) -> u32 {
        if x < self.width && y < self.height {
            self.pixels[y * self.width + x]
        } else {
            0
        }
    }

    /// Sets a pixel without depth test (overlays: text, colour bar); ignored outside.
    pub fn put(&mut self, x: i64, y: i64, c: u32) {
        if (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y) {
            self.pixels[y as usize * self.width + x as usize] = c;
        }
    }

    /// Sets a pixel when `depth` is nearer than what is there.
    fn plot(&mut self, x: usize, y: usize, depth: f32, c: u32) {
        let i = y * self.width + x;
        if depth < self.depth[i] {
            self.depth[i] = depth;
            self.pixels[i] = c;
        }
    }

    /// The image as packed RGB bytes, row by row from the top.
    pub fn to_rgb(&self) -> Vec<u8> {
        self.pixels.iter().flat_map(|&p| unpack(p)).collect()
    }

    /// Fills the triangle with colours interpolated from its vertices and depth tested.
    pub fn triangle(&mut self, p: [Projected; 3], c: [Rgb; 3]) {
        let area = edge(&p[0], &p[1], p[2].x, p[2].y);
        if area.abs() < 1e-12 || !area.is_finite() {
            return;
        }
        let min_x = p
            .iter()
            .map(|q| q.x)
            .fold(f64::INFINITY, f64::min)
            .floor()
            .max(0.0);
        let max_x = p
            .iter()
            .map(|q| q.x)
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil()
            .min(self.width as f64 - 1.0);
        let min_y = p
            .iter()
            .map(|q| q.y)
            .fold(f64::INFINITY, f64::min)
            .floor()
            .max(0.0);
        let max_y = p
            .iter()
            .map(|q| q.y)
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil()
            .min(self.height as f64 - 1.0);
        if min_x > max_x || min_y > max_y {
            return;
        }
        let flat = c[0] == c[1] && c[1] == c[2];
        let flat_colour = pack(c[0]);
        // Perspective-correct interpolation: 1/depth is linear in screen space.
        let inv = p.map(|q| 1.0 / q.depth);
        for y in min_y as usize..=max_y as usize {
            let py = y as f64 + 0.5;
            for x in min_x as usize..=max_x as usize {
                let px = x as f64 + 0.5;
                let w0 = edge(&p[1], &p[2], px, py) / area;
                let w1 = edge(&p[2], &p[0], px, py) / area;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let inv_depth = w0 * inv[0] + w1 * inv[1] + w2 * inv[2];
                let depth = (1.0 / inv_depth) as f32;
                let colour = if flat {
                    flat_colour
                } else {
                    let b = [w0 * inv[0], w1 * inv[1], w2 * inv[2]].map(|w| (w / inv_depth) as f32);
                    pack(std::array::from_fn(|i| {
                        b[0] * c[0][i] + b[1] * c[1][i] + b[2] * c[2][i]
                    }))
                };
                self.plot(x, y, depth, colour);
            }
        }
    }

    /// Draws a depth-tested line; `bias` (a fraction of the depth) pulls it towards the camera
    /// so lines on a surface stay visible at grazing angles too.
    pub fn line(&mut self, a: Projected, b: Projected, c: Rgb, bias: f64) {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let n = dx.abs().max(dy.abs()).ceil();
        // Lines of absurd screen length come from points just past the near plane.
        if !n.is_finite() || n > 1e5 {
            return;
        }
        let colour = pack(c);
        let n = n.max(1.0) as usize;
        for k in 0..=n {
            let s = k as f64 / n as f64;
            let (x, y) = (a.x + s * dx, a.y + s * dy);
            if x < 0.0 || y < 0.0 || x >= self.width as f64 || y >= self.height as f64 {
                continue;
            }
            let depth = (1.0 - bias) / ((1.0 - s) / a.depth + s / b.depth);
            self.plot(x as usize, y as usize, depth as f32, colour);
        }
    }
}

/// Twice the signed area of (a, b, (x, y)).
fn edge(a: &Projected, b: &Projected, x: f64, y: f64) -> f64 {
    (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: f64, y: f64, depth: f64) -> Projected {
        Projected { x, y, depth }
    }

    const RED: Rgb = [1.0, 0.0, 0.0];
    const BLUE: Rgb = [0.0, 0.0, 1.0];

    #[test]
    fn nearer_triangle_wins_in_either_drawing_order() {
        for near_first in [true, false] {
            let mut img = Image::new(20, 20);
            let near = [at(0.0, 0.0, 1.0), at(20.0, 0.0, 1.0), at(0.0, 20.0, 1.0)];
            let far = [at(0.0, 0.0, 2.0), at(20.0, 0.0, 2.0), at(20.0, 20.0, 2.0)];
            if near_first {
                img.triangle(near, [RED; 3]);
                img.triangle(far, [BLUE; 3]);
            } else {
                img.triangle(far, [BLUE; 3]);
                img.triangle(near, [RED; 3]);
            }
            assert_eq!(img.get(12, 4), pack(RED), "overlap: the near triangle shows");
            assert_eq!(img.get(18, 15), pack(BLUE), "only the far one covers this pixel");
            assert_eq!(img.get(2, 15), pack(RED));
        }
    }

    #[test]
    fn triangles_cover_their_area_in_both_windings_and_clip_to_the_image() {
        let mut img = Image::new(10, 10);
        img.triangle(
            [at(-5.0, -5.0, 1.0), at(-5.0, 15.0, 1.0), at(15.0, -5.0, 1.0)],
            [RED; 3],
        );
        assert_eq!(img.get(0, 0), pack(RED));
        assert_eq!(img.get(9, 9), 0);
        let mut img = Image::new(10, 10);
        img.triangle(
            [at(0.0, 0.0, 1.0), at(10.0, 0.0, 1.0), at(0.0, 10.0, 1.0)],
            [RED; 3],
        );
        assert_eq!(img.get(1, 1), pack(RED));
        assert_eq!(img.get(9, 9), 0);
    }

    #[test]
    fn gouraud_blends_vertex_colours_and_lines_respect_depth() {
        let mut img = Image::new(30, 30);
        img.triangle(
            [at(0.0, 0.0, 1.0), at(30.0, 0.0, 1.0), at(0.0, 30.0, 1.0)],
            [RED, BLUE, BLUE],
        );
        let [r, _, b] = unpack(img.get(8, 8));
        assert!(r > 50 && b > 50, "a mix of both colours: {r} {b}");
        img.line(at(0.0, 5.0, 5.0), at(29.0, 5.0, 5.0), [0.0, 1.0, 0.0], 0.0);
        assert_ne!(img.get(5, 5), pack([0.0, 1.0, 0.0]), "hidden behind the triangle");
        assert_eq!(img.get(29, 5), pack([0.0, 1.0, 0.0]), "in the open");
    }
}
