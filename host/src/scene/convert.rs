//! Checked conversions of raw values into kernel values: numbers, vectors, orientations,
//! frames and time functions. Each returns the reason as text; the caller adds file, line and item.

use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::rigid::Frame;
use ferrodyn_kernel::{BuildError, Item, Piece, TimeFunction, PIECES};

use super::format::{RawCubic, RawFrame, RawFunction, RawOrientation, RawPiece};

/// What a number must satisfy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Finite.
    Finite,
    /// Finite and > 0.
    Positive,
    /// Finite and ≥ 0.
    NonNegative,
}

/// Checks `value` against `rule`.
pub fn number(value: f64, rule: Rule) -> Result<f64, String> {
    let ok = value.is_finite()
        && match rule {
            Rule::Finite => true,
            Rule::Positive => value > 0.0,
            Rule::NonNegative => value >= 0.0,
        };
    match (ok, rule) {
        (true, _) => Ok(value),
        (false, Rule::Finite) => Err(format!("{value} must be finite")),
        (false, Rule::Positive) => Err(format!("{value} must be finite and > 0")),
        (false, Rule::NonNegative) => Err(format!("{value} must be finite and ≥ 0")),
    }
}

/// A finite vector.
pub fn vector(v: [f64; 3]) -> Result<Vec3<f64>, String> {
    if v.iter().all(|c| c.is_finite()) {
        Ok(Vec3::from_array(v))
    } else {
        Err(format!("{v:?} must have finite components"))
    }
}

/// A finite vector of non-zero length (an axis or a direction).
pub fn axis(v: [f64; 3]) -> Result<Vec3<f64>, String> {
    let a = vector(v)?;
    if a.norm() > 0.0 {
        Ok(a)
    } else {
        Err(format!("{v:?} has zero length"))
    }
}

/// A rotation: roll/pitch/yaw (missing angles are 0) or a non-zero quaternion (normalized).
pub fn orientation(o: &RawOrientation) -> Result<Quat<f64>, String> {
    let angles = [o.roll, o.pitch, o.yaw];
    match o.quaternion {
        Some(_) if angles.iter().any(Option::is_some) => {
            Err("give either roll/pitch/yaw or quaternion, not both".into())
        }
        Some(q) => {
            if !q.iter().all(|c| c.is_finite()) {
                return Err(format!("quaternion {q:?} must have finite components"));
            }
            Quat::from_array(q)
                .normalized()
                .ok_or_else(|| format!("quaternion {q:?} is zero"))
        }
        None if angles.iter().all(Option::is_none) => Ok(Quat::IDENTITY),
        None => {
            let [r, p, y] = angles.map(|a| a.unwrap_or(0.0));
            if [r, p, y].iter().all(|a| a.is_finite()) {
                Ok(Quat::from_roll_pitch_yaw(r, p, y))
            } else {
                Err("roll, pitch and yaw must be finite".into())
            }
        }
    }
}

/// A joint frame: z axis given, full orientation given, or aligned with the body axes.
pub fn frame(f: Option<&RawFrame>) -> Result<Frame<f64>, String> {
    let Some(f) = f else {
        return Ok(Frame::at(Vec3::ZERO));
    };
    let origin = vector(f.origin)?;
    match (&f.axis, &f.orientation) {
        (Some(_), Some(_)) => Err("give either axis or orientation, not both".into()),
        (Some(a), None) => Ok(Frame::with_z_axis(
            origin,
            axis(*a.get_ref()).map_err(|e| format!("axis {e}"))?,
        )),
        (None, Some(o)) => Ok(Frame::oriented(origin, orientation(o)?)),
        (None, None) => Ok(Frame::at(origin)),
    }
}

/// A time function, checked as the kernel will check it.
pub fn function(f: &RawFunction) -> Result<TimeFunction<f64>, String> {
    let tf = match f {
        RawFunction::Constant(v) => TimeFunction::Constant(*v),
        RawFunction::Ramp {
            start,
            initial,
            slope,
        } => TimeFunction::Ramp {
            start: *start,
            initial: *initial,
            slope: *slope,
        },
        RawFunction::Sine {
            offset,
            amplitude,
            omega,
            phase,
        } => TimeFunction::Sine {
            offset: *offset,
            amplitude: *amplitude,
            omega: *omega,
            phase: *phase,
        },
        RawFunction::Table(points) => {
            let pairs: Vec<(f64, f64)> = points.iter().map(|p| (p[0], p[1])).collect();
            TimeFunction::table(&pairs).map_err(reason)?
        }
        RawFunction::Cubic(c) => cubic(c)?,
        RawFunction::Piecewise(pieces) => piecewise(pieces)?,
        RawFunction::SmoothRamp {
            start,
            initial,
            duration,
            slope,
        } => {
            if !(duration.is_finite() && *duration > 0.0) {
                return Err(format!("smooth_ramp duration {duration} must be finite and > 0"));
            }
            TimeFunction::smooth_ramp(*start, *initial, *duration, *slope).map_err(reason)?
        }
    };
    tf.validate(Item::Ground).map_err(reason)?;
    Ok(tf)
}

/// A cubic table: slopes given, or set by the spline (default) or monotone rule.
fn cubic(c: &RawCubic) -> Result<TimeFunction<f64>, String> {
    let pairs: Vec<(f64, f64)> = c.points.iter().map(|p| (p[0], p[1])).collect();
    if pairs.is_empty() {
        return Err("cubic table needs 1..=16 points".into());
    }
    match (&c.slopes, c.rule.as_deref()) {
        (Some(_), Some(_)) => Err("cubic: give either slopes or rule, not both".into()),
        (Some(slopes), None) => {
            if slopes.len() != pairs.len() {
                return Err(format!(
                    "cubic: {} slopes for {} points (one slope per point)",
                    slopes.len(),
                    pairs.len()
                ));
            }
            TimeFunction::hermite(&pairs, slopes).map_err(reason)
        }
        (None, None | Some("spline")) => TimeFunction::spline(&pairs).map_err(reason),
        (None, Some("monotone")) => TimeFunction::monotone(&pairs).map_err(reason),
        (None, Some(other)) => Err(format!("cubic: unknown rule \"{other}\" (spline or monotone)")),
    }
}

/// Pieces of cubic + harmonic terms, at most [`PIECES`], each checked by its number (from 1).
fn piecewise(pieces: &[RawPiece]) -> Result<TimeFunction<f64>, String> {
    if pieces.is_empty() || pieces.len() > PIECES {
        return Err(format!(
            "piecewise needs 1..={PIECES} pieces, {} given",
            pieces.len()
        ));
    }
    let mut built = Vec::with_capacity(pieces.len());
    for (k, p) in pieces.iter().enumerate() {
        let at = |e: &str| format!("piece {}: {e}", k + 1);
        if p.poly.len() > 4 {
            return Err(at(&format!(
                "poly has {} coefficients, at most 4 (a cubic in t − start)",
                p.poly.len()
            )));
        }
        let omega = match (p.omega, p.period) {
            (Some(_), Some(_)) => return Err(at("give either omega or period, not both")),
            (Some(w), None) => w,
            (None, Some(period)) if period.is_finite() && period > 0.0 => 2.0 * std::f64::consts::PI / period,
            (None, Some(period)) => return Err(at(&format!("period {period} must be finite and > 0"))),
            (None, None) if p.cos != 0.0 || p.sin != 0.0 => {
                return Err(at("cos and sin need omega or period"));
            }
            (None, None) => 0.0,
        };
        if let Some(prev) = pieces[..k].last() {
            if p.start <= prev.start {
                return Err(at(&format!(
                    "start {} must be after the previous piece's start {}",
                    p.start, prev.start
                )));
            }
        }
        built.push(Piece::polynomial(p.start, &p.poly).with_harmonic(p.cos, p.sin, omega));
    }
    TimeFunction::piecewise(&built).map_err(reason)
}

/// The reason of a kernel error without its item index (the scene names the item itself).
pub fn reason(e: BuildError) -> String {
    match e {
        BuildError::InvalidParameter { reason, .. } => reason.to_string(),
        BuildError::NonFinite { .. } => "a value is NaN or infinite".into(),
        BuildError::ZeroLengthAxis { .. } => "an axis has zero length".into(),
        BuildError::CapacityExceeded {
            needed, available, ..
        } => format!("{needed} points given, at most {available} allowed"),
        BuildError::InvalidMass { mass, .. } => format!("mass {mass} must be finite and > 0"),
        BuildError::InertiaNotPositiveDefinite { .. } => {
            "inertia about the CG is not symmetric positive definite".into()
        }
        BuildError::InertiaTriangleInequality { .. } => {
            "principal moments of inertia violate the triangle inequality I1 + I2 ≥ I3".into()
        }
        BuildError::UnknownBody { body, .. } => format!("refers to body {body}, which does not exist"),
        BuildError::UnknownNode { node, .. } => format!("refers to node {node}, which does not exist"),
        BuildError::SameBody { .. } => "connects a body to itself".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_axes_and_orientations_are_checked() {
        assert_eq!(number(2.0, Rule::Positive), Ok(2.0));
        assert_eq!(
            number(0.0, Rule::Positive),
            Err("0 must be finite and > 0".into())
        );
        assert_eq!(
            number(-1.0, Rule::NonNegative),
            Err("-1 must be finite and ≥ 0".into())
        );
        assert!(number(f64::NAN, Rule::Finite).is_err());
        assert_eq!(axis([0.0; 3]), Err("[0.0, 0.0, 0.0] has zero length".into()));
        let both = RawOrientation {
            roll: Some(1.0),
            pitch: None,
            yaw: None,
            quaternion: Some([1.0, 0.0, 0.0, 0.0]),
        };
        assert!(orientation(&both).is_err());
    }

    #[test]
    fn tables_must_increase() {
        let bad = RawFunction::Table(vec![[0.0, 1.0], [0.0, 2.0]]);
        assert_eq!(
            function(&bad),
            Err("time table times must increase strictly".into())
        );
        let long = RawFunction::Table((0..17).map(|i| [i as f64, 0.0]).collect());
        assert_eq!(function(&long), Err("17 points given, at most 16 allowed".into()));
    }
}
