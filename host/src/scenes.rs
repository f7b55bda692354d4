//! Built-in scenes: models that need no scene file.

use crate::model::HostModel;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::models::{add_revolute_chain, ChainSpec, GRAVITY};
use ferrodyn_kernel::{BuildError, Model};

/// Fixed capacities of the rigid part of coupled rigid–flexible scenes (the kernel's coupled
/// step works on fixed-capacity models).
pub type CoupledRigid = Model<f64, 256, 512, 256, 2048, 131_072>;

/// The default scene: a chain of `links` unit rods (1 m, 1 kg) hinged about y, released
/// horizontally under gravity −z.
pub fn revolute_chain(links: usize) -> Result<HostModel, BuildError> {
    let mut builder = HostModel::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    add_revolute_chain(&mut builder, &ChainSpec::standard(links))?;
    builder.build()
}
