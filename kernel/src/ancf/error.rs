//! Errors of the ANCF element routines (to be mapped into the crate-wide errors by the caller).

/// Why an element could not be built or evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ElementError {
    /// The reference tetrahedron has (numerically) zero volume or non-finite vertices.
    DegenerateElement {
        /// The signed volume found, det[p1 − p0, p2 − p0, p3 − p0] / 6.
        volume: f64,
    },
    /// The deformation gradient has J = det F ≤ 0 (or not finite) at a force quadrature point.
    Inverted {
        /// Index of the quadrature point in [`FORCE_RULE`](super::FORCE_RULE).
        qp: usize,
        /// The value of det F found there.
        jacobian: f64,
    },
    /// A material parameter is out of its valid range.
    InvalidMaterial {
        /// Which parameter and what is required of it.
        reason: &'static str,
    },
}

impl core::fmt::Display for ElementError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::DegenerateElement { volume } => write!(f, "degenerate element (signed volume {volume:e})"),
            Self::Inverted { qp, jacobian } => write!(
                f,
                "element inverted at quadrature point {qp} (det F = {jacobian:e})"
            ),
            Self::InvalidMaterial { reason } => write!(f, "invalid material: {reason}"),
        }
    }
}

impl core::error::Error for ElementError {}
