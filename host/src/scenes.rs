//! Built-in scenes: models that need no scene file.

use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::models::{add_revolute_chain, ChainSpec, GRAVITY};
use ferrodyn_kernel::{BuildError, Model};

/// Most links a built-in chain may have.
pub const MAX_LINKS: usize = 128;
const ROWS: usize = 5 * MAX_LINKS;
const SKYLINE: usize = ChainSpec::<f64>::skyline_entries(MAX_LINKS);

/// The model type of the built-in scenes (capacities for up to [`MAX_LINKS`] links).
pub type SceneModel = Model<f64, MAX_LINKS, MAX_LINKS, 0, ROWS, SKYLINE>;

/// Capacities of rigid models built from scene files by the CLI (the kernel's models are fixed
/// size; a scene that needs more is refused with the capacity it needs).
pub type HostRigid = Model<f64, 256, 512, 256, 2048, 131_072>;

/// The default scene: a chain of `links` unit rods (1 m, 1 kg) hinged about y, released
/// horizontally under gravity −z.
pub fn revolute_chain(links: usize) -> Result<Box<SceneModel>, BuildError> {
    let mut builder = SceneModel::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    add_revolute_chain(&mut builder, &ChainSpec::standard(links))?;
    builder.build().map(Box::new)
}
