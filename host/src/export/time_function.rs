//! Time functions in an exported module: the kernel's [`TimeFunction`] of a force or a drive
//! written out as a `TimeFunction<Scalar>` expression, every form the kernel has (constant,
//! ramp, sine, linear and cubic tables, piecewise, the integral of a velocity drive), with the
//! stored values themselves (a cubic table's slopes, a smooth ramp's pieces), so the f64
//! module evaluates the function `ferrodyn run` does, bit for bit.

use super::rust::lit;
use ferrodyn_kernel::{CubicTable, Piece, Piecewise, Rate, TimeFunction};

/// The import line the expressions need.
pub(super) const IMPORT: &str = "\nuse ferrodyn_kernel::TimeFunction;";

/// A `TimeFunction<Scalar>` expression of `function`.
pub(super) fn function_expr(function: &TimeFunction<f64>) -> String {
    match function {
        TimeFunction::Integral { initial, rate } => format!(
            "TimeFunction::Integral {{ initial: s({}), rate: ferrodyn_kernel::Rate::{} }}",
            lit(*initial),
            rate_body(rate)
        ),
        // A table as the kernel's constructor takes it (its points only), as forces always were.
        TimeFunction::Table { points, len } => {
            let used = points.get(..*len).unwrap_or(points);
            format!("TimeFunction::table(&{})?", pairs(used))
        }
        f => match Rate::of(f) {
            Some(rate) => format!("TimeFunction::{}", rate_body(&rate)),
            None => String::new(),
        },
    }
}

/// The variant and fields of `rate`, the same in `TimeFunction` and `Rate` (`Sine { .. }`).
fn rate_body(rate: &Rate<f64>) -> String {
    let reals = |values: &[f64]| -> String {
        let v: Vec<String> = values.iter().map(|x| format!("s({})", lit(*x))).collect();
        format!("[{}]", v.join(", "))
    };
    match rate {
        Rate::Constant(c) => format!("Constant(s({}))", lit(*c)),
        Rate::Ramp {
            start,
            initial,
            slope,
        } => format!(
            "Ramp {{ start: s({}), initial: s({}), slope: s({}) }}",
            lit(*start),
            lit(*initial),
            lit(*slope)
        ),
        Rate::Sine {
            offset,
            amplitude,
            omega,
            phase,
        } => format!(
            "Sine {{ offset: s({}), amplitude: s({}), omega: s({}), phase: s({}) }}",
            lit(*offset),
            lit(*amplitude),
            lit(*omega),
            lit(*phase)
        ),
        // An integral's rate table: every stored point (unused ones too), field for field.
        Rate::Table { points, len } => format!("Table {{ points: {}, len: {len} }}", pairs(points)),
        Rate::Cubic(CubicTable { points, slopes, len }) => format!(
            "Cubic(ferrodyn_kernel::CubicTable {{ points: {}, slopes: {}, len: {len} }})",
            pairs(points),
            reals(slopes)
        ),
        Rate::Piecewise(Piecewise { pieces, len }) => {
            let pieces: Vec<String> = pieces.iter().map(piece).collect();
            format!(
                "Piecewise(ferrodyn_kernel::Piecewise {{ pieces: [{}], len: {len} }})",
                pieces.join(", ")
            )
        }
    }
}

/// `[(s(t), s(f)), …]`.
fn pairs(points: &[(f64, f64)]) -> String {
    let p: Vec<String> = points
        .iter()
        .map(|(t, f)| format!("(s({}), s({}))", lit(*t), lit(*f)))
        .collect();
    format!("[{}]", p.join(", "))
}

fn piece(p: &Piece<f64>) -> String {
    let poly: Vec<String> = p.poly.iter().map(|c| format!("s({})", lit(*c))).collect();
    format!(
        "ferrodyn_kernel::Piece {{ start: s({}), poly: [{}], cos: s({}), sin: s({}), omega: s({}) }}",
        lit(p.start),
        poly.join(", "),
        lit(p.cos),
        lit(p.sin),
        lit(p.omega)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_is_written_with_its_stored_values() {
        let sine = TimeFunction::Sine {
            offset: 0.0,
            amplitude: 0.5,
            omega: 3.0,
            phase: 0.0,
        };
        assert_eq!(
            function_expr(&sine),
            "TimeFunction::Sine { offset: s(0.0), amplitude: s(0.5), omega: s(3.0), phase: s(0.0) }"
        );
        // The spline's slopes are the host's, not recomputed in the module's scalar.
        let spline = TimeFunction::spline(&[(0.0, 0.0), (1.0, 1.0), (2.0, 0.0), (3.0, 2.0)]).unwrap();
        let TimeFunction::Cubic(table) = spline else {
            panic!("{spline:?}")
        };
        let text = function_expr(&spline);
        assert!(text.starts_with(
            "TimeFunction::Cubic(ferrodyn_kernel::CubicTable { points: [(s(0.0), s(0.0)), (s(1.0), s(1.0))"
        ));
        assert!(
            text.contains(&format!("slopes: [s({}), ", lit(table.slopes[0]))),
            "{text}"
        );
        assert!(text.ends_with("len: 4 })"), "{text}");
        // A smooth ramp is two pieces, the first with its harmonic term.
        let ramp = TimeFunction::smooth_ramp(0.0, 0.0, 2.0, 3.0).unwrap();
        let text = function_expr(&ramp);
        assert_eq!(text.matches("ferrodyn_kernel::Piece {").count(), 8, "{text}");
        assert!(text.ends_with("len: 2 })"), "{text}");
        // A velocity drive's position: the integral of its rate.
        let integral = TimeFunction::Constant(2.0).integral(0.25).unwrap();
        assert_eq!(
            function_expr(&integral),
            "TimeFunction::Integral { initial: s(0.25), rate: ferrodyn_kernel::Rate::Constant(s(2.0)) }"
        );
    }
}
