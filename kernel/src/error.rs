//! Error types: what went wrong, and which item it concerns.

/// A model item, named by its kind and its index in the order it was added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Item {
    /// The ground (the fixed global frame).
    Ground,
    /// A rigid body.
    Body(usize),
    /// A joint or constraint.
    Joint(usize),
    /// A force element.
    Force(usize),
    /// A node of a flexible body.
    Node(usize),
    /// An element of a flexible body.
    Element(usize),
    /// The material of a flexible body.
    Material,
    /// A contact pair of a shape on a tree link with the ground ([`crate::contact`]).
    Contact(usize),
    /// A fixed tendon of a tree ([`crate::tree::Tendon`]).
    Tendon(usize),
}

/// A fixed capacity of a model (one const generic parameter of [`Fixed`](crate::Fixed) each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Capacity {
    /// Rigid bodies.
    Bodies,
    /// Joints and constraints.
    Joints,
    /// Force elements.
    Forces,
    /// Scalar constraint equations (rows of Φ).
    ConstraintRows,
    /// Stored entries of the skyline (profile) of a rigid model's constraint matrix.
    SkylineEntries,
    /// Nodes of a flexible body.
    Nodes,
    /// Elements of a flexible body.
    Elements,
    /// Stored entries of the profile of a flexible body's mass and stiffness matrices.
    Profile,
    /// Length of a coupled rigid–flexible state vector.
    StateLength,
    /// Points of a piecewise-linear time table.
    TablePoints,
    /// Shape–ground contact pairs ([`crate::contact::GroundContacts`]).
    ContactPairs,
}

/// Why a model could not be built. Each variant names the offending item.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BuildError {
    /// A fixed capacity is too small for the model.
    CapacityExceeded {
        /// Which capacity.
        capacity: Capacity,
        /// How many the model needs (at least).
        needed: usize,
        /// The capacity given.
        available: usize,
    },
    /// Mass is zero, negative or not finite.
    InvalidMass {
        /// The body.
        body: usize,
        /// The mass given.
        mass: f64,
    },
    /// The inertia matrix about the CG is not symmetric positive definite.
    InertiaNotPositiveDefinite {
        /// The body.
        body: usize,
    },
    /// Principal moments violate the triangle inequality (I1 + I2 ≥ I3): no real body has them.
    InertiaTriangleInequality {
        /// The body.
        body: usize,
    },
    /// A joint axis, frame axis or direction has zero length.
    ZeroLengthAxis {
        /// The item holding the axis.
        item: Item,
    },
    /// A reference to a body that does not exist.
    UnknownBody {
        /// The item holding the reference.
        item: Item,
        /// The body index referenced.
        body: usize,
    },
    /// An element or boundary condition refers to a node that does not exist.
    UnknownNode {
        /// The item holding the reference.
        item: Item,
        /// The node index referenced.
        node: usize,
    },
    /// A joint connects a body to itself.
    SameBody {
        /// The joint.
        item: Item,
    },
    /// A number is NaN or infinite.
    NonFinite {
        /// The item.
        item: Item,
    },
    /// A parameter is out of its valid range.
    InvalidParameter {
        /// The item.
        item: Item,
        /// What is wrong.
        reason: &'static str,
    },
}

/// Why a simulation step failed. The state is left as it was before the failing step
/// where the integrator can restore it, so the caller can react (reduce the step, stop safely).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum KernelError {
    /// The constraint matrix Φ_q M⁻¹ Φ_qᵀ has a pivot that is not finite (a Jacobian entry or
    /// a mass block is not finite), or a tree link's articulated inertia about its joint axis
    /// is not positive. (Redundant rows are not an error: they are found and skipped.)
    SingularMatrix {
        /// Constraint row at which the pivot failed.
        row: usize,
        /// The joint owning that row.
        joint: usize,
    },
    /// A redundant constraint row disagrees with the rows it depends on: the constraints
    /// conflict (at the initial state, or they drifted apart), so no configuration satisfies
    /// them all.
    InconsistentConstraints {
        /// The redundant row whose |Φ| cannot be removed.
        row: usize,
        /// The joint owning that row.
        joint: usize,
        /// Its |Φ|.
        residual: f64,
    },
    /// Newton–Raphson projection onto Φ = 0 did not converge.
    ProjectionNotConverged {
        /// Iterations performed.
        iterations: u32,
        /// Largest |Φ| left.
        residual: f64,
        /// The joint with the largest |Φ|.
        joint: usize,
    },
    /// A NaN or infinity appeared in the state.
    NonFinite {
        /// The item where it was detected.
        item: Item,
        /// Simulation time.
        time: f64,
    },
    /// The adaptive integrator needed more substeps than allowed for one step.
    TooManySubsteps {
        /// The limit.
        limit: u32,
        /// Simulation time reached.
        time: f64,
    },
    /// The adaptive step size fell below the minimum.
    StepSizeTooSmall {
        /// Simulation time.
        time: f64,
        /// Step size proposed.
        step: f64,
    },
    /// A flexible element turned inside out (J = det F ≤ 0 at a quadrature point).
    ElementInverted {
        /// The element.
        element: usize,
        /// The quadrature point.
        qp: usize,
        /// Simulation time.
        time: f64,
    },
    /// The tangent stiffness of a flexible body is not positive definite: the body is not held
    /// against rigid motion, or a load step went past a limit point (use more load steps).
    SingularStiffness {
        /// Free coordinate at which the pivot vanished.
        coordinate: usize,
    },
    /// A Newton iteration (static solve) did not converge.
    NotConverged {
        /// Iterations performed.
        iterations: u32,
        /// Norm of the last residual.
        residual: f64,
    },
    /// A step was requested with a non-positive or non-finite size.
    InvalidStepSize,
    /// A state or work buffer does not have the length of the system state (a caller bug).
    StateSizeMismatch,
}

impl core::fmt::Display for Item {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Item::Ground => write!(f, "ground/model"),
            Item::Body(i) => write!(f, "body {i}"),
            Item::Joint(i) => write!(f, "joint {i}"),
            Item::Force(i) => write!(f, "force {i}"),
            Item::Node(i) => write!(f, "node {i}"),
            Item::Element(i) => write!(f, "element {i}"),
            Item::Material => write!(f, "material"),
            Item::Contact(i) => write!(f, "contact pair {i}"),
            Item::Tendon(i) => write!(f, "tendon {i}"),
        }
    }
}

impl core::fmt::Display for BuildError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::CapacityExceeded {
                capacity,
                needed,
                available,
            } => {
                write!(
                    f,
                    "capacity exceeded: {capacity:?} needs {needed}, capacity is {available}"
                )
            }
            Self::InvalidMass { body, mass } => write!(f, "body {body}: mass {mass} must be finite and > 0"),
            Self::InertiaNotPositiveDefinite { body } => {
                write!(
                    f,
                    "body {body}: inertia about the CG is not symmetric positive definite"
                )
            }
            Self::InertiaTriangleInequality { body } => {
                write!(
                    f,
                    "body {body}: principal moments violate the triangle inequality I1 + I2 ≥ I3"
                )
            }
            Self::ZeroLengthAxis { item } => write!(f, "{item}: axis has zero length"),
            Self::UnknownBody { item, body } => {
                write!(f, "{item}: refers to body {body}, which does not exist")
            }
            Self::UnknownNode { item, node } => {
                write!(f, "{item}: refers to node {node}, which does not exist")
            }
            Self::SameBody { item } => write!(f, "{item}: connects a body to itself"),
            Self::NonFinite { item } => write!(f, "{item}: a parameter is NaN or infinite"),
            Self::InvalidParameter { item, reason } => write!(f, "{item}: {reason}"),
        }
    }
}

impl KernelError {
    /// The item the error is about, where it names one.
    pub fn item(&self) -> Option<Item> {
        match *self {
            Self::SingularMatrix { joint, .. }
            | Self::InconsistentConstraints { joint, .. }
            | Self::ProjectionNotConverged { joint, .. } => Some(Item::Joint(joint)),
            Self::NonFinite { item, .. } => Some(item),
            Self::ElementInverted { element, .. } => Some(Item::Element(element)),
            _ => None,
        }
    }

    /// The message with every item written by `name`: the host passes one that writes the
    /// scene's names (`joint "elbow"`) where the kernel alone writes indices (`joint 3`).
    pub fn describe<F>(&self, name: F) -> Described<'_, F>
    where
        F: Fn(Item, &mut core::fmt::Formatter<'_>) -> core::fmt::Result,
    {
        Described { error: self, name }
    }

    fn write(
        &self,
        f: &mut core::fmt::Formatter<'_>,
        name: &dyn Fn(Item, &mut core::fmt::Formatter<'_>) -> core::fmt::Result,
    ) -> core::fmt::Result {
        match *self {
            Self::SingularMatrix { row, joint } => {
                write!(f, "no usable pivot at constraint row {row} (")?;
                name(Item::Joint(joint), f)?;
                write!(
                    f,
                    "): a NaN or infinity in the constraint Jacobian or a mass, or a link without inertia about its joint axis"
                )
            }
            Self::InconsistentConstraints { row, joint, residual } => {
                name(Item::Joint(joint), f)?;
                write!(
                    f,
                    ": redundant constraint row {row} conflicts with the constraints it depends on \
                     (|Φ| = {residual:e} cannot be removed)"
                )
            }
            Self::ProjectionNotConverged {
                iterations,
                residual,
                joint,
            } => {
                write!(
                    f,
                    "constraint projection did not converge in {iterations} iterations (|Φ| = {residual:e} at "
                )?;
                name(Item::Joint(joint), f)?;
                write!(f, ")")
            }
            Self::NonFinite { item, time } => {
                write!(f, "NaN or infinity in the state of ")?;
                name(item, f)?;
                write!(f, " at t = {time} s")
            }
            Self::TooManySubsteps { limit, time } => {
                write!(
                    f,
                    "adaptive integrator needed more than {limit} substeps at t = {time} s"
                )
            }
            Self::StepSizeTooSmall { time, step } => {
                write!(
                    f,
                    "adaptive step size {step:e} s fell below the minimum at t = {time} s"
                )
            }
            Self::ElementInverted { element, qp, time } => {
                name(Item::Element(element), f)?;
                write!(f, " inverted (det F ≤ 0) at quadrature point {qp}, t = {time} s")
            }
            Self::SingularStiffness { coordinate } => write!(
                f,
                "stiffness not positive definite at free coordinate {coordinate}: \
                 is the body held against rigid motion, or is the load step too large?"
            ),
            Self::NotConverged { iterations, residual } => {
                write!(
                    f,
                    "Newton iteration did not converge in {iterations} iterations (residual {residual:e})"
                )
            }
            Self::InvalidStepSize => write!(f, "step size must be finite and > 0"),
            Self::StateSizeMismatch => write!(
                f,
                "state or work buffer does not match the length of the system state"
            ),
        }
    }
}

/// A [`KernelError`] written with the caller's item names (see [`KernelError::describe`]).
pub struct Described<'a, F> {
    error: &'a KernelError,
    name: F,
}

impl<F> core::fmt::Display for Described<'_, F>
where
    F: Fn(Item, &mut core::fmt::Formatter<'_>) -> core::fmt::Result,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.error.write(f, &self.name)
    }
}

impl core::fmt::Display for KernelError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.write(f, &|item, f| write!(f, "{item}"))
    }
}

impl core::error::Error for BuildError {}
impl core::error::Error for KernelError {}
