//! Looking at results: a software 3D renderer of a scene's state, an interactive minifb window
//! (`ferrodyn view`), headless PNG/MP4 rendering (`ferrodyn render`) and MP4 recording.

pub mod camera;
pub mod colormap;
pub mod font;
pub mod raster;
pub mod record;
pub mod scene_draw;
pub mod session;
pub mod window;

use crate::compile::compile;
use crate::output::OutputDir;
use crate::plot::write_png;
use crate::record::Recorder;
use crate::scene::Scene;
use crate::simulation::{drive, Sample, Simulation};
use anyhow::{bail, Context, Result};
use camera::Camera;
use colormap::Field;
use font::{draw_text, LINE_HEIGHT};
use raster::Image;
use record::Mp4Recorder;
use scene_draw::{DrawOptions, SceneDrawing};
use session::Session;
use std::path::{Path, PathBuf};

/// The picture of a scene: its prepared drawing, the camera, what to draw, and the last frame.
pub struct Picture {
    /// The prepared drawing of the scene.
    pub drawing: SceneDrawing,
    /// The camera.
    pub camera: Camera,
    /// What to draw.
    pub options: DrawOptions,
    /// The last frame drawn.
    pub image: Image,
}

impl Picture {
    /// A `width`×`height` picture of `scene` at the state of `sim`, camera framing it.
    pub fn new(scene: &Scene, sim: &Simulation, width: usize, height: usize, field: Field) -> Self {
        let drawing = SceneDrawing::new(scene, sim);
        Self {
            camera: drawing.home_camera(),
            drawing,
            options: DrawOptions {
                field,
                ..DrawOptions::default()
            },
            image: Image::new(width, height),
        }
    }

    /// Draws the state of `sim` with `lines` of text at the top left (time and its total
    /// `energy` first; `None`: not evaluable).
    pub fn draw(&mut self, scene: &Scene, sim: &Simulation, energy: Option<f64>, lines: &[String]) {
        self.drawing
            .draw(&mut self.image, &self.camera, scene, sim, &self.options);
        let energy = energy.map_or("E = n/a".to_string(), |e| format!("E = {} J", number(e)));
        let head = [format!("t = {:.4} s", sim.time()), energy];
        for (k, line) in head.iter().chain(lines).enumerate() {
            draw_text(
                &mut self.image,
                8,
                8 + (k * LINE_HEIGHT) as i64,
                line,
                [1.0, 1.0, 1.0],
                1,
            );
        }
    }
}

/// A scene being simulated interactively with its picture.
pub struct Viewport {
    /// The scene and its simulation.
    pub session: Session,
    /// Its picture.
    pub picture: Picture,
}

impl Viewport {
    /// A viewport of `width`×`height` pixels on `scene` at its initial state, camera framing it.
    pub fn new(scene: Scene, width: usize, height: usize, field: Field) -> Result<Self> {
        let session = Session::new(scene)?;
        let picture = Picture::new(session.scene(), session.simulation(), width, height, field);
        Ok(Self { session, picture })
    }

    /// Draws the current state with `lines` of text at the top left (time and energy first).
    pub fn draw(&mut self, lines: &[String]) {
        let session = &self.session;
        let energy = session.energy();
        self.picture
            .draw(session.scene(), session.simulation(), energy, lines);
    }
}

/// A number for the overlay: fixed point in the readable range, scientific outside it.
pub fn number(x: f64) -> String {
    if x == 0.0 || (1e-3..1e6).contains(&x.abs()) {
        format!("{x:.6}")
    } else {
        format!("{x:.4e}")
    }
}

/// Settings of `ferrodyn render`.
#[derive(Clone, Debug)]
pub struct RenderSettings {
    /// Number of frames, ≥ 1.
    pub frames: usize,
    /// End time (s) [default: the scene's].
    pub end: Option<f64>,
    /// Image width and height (pixels).
    pub size: (usize, usize),
    /// Field colouring flexible bodies.
    pub field: Field,
    /// One MP4 file instead of PNG frames.
    pub mp4: bool,
    /// Overwrite files that exist.
    pub force: bool,
}

/// Parses `WIDTHxHEIGHT`.
pub fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("size '{text}' is not WIDTHxHEIGHT"))?;
    let parse = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("size '{text}' is not WIDTHxHEIGHT"))
    };
    let (w, h) = (parse(w)?, parse(h)?);
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        return Err(format!("size {w}x{h}: width and height must be 16 … 8192"));
    }
    Ok((w, h))
}

/// `ferrodyn render`: simulates the scene without a window and writes `frames` pictures evenly
/// spaced from t = 0 to the end time (one frame: the end time) as `frame_NNNNN.png`, or one
/// `SCENE.mp4` at 60 fps, through the drive loop with a frame recorder. Returns the files.
pub fn render(path: &Path, out: &Path, settings: RenderSettings) -> Result<Vec<PathBuf>> {
    if settings.frames == 0 {
        bail!("--frames must be at least 1");
    }
    let mut scene = crate::import::load_scene(path)?;
    if let Some(end) = settings.end {
        if !(end > 0.0 && end.is_finite()) {
            bail!("--end must be > 0 (got {end})");
        }
        scene.simulation.end_time = end;
    }
    let dir = OutputDir::create(out, settings.force)?;
    let stem = path
        .file_stem()
        .map_or("scene".into(), |s| s.to_string_lossy().into_owned());
    let mut sim = compile(&scene)?;
    // Frames at whole steps: every `spacing` steps, the last at the end time.
    let steps = sim.timing.steps();
    let intervals = settings.frames.max(2) as u64 - 1;
    if steps < intervals {
        bail!(
            "--frames {} needs at least {intervals} steps; the run has {steps}",
            settings.frames
        );
    }
    sim.timing.output_interval = (steps / intervals) as f64 * sim.timing.step;
    let (width, height) = settings.size;
    let picture = Picture::new(&scene, &sim, width, height, settings.field);
    let video = match settings.mp4 {
        true => Some(Mp4Recorder::start(
            &dir.claim(&format!("{stem}.mp4"))?,
            width,
            height,
        )?),
        false => None,
    };
    let frames = Frames {
        scene,
        picture,
        dir,
        video,
        wanted: settings.frames,
        count: 0,
        files: Vec::new(),
    };
    Ok(drive(&mut sim, vec![Box::new(frames)], false)?.files)
}

/// Draws `wanted` frames into PNG files or an MP4 video: at the first `wanted − 1` output
/// times and at the end.
struct Frames {
    scene: Scene,
    picture: Picture,
    dir: OutputDir,
    video: Option<Mp4Recorder>,
    wanted: usize,
    count: usize,
    files: Vec<PathBuf>,
}

impl Recorder for Frames {
    fn record(&mut self, sim: &mut Simulation, sample: &Sample) -> Result<()> {
        let end = sim.steps() == sim.timing.steps();
        if !end && self.count + 1 >= self.wanted {
            return Ok(());
        }
        self.picture
            .draw(&self.scene, sim, Some(sample.energy.total()), &[]);
        let image = &self.picture.image;
        match self.video.as_mut() {
            Some(video) => video.push(image)?,
            None => {
                let file = self.dir.claim(&format!("frame_{:05}.png", self.count))?;
                write_png(&file, image.width as u32, image.height as u32, &image.to_rgb())
                    .with_context(|| format!("writing {}", file.display()))?;
                self.files.push(file);
            }
        }
        self.count += 1;
        Ok(())
    }
    fn finish(self: Box<Self>) -> Result<Vec<PathBuf>> {
        let mut files = self.files;
        if let Some(video) = self.video {
            files.push(video.finish()?);
        }
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::raster::unpack;
    use super::*;

    /// One body with the inertia of a 0.4 × 0.2 × 0.3 m box (drawn as that box), hanging on a
    /// spherical joint from a point 0.5 m above its centre; no gravity, so it stays put.
    const CUBE: &str = r#"
[simulation]
end_time = 0.1
step = 1e-3
gravity = [0.0, 0.0, 0.0]

[[body]]
id = 1
name = "cube"
mass = 1.0
inertia = { Ixx = 0.010833333333333334, Iyy = 0.020833333333333332, Izz = 0.016666666666666666 }
pos = [0.0, 0.0, 0.0]

[[joint]]
name = "hook"
type = "spherical"
body_i = "ground"
body_j = "cube"
frame_i = { origin = [0.0, 0.0, 0.5] }
frame_j = { origin = [0.0, 0.0, 0.5] }
"#;

    fn cube_view() -> Viewport {
        let scene = Scene::parse(Path::new("cube.toml"), CUBE).expect("test scene");
        Viewport::new(scene, 160, 120, Field::Displacement).expect("viewport")
    }

    fn is_body(p: u32) -> bool {
        let [r, g, b] = unpack(p);
        r > g && g > b && r > 60
    }

    #[test]
    fn the_body_silhouette_covers_its_projected_region() {
        let mut v = cube_view();
        // Look straight along +y at the box from 3 m: its front face spans x ±0.2, z ±0.15.
        v.picture.camera = Camera {
            target: ferrodyn_kernel::math::Vec3::ZERO,
            distance: 3.0,
            yaw: -std::f64::consts::FRAC_PI_2,
            pitch: 0.0,
        };
        v.draw(&[]);
        let corner = |x: f64, z: f64| {
            let p = v
                .picture
                .camera
                .project(ferrodyn_kernel::math::Vec3::new(x, -0.1, z), 160, 120)
                .unwrap();
            (p.x, p.y)
        };
        let (left, top) = corner(-0.2, 0.15);
        let (right, bottom) = corner(0.2, -0.15);
        let inside = |x: usize, y: usize| {
            (x as f64) > left + 1.0
                && (x as f64) < right - 2.0
                && (y as f64) > top + 1.0
                && (y as f64) < bottom - 2.0
        };
        let outside = |x: usize, y: usize| {
            (x as f64) < left - 2.0
                || (x as f64) > right + 2.0
                || (y as f64) < top - 2.0
                || (y as f64) > bottom + 2.0
        };
        let (mut covered, mut region, mut stray) = (0, 0, 0);
        for y in 20..120 {
            for x in 0..160 {
                let body = is_body(v.picture.image.get(x, y));
                if inside(x, y) {
                    region += 1;
                    covered += body as usize;
                } else if outside(x, y) {
                    stray += body as usize;
                }
            }
        }
        assert!(region > 100, "the cube spans a real region: {region}");
        assert_eq!(covered, region, "every pixel inside the silhouette is the body");
        assert_eq!(stray, 0, "no body pixels outside it");
    }

    #[test]
    fn ground_is_below_and_sky_above_from_the_default_camera() {
        let mut v = cube_view();
        v.draw(&[]);
        let ground_z = v.picture.drawing.ground_z;
        assert!(ground_z < -0.15, "ground under the box: {ground_z}");
        // A point of the ground straight below the target shows the ground colour (grey, not
        // the bluish sky gradient and not the body).
        let below = ferrodyn_kernel::math::Vec3::new(0.05, 0.05, ground_z);
        let p = v.picture.camera.project(below, 160, 120).unwrap();
        let [r, g, b] = unpack(v.picture.image.get(p.x as usize, p.y as usize));
        assert!(
            g >= b && (r as i32 - g as i32).abs() < 40,
            "ground pixel {r} {g} {b}"
        );
        let [r, g, b] = unpack(v.picture.image.get(80, 60 - 58));
        assert!(b > r && b > g, "sky at the top: {r} {g} {b}");
    }

    #[test]
    fn the_body_hides_the_ground_behind_it() {
        let mut v = cube_view();
        v.draw(&[]);
        // The cube's centre is in front of the ground: its pixel is the body's colour.
        let p = v
            .picture
            .camera
            .project(ferrodyn_kernel::math::Vec3::ZERO, 160, 120)
            .unwrap();
        assert!(is_body(v.picture.image.get(p.x as usize, p.y as usize)));
    }

    #[test]
    fn contact_scenes_draw_bodies_as_their_shapes_on_the_floor_plane() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/sphere_drop.toml");
        let scene = Scene::load(&path).expect("scenes/sphere_drop.toml");
        let mut v = Viewport::new(scene, 160, 120, Field::Displacement).expect("viewport");
        assert_eq!(
            v.picture.drawing.ground_z, 0.0,
            "the grid lies on the floor plane z = 0"
        );
        // Without the text overlay, which could cover the ball on so small an image.
        let p = &mut v.picture;
        let (scene, sim) = (v.session.scene(), v.session.simulation());
        p.drawing.draw(&mut p.image, &p.camera, scene, sim, &p.options);
        // The ball (contact sphere r = 50 mm at z = 0.55): its centre and a point 40 mm off it.
        for offset in [0.0, 0.04] {
            let c = ferrodyn_kernel::math::Vec3::new(offset, 0.0, 0.55);
            let p = v.picture.camera.project(c, 160, 120).unwrap();
            assert!(
                is_body(v.picture.image.get(p.x as usize, p.y as usize)),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn sizes_parse_and_bad_ones_say_why() {
        assert_eq!(parse_size("640x480"), Ok((640, 480)));
        assert!(parse_size("640").unwrap_err().contains("WIDTHxHEIGHT"));
        assert!(parse_size("0x480").unwrap_err().contains("16"));
    }
}
