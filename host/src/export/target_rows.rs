//! What a tree's constraint rows (loop rows, drives, couplings) and force elements add to its
//! needs on a microcontroller (`ferrodyn check --target`, [`super::tree_needs`]): bytes exactly,
//! stack as a bound, instructions per step priced by the work the kernel does for them
//! (`kernel::tree::loops`), with unit prices measured under QEMU (docs/firmware.md).
//!
//! Per step, a tree with rows factors its rows once per evaluation of the dynamics (in
//! `Loops::constrain`) and once more in the projection after the step (`Loops::project`, which
//! evaluates Φ, factors, and stops there when Φ is within its tolerance). Each factorization
//! runs the tree's kinematics, Newton–Euler velocity products and composite-rigid-body mass
//! matrix (work per link, and per entry of M: a link and each of its ancestors), evaluates
//! every row (a drive's time function with its libm calls), and factors M (dense LDLᵀ: (n³ −
//! n)/6 inner products for n coordinates), the rows' M⁻¹Φ_qᵀ (n² a row) and their pivoted
//! LDLᵀ (work per row). Only the per-link and fixed prices are fitted; the others are the
//! instructions QEMU's profile charges to that code, per unit of its count.

use ferrodyn_kernel::tree::{CoordinateLaw, Model};
use ferrodyn_kernel::Storage;
use ferrodyn_kernel::TimeFunction;

use super::{evaluations, Core, TreeNeeds};
use crate::spec::IntegratorSpec;

/// A tree's loops, coordinate rows (drives, couplings) and force elements, as its export
/// writes them (`export::tree_loops`, `export::tree_rows`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopsAndForces {
    /// Links of the tree.
    pub links: usize,
    /// Velocity coordinates n (the order of the joint-space mass matrix).
    pub velocities: usize,
    /// Entries of the mass matrix's lower triangle the composite-rigid-body pass writes: for
    /// each coordinate of a link, one per coordinate of the link itself (up to the diagonal)
    /// and of each ancestor (`tree::loops::mass_matrix`'s inner loop).
    pub mass_entries: usize,
    /// Steps of the column-offset walk of that pass: for each coordinate of a link and each
    /// ancestor j, the j links before j whose coordinates it counts.
    pub offset_steps: usize,
    /// Joints closing loops.
    pub joints: usize,
    /// Constraint rows m: the loop rows and one per drive and coupling (coordinate rows, solved
    /// and projected with the loop rows).
    pub rows: usize,
    /// Reals of the dense loop matrices (`tree::Model::loop_workspace`).
    pub workspace: usize,
    /// libm calls (sin, cos, sincos) of one evaluation of every drive's time function
    /// (`libm_calls`).
    pub drive_calls: usize,
    /// Force elements (spring-dampers, point forces, torques).
    pub forces: usize,
    /// Shape–ground contact pairs stepped beside them.
    pub contact_pairs: usize,
}

impl LoopsAndForces {
    /// The rows of `model` with `forces` force elements and `contact_pairs` contact pairs.
    pub fn of<St: Storage>(model: &Model<f64, St>, forces: usize, contact_pairs: usize) -> Self {
        let drive_calls = model
            .coordinate_rows()
            .iter()
            .map(|row| match row.law {
                CoordinateLaw::Driven { function, .. } => libm_calls(&function),
                CoordinateLaw::Follows { .. } => 0,
            })
            .sum();
        let links = model.links();
        let (mut mass_entries, mut offset_steps) = (0, 0);
        for link in links {
            let dof = link.velocity_count();
            mass_entries += dof * (dof + 1) / 2;
            let mut at = link.parent;
            while let Some(parent) = at {
                mass_entries += dof * links.get(parent).map_or(0, |p| p.velocity_count());
                offset_steps += dof * parent;
                at = links.get(parent).and_then(|link| link.parent);
            }
        }
        Self {
            links: links.len(),
            velocities: model.velocity_count(),
            mass_entries,
            offset_steps,
            joints: model.loops().len(),
            rows: model.constraint_rows(),
            workspace: model.loop_workspace(),
            drive_calls,
            forces,
            contact_pairs,
        }
    }
}

/// The libm calls (sin, cos or sincos: each about one call's price) of one evaluation of `f`
/// and its two derivatives (`TimeFunction::eval`): a sine calls sin and cos; a piecewise
/// function with a harmonic term sincos once (its costliest piece); a velocity drive's
/// integral evaluates its rate and the rate's closed-form integral (a sine's: two sines; a
/// piecewise rate's: two sines for each harmonic piece, as the pieces up to t are summed). The
/// polynomial forms (constant, ramp, table, cubic) call none.
pub fn libm_calls(f: &TimeFunction<f64>) -> usize {
    let harmonic = |f: &TimeFunction<f64>| match f {
        TimeFunction::Piecewise(p) => p
            .pieces
            .iter()
            .take(p.len)
            .filter(|piece| piece.cos != 0.0 || piece.sin != 0.0)
            .count(),
        _ => 0,
    };
    match f {
        TimeFunction::Sine { .. } => 2,
        TimeFunction::Piecewise(_) => usize::from(harmonic(f) > 0),
        TimeFunction::Integral { rate, .. } => {
            let rate = rate.function();
            let integral = match rate {
                TimeFunction::Sine { .. } => 2,
                _ => 2 * harmonic(&rate),
            };
            libm_calls(&rate) + integral
        }
        TimeFunction::Constant(_)
        | TimeFunction::Ramp { .. }
        | TimeFunction::Table { .. }
        | TimeFunction::Cubic(_) => 0,
    }
}

/// `needs` of a tree ([`super::tree_needs`]) with its loops and force elements `extra` added:
/// their bytes (exact, `size_of` on thumbv7em), their stack, and their instructions per step
/// (`rows_instructions`); `needs` itself for a tree without either.
pub fn with_loops_and_forces(
    needs: TreeNeeds,
    core: Core,
    double: bool,
    extra: LoopsAndForces,
    integrator: &IntegratorSpec,
) -> TreeNeeds {
    if extra.rows == 0 && extra.forces == 0 {
        return needs;
    }
    // A loop joint is a `rigid::Joint` in the model's loop list: 120 B in f32, 224 B in f64
    // (a drive's time function is not in the joint: `rigid::FunctionId`).
    // The data's loop rows: per row a `ConstraintRow` (60 / 120 B), its multiplier and its
    // pivot order (a usize); the dense matrices one real each; the lists' lengths (each
    // padded to the real's alignment), the rank and the held flag: 21 / 33 B; in a struct of
    // its own, rounded to its alignment (4 / 8 B: 24 / 40 B without loops); the data is
    // 8-aligned (its u64 step count).
    let (joint, row, real, fixed): (usize, usize, usize, usize) = match double {
        false => (120, 60, 4, 21),
        true => (224, 120, 8, 33),
    };
    let (m, s) = (extra.rows, extra.workspace);
    let empty = fixed.next_multiple_of(real);
    let loop_data = (fixed + m * (row + real + 4) + s * real).next_multiple_of(real);
    let data_bytes = (needs.data_bytes + loop_data - empty).next_multiple_of(8);
    // The model's coordinate-row list has the loop rows' capacity too (`tree::CoordinateRow`:
    // 296 B in f32, 576 B in f64, each), and its tendon list the forces capacity
    // (`tree::Tendon`: 300 B in f32, 472 B in f64, each).
    let (coordinate_row, tendon) = if double { (576, 472) } else { (296, 300) };
    let model_bytes =
        needs.model_bytes + extra.joints * joint + extra.rows * coordinate_row + extra.forces * tendon;
    let instructions = needs
        .instructions
        .zip(evaluations(integrator))
        .map(|(base, evaluations)| base + rows_instructions(core, double, extra, evaluations));
    TreeNeeds {
        model_bytes,
        data_bytes,
        stack_bytes: needs.stack_bytes + rows_stack(double, extra),
        instructions,
    }
}

/// Stack the rows and force elements add to the open tree's bound ([`super::tree_needs`]),
/// from the peak stacks `chain-fw` measures (the largest of the three parts, docs/firmware.md),
/// each term the smallest multiple of 64 B that keeps the scene setting it 64 B under the bound:
/// - any rows: their solve (`Loops::constrain`, `project`) with a drive's time function and
///   its libm calls below it: driven_crank over the 1-slot bound (f32 1,188 B, f64 2,480 B);
/// - loop joints: their rows' evaluation (`rigid::evaluate_joint` on the joint's frames) below
///   the solve: the four-bar over the 3-slot bound and the solve (f64 2,660 B; in f32 the
///   solve's term covers it);
/// - force elements: the list the firmware keeps on its stack (a `rigid::Force` each: 300 B
///   in f32, 592 B in f64) and, beside contacts, the pair evaluating both as one set of
///   external forces: hopper_sprung over hopper's bound and its force (f32 336 B, f64 1,076 B).
fn rows_stack(double: bool, extra: LoopsAndForces) -> usize {
    let p = usize::from(double);
    let solve = match extra.rows {
        0 => 0,
        _ => ROW_SOLVE_STACK[p],
    };
    let loops = match extra.joints {
        0 => 0,
        _ => LOOP_JOINT_STACK[p],
    };
    let pair = match (extra.forces, extra.contact_pairs) {
        (0, _) | (_, 0) => 0,
        _ => FORCE_PAIR_STACK[p],
    };
    solve + loops + extra.forces * [300, 592][p] + pair
}

/// The rows' solve (f32, f64).
const ROW_SOLVE_STACK: [usize; 2] = [1_280, 2_560];
/// A loop joint's rows evaluated below the solve (f32, f64).
const LOOP_JOINT_STACK: [usize; 2] = [0, 2_752];
/// Force elements evaluated with contacts as one pair of external forces (f32, f64).
const FORCE_PAIR_STACK: [usize; 2] = [448, 1_152];

/// Instructions per step a tree's rows and force elements add, for `evaluations` evaluations
/// of the dynamics a step: `evaluations` + 1 factorizations (one per evaluation, one in the
/// projection), each priced as its links, its rows and its drives' libm calls do
/// ([`RowPrices`]), and each force element once per evaluation.
fn rows_instructions(core: Core, double: bool, extra: LoopsAndForces, evaluations: f64) -> f64 {
    let n = |count: usize| count as f64;
    let price = RowPrices::of(core, double);
    let nv = extra.velocities;
    let factorization = match extra.rows {
        0 => 0.0,
        m => {
            price.fixed
                + price.link * n(extra.links)
                + price.mass_entry * n(extra.mass_entries)
                + price.offset_step * n(extra.offset_steps)
                + price.ldl_product * n((nv * nv * nv - nv) / 6)
                + price.solve_entry * n(m * nv * nv)
                + price.row * n(m - 1)
                + price.libm_call * n(extra.drive_calls)
        }
    };
    // Without contacts a force element pays for handing the links' states to the external
    // forces and applying their wrenches; beside contacts, whose price includes that, only for
    // its own law.
    let force = match extra.contact_pairs {
        0 => price.force_alone,
        _ => price.force_beside_contact,
    };
    let factorizations = if extra.rows == 0 { 0.0 } else { evaluations + 1.0 };
    factorizations * factorization + evaluations * force * n(extra.forces)
}

/// Unit prices of a tree's rows and force elements on one core in one precision (instructions
/// per factorization, or per evaluation for the force elements; docs/firmware.md, "What a row
/// costs"):
/// - `mass_entry`, `offset_step`, `ldl_product`, `solve_entry`: the work of the
///   composite-rigid-body pass, its column-offset walk, the mass matrix's LDLᵀ and each row's
///   solve with it, per unit of its count ([`LoopsAndForces`]): the instructions QEMU's
///   block profile (`firmware-examples/tools/insn_count.c`) charges to those lines of
///   `tree::loops::mass_matrix` and `math::dense_ldl` in a 9-link arm with the Panda's
///   kinematics and a coupled gripper (`.ci/export_firmware`'s arm7), over its 5
///   factorizations a step and the count. In soft-float f64 the profile sees only the inline
///   code (the library's arithmetic runs out of line): each then adds its flops (a mass entry
///   11, an LDLᵀ product 3, a solve entry 2) at the price of a soft-float flop ([`SOFT_FLOP`]);
/// - `fixed`, `link`: the rest of a factorization (kinematics again, velocity products, the
///   links' inertias in world axes and their composites, the rows' evaluation and pivoted
///   factorization, the solve for λ), least squares over the rows' cost of driven_crank with
///   a ramp drive, belt_arm's coupling, chain5's first three links with the ramp drive, and
///   the 5- and 9-link arms with a coupled gripper (with and without the coupling, measured),
///   each weighed by its own size (relative errors);
/// - `row`: each row beyond the first (the four-bar's 5 loop rows on its 3 links: a loop row's
///   evaluation, its Jacobian along the path and its share of the pivoted factorization; the
///   f64 projection's occasional second factorization, 0.41 a step there, is in it);
/// - `libm_call`: driven_crank's sine drive against its ramp drive, over its 2 calls (with
///   arguments up to 12 rad; smaller ones cost less in soft float: 21 % less below 3 rad);
/// - `force_alone`: the sprung slider-crank over the four-bar (the element and handing the
///   links' states to the external forces and their wrenches back);
/// - `force_beside_contact`: hopper_sprung over hopper (the element alone: the contact pays for
///   the hand-over).
#[derive(Clone, Copy, Debug)]
struct RowPrices {
    fixed: f64,
    link: f64,
    mass_entry: f64,
    offset_step: f64,
    ldl_product: f64,
    solve_entry: f64,
    row: f64,
    libm_call: f64,
    force_alone: f64,
    force_beside_contact: f64,
}

/// Instructions of one soft-float flop on the Cortex-M4F (f64), fitted with `fixed` and `link`
/// (more than the library call alone: it also carries what zeros of a 3-D link save in soft float).
const SOFT_FLOP: f64 = 213.6;

impl RowPrices {
    fn of(core: Core, double: bool) -> Self {
        // [fixed, link, mass entry, offset step, LDLᵀ product, solve entry]
        let structure = match (core, double) {
            (Core::CortexM4F, false) => [1_048.0, 1_489.0, 110.7, 11.7, 37.0, 17.7],
            (Core::CortexM7, false) => [955.0, 1_635.0, 69.2, 23.0, 37.6, 18.1],
            (Core::CortexM7, true) => [1_378.0, 1_734.0, 71.1, 13.6, 37.2, 17.7],
            (Core::CortexM4F, true) => [
                2_398.0,
                14_691.0,
                126.9 + 11.0 * SOFT_FLOP,
                24.3,
                53.0 + 3.0 * SOFT_FLOP,
                25.3 + 2.0 * SOFT_FLOP,
            ],
        };
        let [row, libm_call, force_alone, force_beside_contact] = match (core, double) {
            (Core::CortexM4F, false) => [1_830.0, 1_592.0, 2_266.0, 90.0],
            (Core::CortexM4F, true) => [33_550.0, 2_380.0, 56_414.0, 1_176.0],
            (Core::CortexM7, false) => [1_842.0, 41.0, 2_239.0, 88.0],
            (Core::CortexM7, true) => [2_667.0, 31.0, 3_204.0, 47.0],
        };
        let [fixed, link, mass_entry, offset_step, ldl_product, solve_entry] = structure;
        Self {
            fixed,
            link,
            mass_entry,
            offset_step,
            ldl_product,
            solve_entry,
            row,
            libm_call,
            force_alone,
            force_beside_contact,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{assert_within_10_percent, contact_instructions, tree_needs, LinkMix, Motion};
    use super::*;
    use crate::compile::{choose, tree_parts, Choice};
    use crate::export::contact_pair_count;
    use crate::scene::Scene;
    use ferrodyn_kernel::integrators::Method;
    use ferrodyn_kernel::{Piece, Piecewise, Rate};
    use std::path::Path;

    const RK4: IntegratorSpec = IntegratorSpec::Explicit(Method::Rk4);

    /// The rows of the scene file `path` (relative to the repository), its slots and DOF, as
    /// `ferrodyn check --target` finds them.
    fn scene_rows(path: &str) -> (LoopsAndForces, usize, usize) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
        let scene = Scene::load(&path).unwrap();
        let Choice::Tree(links) = choose(&scene).unwrap() else {
            panic!("{path:?} is not a tree")
        };
        let parts = tree_parts(&scene, &links).unwrap();
        let pairs = contact_pair_count(&scene, &parts).unwrap();
        let extra = LoopsAndForces::of(&parts.model, parts.forces.elements().len(), pairs);
        let (slots, dof) = (parts.model.slots(), parts.model.velocity_count());
        assert!(parts.model.is_planar(), "{path:?}");
        (extra, slots, dof)
    }

    /// `check --target`'s needs of the planar tree of `slots` slots and `dof` DOF with `extra`.
    fn planar_needs(
        core: Core,
        double: bool,
        (extra, slots, dof): (LoopsAndForces, usize, usize),
    ) -> TreeNeeds {
        let default = LinkMix::default();
        let tree = tree_needs(core, slots, dof, Motion::PlanarTree, &default, double, &RK4);
        with_loops_and_forces(tree, core, double, extra, &RK4)
    }

    /// `check --target`'s instructions per RK4 step of the planar tree with `extra`.
    fn estimate(core: Core, double: bool, rows: (LoopsAndForces, usize, usize)) -> f64 {
        let needs = planar_needs(core, double, rows);
        needs.instructions.unwrap() + contact_instructions(core, double, rows.0.contact_pairs, &RK4).unwrap()
    }

    #[test]
    fn the_rows_are_read_from_the_scenes() {
        let (crank, _, _) = scene_rows("scenes/driven_crank.toml");
        assert_eq!(
            (crank.links, crank.mass_entries, crank.rows, crank.drive_calls),
            (1, 1, 1, 2)
        );
        let (belt, _, _) = scene_rows("scenes/belt_arm.toml");
        assert_eq!(
            (belt.links, belt.mass_entries, belt.rows, belt.drive_calls),
            (2, 3, 1, 0)
        );
        let (four_bar, _, _) = scene_rows("scenes/four_bar.toml");
        assert_eq!(
            (
                four_bar.links,
                four_bar.mass_entries,
                four_bar.joints,
                four_bar.rows
            ),
            (3, 6, 1, 5)
        );
        let (sprung, _, _) = scene_rows("scenes/hopper_sprung.toml");
        assert_eq!((sprung.rows, sprung.forces, sprung.contact_pairs), (0, 1, 1));
    }

    #[test]
    fn a_time_function_is_priced_by_its_libm_calls() {
        let sine = TimeFunction::Sine {
            offset: 0.0,
            amplitude: 0.5,
            omega: 3.0,
            phase: 0.0,
        };
        assert_eq!(libm_calls(&sine), 2);
        let ramp = TimeFunction::Ramp {
            start: 0.0,
            initial: 0.0,
            slope: 1.5,
        };
        assert_eq!(libm_calls(&ramp), 0);
        // The smooth ramp: a polynomial piece with a cosine, then a line.
        let smooth = TimeFunction::Piecewise(Piecewise::smooth_ramp(0.0, 0.0, 15.0, 6.0).unwrap());
        assert_eq!(libm_calls(&smooth), 1);
        let lines = Piecewise::new(&[Piece::polynomial(0.0, &[0.0, 1.0])]).unwrap();
        assert_eq!(libm_calls(&TimeFunction::Piecewise(lines)), 0);
        // A velocity drive at a sine rate: the rate's sine and cosine, its integral's two sines.
        let integral = TimeFunction::Integral {
            initial: 0.0,
            rate: Rate::of(&sine).unwrap(),
        };
        assert_eq!(libm_calls(&integral), 4);
    }

    #[test]
    fn every_exported_tree_with_rows_or_forces_is_priced_within_10_percent_of_its_qemu_count() {
        // Instructions per RK4 step counted under QEMU by .ci/firmware (the TCG plugin), mps2-an386
        // (M4F) and mps2-an500 (M7), f32 / f64 (docs/firmware.md).
        let (m4, m7) = (Core::CortexM4F, Core::CortexM7);
        let measured = [
            (
                "scenes/driven_crank.toml",
                [32_540.0, 173_664.0, 17_190.0, 20_042.0],
            ),
            ("scenes/belt_arm.toml", [25_931.0, 313_928.0, 26_063.0, 28_555.0]),
            (
                "scenes/four_bar.toml",
                [75_708.0, 1_213_263.0, 76_344.0, 97_317.0],
            ),
            (
                "scenes/slider_crank_spring.toml",
                [84_773.0, 1_438_920.0, 85_301.0, 110_132.0],
            ),
            ("scenes/hopper.toml", [10_175.0, 211_478.0, 10_093.0, 13_473.0]),
            (
                "scenes/hopper_sprung.toml",
                [10_534.0, 216_182.0, 10_446.0, 13_661.0],
            ),
        ];
        for (path, counts) in measured {
            let rows = scene_rows(path);
            for ((core, double), measured) in [(m4, false), (m4, true), (m7, false), (m7, true)]
                .into_iter()
                .zip(counts)
            {
                let estimate = estimate(core, double, rows);
                assert_within_10_percent(path, core, double, estimate, measured);
            }
        }
    }

    #[test]
    fn a_driven_chain_that_no_price_was_measured_on_is_priced_within_10_percent() {
        // chain5's first three links (scenes/chain5.toml) with driven_crank's sine drive on the
        // first hinge: 3 links, one drive row. The prices were measured on a
        // 1-link drive, a 2-link coupling, and this chain with a ramp drive; the sine's price
        // on driven_crank, whose arguments reach 12 rad (here 3 rad: libm's argument reduction
        // costs less). `ferrodyn export firmware` crates under QEMU (docs/firmware.md).
        let chain = LoopsAndForces {
            links: 3,
            velocities: 3,
            mass_entries: 6,
            offset_steps: 1,
            rows: 1,
            workspace: 17,
            drive_calls: 2,
            ..LoopsAndForces::default()
        };
        for (core, double, measured) in [
            (Core::CortexM4F, false, 51_692.0),
            (Core::CortexM4F, true, 568_061.0),
            (Core::CortexM7, false, 39_884.0),
            (Core::CortexM7, true, 44_629.0),
        ] {
            let estimate = estimate(core, double, (chain, 3, 3));
            assert!(
                (estimate / measured - 1.0).abs() < 0.1,
                "{core:?} f64 {double}: {estimate:.0} vs {measured}"
            );
        }
    }

    #[test]
    fn the_mass_matrix_work_is_counted_as_the_kernel_does_it() {
        // A 7-link chain with a ball joint at link 2 and two slides on its last link (the
        // Panda's tree, a wrist made spherical): each coordinate of a link writes one entry per
        // coordinate of itself (to the diagonal) and of each ancestor, and walks, for each
        // ancestor j, the j links before it.
        use ferrodyn_kernel::math::{Mat3, Vec3};
        use ferrodyn_kernel::tree::Link;
        use ferrodyn_kernel::Fixed;
        let (o, z) = (Vec3::new(0.0, 0.0, 0.1), Vec3::new(0.0, 0.0, 1.0));
        let body = |link: Link<f64>| link.with_mass(1.0, o, Mat3::diagonal(Vec3::new(0.1, 0.1, 0.1)));
        let mut builder = Model::<f64, Fixed<16>>::builder(Vec3::new(0.0, 0.0, -9.81));
        for k in 0..7usize {
            let parent = k.checked_sub(1);
            let link = match k {
                2 => Link::spherical(parent, o),
                _ => Link::revolute(parent, o, z),
            };
            builder.add_link(body(link)).unwrap();
        }
        for _ in 0..2 {
            builder.add_link(body(Link::prismatic(Some(6), o, z))).unwrap();
        }
        let extra = LoopsAndForces::of(&builder.build().unwrap(), 0, 0);
        // Coordinates 1, 1, 3, 1, 1, 1, 1, 1, 1 (11); ancestors of link k: 0..k (the slides: 0..7).
        let dof = [1, 1, 3, 1, 1, 1, 1, 1, 1];
        let ancestors = |k: usize| if k < 7 { 0..k } else { 0..7 };
        let entries: usize = (0..9)
            .map(|k| dof[k] * (dof[k] + 1) / 2 + ancestors(k).map(|j| dof[k] * dof[j]).sum::<usize>())
            .sum();
        let steps: usize = (0..9)
            .map(|k| ancestors(k).map(|j| dof[k] * j).sum::<usize>())
            .sum();
        assert_eq!((entries, steps), (65, 79));
        assert_eq!((extra.links, extra.velocities), (9, 11));
        assert_eq!((extra.mass_entries, extra.offset_steps), (entries, steps));
    }

    #[test]
    fn the_rows_of_deep_trees_are_priced_within_10_percent_of_their_measured_cost() {
        // The rows' own instructions per RK4 step: a scene with a coupling less the same scene
        // without it, both exported with `ferrodyn export firmware` and counted under QEMU
        // (mps2-an386 = stm32f405 and mps2-an500, f32 / f64; docs/firmware.md): arms of 1, 3, 5
        // and 7 links with the Panda's kinematics, a hand welded on and two fingers coupled
        // (`.ci/export_firmware`'s arm7 with its first links only), and the Panda imported from
        // example-robot-data (9 links, its own inertias and frames). The structural prices were
        // read from arm7's profile and the link and fixed prices fitted to arm3 and arm7 with
        // the small scenes: arm1, arm5 and the Panda are out of sample.
        let arm = |links, entries, steps| LoopsAndForces {
            links,
            velocities: links,
            mass_entries: entries,
            offset_steps: steps,
            rows: 1,
            ..LoopsAndForces::default()
        };
        let measured = [
            ("arm1", arm(3, 5, 0), [30_808.0, 318_925.0, 31_254.0, 34_964.0]),
            ("arm3", arm(5, 14, 7), [56_762.0, 723_257.0, 57_663.0, 62_089.0]),
            (
                "arm5",
                arm(7, 27, 30),
                [90_039.0, 1_214_587.0, 91_904.0, 96_464.0],
            ),
            (
                "arm7",
                arm(9, 44, 77),
                [133_051.0, 1_774_427.0, 135_895.0, 139_449.0],
            ),
            (
                "panda",
                arm(9, 44, 77),
                [134_460.0, 1_967_252.0, 137_236.0, 141_549.0],
            ),
        ];
        let open = TreeNeeds {
            model_bytes: 0,
            data_bytes: 0,
            stack_bytes: 0,
            instructions: Some(0.0),
        };
        let configurations = [
            (Core::CortexM4F, false),
            (Core::CortexM4F, true),
            (Core::CortexM7, false),
            (Core::CortexM7, true),
        ];
        for (scene, extra, counts) in measured {
            for ((core, double), measured) in configurations.into_iter().zip(counts) {
                let rows = with_loops_and_forces(open, core, double, extra, &RK4);
                assert_within_10_percent(scene, core, double, rows.instructions.unwrap(), measured);
            }
        }
    }

    #[test]
    fn the_stack_bound_covers_every_tree_with_rows_or_forces_measured() {
        // Peak stack (B) on mps2-an386 = stm32f405 and mps2-an500, f32 / f64, chain-fw's
        // STACK lines (docs/firmware.md): the bound is at least 64 B above the largest.
        let measured = [
            ("scenes/driven_crank.toml", [3_072, 6_012], [2_864, 5_240]),
            ("scenes/belt_arm.toml", [2_800, 5_296], [2_784, 4_808]),
            ("scenes/four_bar.toml", [4_552, 11_728], [4_560, 10_536]),
            ("scenes/slider_crank_spring.toml", [4_816, 9_912], [4_808, 8_672]),
            ("scenes/hopper.toml", [2_224, 4_480], [2_216, 3_616]),
            ("scenes/hopper_sprung.toml", [3_296, 6_688], [3_256, 5_656]),
        ];
        for (path, m4, m7) in measured {
            let (extra, slots, dof) = scene_rows(path);
            for (p, double) in [(0, false), (1, true)] {
                let bound = planar_needs(Core::CortexM4F, double, (extra, slots, dof)).stack_bytes;
                let peak = m4[p].max(m7[p]);
                assert!(
                    bound >= peak + 64,
                    "{path} f64 {double}: bound {bound} B, peak {peak} B"
                );
            }
        }
    }

    #[test]
    fn the_loop_rows_bytes_are_the_firmware_sizes() {
        // The firmware's SIZE lines (size_of_val of the model and data on thumbv7em) of
        // scenes/four_bar.toml and scenes/slider_crank_spring.toml: the tendon list has the
        // forces capacity, so the sprung slider-crank's model is larger.
        for (forces, double, bytes) in [
            (0, false, (2_284, 2_536)),
            (0, true, (4_424, 5_000)),
            (1, false, (2_584, 2_536)),
            (1, true, (4_896, 5_000)),
        ] {
            let extra = LoopsAndForces {
                links: 3,
                joints: 1,
                rows: 5,
                workspace: 59,
                forces,
                ..LoopsAndForces::default()
            };
            let needs = planar_needs(Core::CortexM4F, double, (extra, 3, 3));
            assert_eq!(
                (needs.model_bytes, needs.data_bytes),
                bytes,
                "{forces} forces, f64 {double}"
            );
        }
        // size_of on thumbv7em of other loop capacities (rustc's layout, read from a const
        // array-length error): Fixed<slots, joints, forces, rows, workspace> (the forces capacity
        // sizes the `tree::Forces` list and the model's tendon list; a drive's row without
        // loops: driven_crank).
        for (double, [slots, joints, forces, rows, workspace], model, data) in [
            (false, [3, 2, 0, 10, 100], 3_884, 3_040),
            (true, [3, 2, 0, 10, 100], 7_528, 5_992),
            (false, [3, 1, 0, 6, 60], 2_580, 2_608),
            (true, [3, 1, 0, 6, 60], 5_000, 5_144),
            (false, [4, 1, 0, 5, 59], 2_476, 3_144),
            (true, [4, 1, 0, 5, 59], 4_800, 6_216),
            (false, [2, 1, 0, 3, 30], 1_500, 1_680),
            (true, [2, 1, 0, 3, 30], 2_904, 3_288),
            (false, [1, 0, 0, 1, 6], 596, 840),
            (true, [1, 0, 0, 1, 6], 1_152, 1_616),
            (false, [2, 0, 0, 1, 11], 788, 1_464),
            (true, [2, 0, 0, 1, 11], 1_528, 2_872),
            (false, [3, 0, 2, 0, 0], 1_284, 1_960),
            (true, [3, 0, 2, 0, 0], 2_264, 3_872),
        ] {
            let extra = LoopsAndForces {
                links: slots,
                joints,
                rows,
                workspace,
                forces,
                ..LoopsAndForces::default()
            };
            let needs = planar_needs(Core::CortexM4F, double, (extra, slots, slots));
            assert_eq!(
                (needs.model_bytes, needs.data_bytes),
                (model, data),
                "{slots} slots, f64 {double}"
            );
        }
    }
}
