//! Parameter specs: the values a parameter takes, written after `PATH=` on the command line.
//!
//! | spec | values |
//! |---|---|
//! | `1,2.5,4` | the listed values (any kind: numbers, strings, `true`/`false`) |
//! | `lin:START:END:COUNT` | COUNT evenly spaced numbers from START to END |
//! | `log:START:END:COUNT` | COUNT numbers evenly spaced in log from START to END (both > 0) |
//! | `uniform:LOW:HIGH` | uniform on [LOW, HIGH] (sampled designs) |
//! | `loguniform:LOW:HIGH` | log-uniform on [LOW, HIGH], 0 < LOW (sampled designs) |
//! | `normal:MEAN:SD` | normal (sampled designs) |
//!
//! A grid takes lists and lin/log ranges; the sampled designs (Latin hypercube, Monte Carlo)
//! take lists (each value equally likely) and the distributions.

use super::path::Kind;
use super::sample::normal_quantile;
use super::study::format_number;

/// A parsed spec.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// Listed values, as written.
    List(Vec<String>),
    /// Evenly spaced numbers.
    Lin {
        /// First value.
        start: f64,
        /// Last value.
        end: f64,
        /// Number of values.
        count: usize,
    },
    /// Numbers evenly spaced in log.
    Log {
        /// First value (> 0).
        start: f64,
        /// Last value (> 0).
        end: f64,
        /// Number of values.
        count: usize,
    },
    /// A continuous distribution.
    Distribution(Distribution),
}

/// A continuous distribution of a sampled parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    /// Uniform on [low, high].
    Uniform {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
    },
    /// Log-uniform on [low, high].
    LogUniform {
        /// Lower bound (> 0).
        low: f64,
        /// Upper bound.
        high: f64,
    },
    /// Normal.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation (> 0).
        sd: f64,
    },
}

impl Distribution {
    /// The value at probability `u` ∈ (0, 1) (the quantile): the same transform serves Monte
    /// Carlo (u uniform) and Latin hypercube (u stratified).
    pub fn quantile(&self, u: f64) -> f64 {
        match *self {
            Self::Uniform { low, high } => low + u * (high - low),
            Self::LogUniform { low, high } => {
                libm::exp(libm::log(low) + u * (libm::log(high) - libm::log(low)))
            }
            Self::Normal { mean, sd } => mean + sd * normal_quantile(u),
        }
    }
}

/// The values one parameter may take, ready for a design.
#[derive(Clone, Debug, PartialEq)]
pub enum Axis {
    /// Discrete levels, as manifest cells.
    Levels(Vec<String>),
    /// A continuous distribution (sampled designs only).
    Continuous(Distribution),
}

impl Axis {
    /// The manifest cell at probability `u` ∈ (0, 1).
    pub fn sample(&self, u: f64) -> String {
        match self {
            // Each level is equally likely; u < 1 keeps the index in range.
            Self::Levels(levels) => {
                let k = ((u * levels.len() as f64) as usize).min(levels.len().saturating_sub(1));
                levels.get(k).cloned().unwrap_or_default()
            }
            Self::Continuous(d) => format_number(d.quantile(u)),
        }
    }
}

impl Spec {
    /// Parses `text`; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (head, rest) = match text.split_once(':') {
            Some((head, rest)) if head.chars().all(|c| c.is_ascii_alphabetic()) => (head, rest),
            _ => {
                let items: Vec<String> = text.split(',').map(|s| s.trim().to_string()).collect();
                if items.iter().any(String::is_empty) {
                    return Err(format!("'{text}' has an empty list item"));
                }
                return Ok(Self::List(items));
            }
        };
        let fields: Vec<&str> = rest.split(':').collect();
        let numbers = |form: &str, n: usize| -> Result<Vec<f64>, String> {
            if fields.len() != n {
                return Err(format!("'{text}': expected {form}"));
            }
            fields
                .iter()
                .map(|f| {
                    f.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .ok_or_else(|| format!("'{text}': '{f}' is not a finite number ({form})"))
                })
                .collect()
        };
        let count = |form: &str| -> Result<usize, String> {
            fields
                .last()
                .and_then(|c| c.trim().parse::<usize>().ok())
                .filter(|&c| c >= 1)
                .ok_or_else(|| format!("'{text}': COUNT must be a whole number ≥ 1 ({form})"))
        };
        match head {
            "lin" | "log" => {
                let form = format!("{head}:START:END:COUNT");
                let v = numbers(&form, 3)?;
                let count = count(&form)?;
                let (start, end) = (v[0], v[1]);
                if head == "lin" {
                    return Ok(Self::Lin { start, end, count });
                }
                if start <= 0.0 || end <= 0.0 {
                    return Err(format!("'{text}': log ranges need START > 0 and END > 0"));
                }
                Ok(Self::Log { start, end, count })
            }
            "uniform" | "loguniform" => {
                let v = numbers(&format!("{head}:LOW:HIGH"), 2)?;
                let (low, high) = (v[0], v[1]);
                if low >= high {
                    return Err(format!("'{text}': LOW must be less than HIGH"));
                }
                if head == "uniform" {
                    return Ok(Self::Distribution(Distribution::Uniform { low, high }));
                }
                if low <= 0.0 {
                    return Err(format!("'{text}': loguniform needs LOW > 0"));
                }
                Ok(Self::Distribution(Distribution::LogUniform { low, high }))
            }
            "normal" => {
                let v = numbers("normal:MEAN:SD", 2)?;
                if v[1] <= 0.0 {
                    return Err(format!("'{text}': SD must be > 0"));
                }
                Ok(Self::Distribution(Distribution::Normal { mean: v[0], sd: v[1] }))
            }
            _ => Err(format!(
                "'{text}': unknown spec '{head}:'; use a list (1,2,3), lin:, log:, uniform:, loguniform: or normal:"
            )),
        }
    }

    /// The axis of this spec for a value of `kind`; `sampled`: for a Latin hypercube or Monte
    /// Carlo design (distributions allowed, ranges not), else for a grid.
    pub fn axis(&self, kind: Kind, sampled: bool) -> Result<Axis, String> {
        let numeric = matches!(kind, Kind::Number { .. });
        match self {
            Self::List(items) => items.iter().map(|item| cell(item, kind)).collect::<Result<_, _>>().map(Axis::Levels),
            _ if !numeric => Err("ranges and distributions need a number; the scene has a string or boolean here".into()),
            Self::Lin { .. } | Self::Log { .. } if sampled => {
                Err("lin: and log: are grid ranges; sample with uniform:, loguniform: or normal:".into())
            }
            Self::Lin { start, end, count } => Ok(Axis::Levels(
                (0..*count)
                    .map(|k| format_number(spaced(*start, *end, k, *count)))
                    .collect(),
            )),
            // start · (end/start)^(k/(n−1)): decades land on round numbers (1e-4, 1e-3, 1e-2).
            Self::Log { start, end, count } => Ok(Axis::Levels(
                (0..*count)
                    .map(|k| match k {
                        0 => format_number(*start),
                        _ if k + 1 == *count => format_number(*end),
                        _ => format_number(start * libm::pow(end / start, k as f64 / (*count - 1) as f64)),
                    })
                    .collect(),
            )),
            Self::Distribution(_) if !sampled => Err(
                "a distribution has no grid values; use --lhs N or --monte-carlo N, or a list or lin:/log: range"
                    .into(),
            ),
            Self::Distribution(d) => Ok(Axis::Continuous(*d)),
        }
    }
}

/// The k-th of `count` values evenly spaced from `start` to `end` (the last exactly `end`).
fn spaced(start: f64, end: f64, k: usize, count: usize) -> f64 {
    match count {
        1 => start,
        _ if k + 1 == count => end,
        _ => start + (end - start) * (k as f64 / (count - 1) as f64),
    }
}

/// A list item as a manifest cell for a value of `kind`.
fn cell(item: &str, kind: Kind) -> Result<String, String> {
    match kind {
        Kind::Number { .. } => item
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(format_number)
            .ok_or_else(|| format!("'{item}' is not a finite number (the scene has a number here)")),
        Kind::Bool => item
            .parse::<bool>()
            .map(|b| b.to_string())
            .map_err(|_| format!("'{item}' is not true or false (the scene has a boolean here)")),
        Kind::Text => Ok(item.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NUMBER: Kind = Kind::Number { integer: false };

    fn levels(spec: &str) -> Vec<String> {
        match Spec::parse(spec).unwrap().axis(NUMBER, false).unwrap() {
            Axis::Levels(l) => l,
            Axis::Continuous(_) => panic!("{spec} is not a grid spec"),
        }
    }

    #[test]
    fn grid_specs_give_their_values() {
        assert_eq!(levels("1, 2.5,4"), ["1e0", "2.5e0", "4e0"]);
        assert_eq!(levels("lin:0.5:2:4"), ["5e-1", "1e0", "1.5e0", "2e0"]);
        assert_eq!(levels("log:1e-4:1e-2:3"), ["1e-4", "1e-3", "1e-2"]);
        assert_eq!(levels("lin:3:7:1"), ["3e0"]);
    }

    #[test]
    fn malformed_specs_say_why() {
        for (spec, why) in [
            ("lin:1:2", "expected lin:START:END:COUNT"),
            ("lin:1:2:0", "COUNT must be a whole number"),
            ("log:0:1:3", "START > 0"),
            ("uniform:2:1", "LOW must be less than HIGH"),
            ("normal:1:-1", "SD must be > 0"),
            ("normal:x:1", "'x' is not a finite number"),
            ("gauss:1:2", "unknown spec 'gauss:'"),
            ("1,,2", "empty list item"),
        ] {
            let e = Spec::parse(spec).unwrap_err();
            assert!(e.contains(why), "{spec}: {e}");
        }
        let e = Spec::parse("1,abc").unwrap().axis(NUMBER, false).unwrap_err();
        assert!(e.contains("'abc' is not a finite number"), "{e}");
        let e = Spec::parse("normal:1:0.1")
            .unwrap()
            .axis(NUMBER, false)
            .unwrap_err();
        assert!(e.contains("--lhs"), "{e}");
        let e = Spec::parse("lin:1:2:3").unwrap().axis(NUMBER, true).unwrap_err();
        assert!(e.contains("grid ranges"), "{e}");
    }

    #[test]
    fn quantiles_map_the_unit_interval_onto_the_distribution() {
        let u = Distribution::Uniform { low: 2.0, high: 4.0 };
        assert_eq!(u.quantile(0.25), 2.5);
        let l = Distribution::LogUniform {
            low: 1e-4,
            high: 1e-2,
        };
        assert!((l.quantile(0.5) - 1e-3).abs() < 1e-15);
        let n = Distribution::Normal { mean: 1.0, sd: 0.1 };
        assert!((n.quantile(0.975) - (1.0 + 0.1 * 1.959_963_984_540_054)).abs() < 1e-14);
        let list = Axis::Levels(vec!["a".into(), "b".into()]);
        assert_eq!((list.sample(0.49), list.sample(0.51)), ("a".into(), "b".into()));
    }
}
