//! Fixed tendons on a tree (MuJoCo's `<tendon><fixed>`): a length linear in the coordinates of
//! revolute and prismatic joints, L = offset + Σ cᵢ qᵢ, carrying a spring-damper and end stops.
//!
//! The tendon's force is f = fₛ(L) − c·L̇ + f_stop(L, L̇), with the spring acting outside the
//! rest band [l₀, l₁] (MuJoCo's `springlength`: fₛ = k (l₀ − L) below it, k (l₁ − L) above
//! it, 0 inside; l₀ = l₁ for a plain rest length) and the end stops the joint limits' law
//! ([`JointLimit`]) on L. By virtual work its generalized force on joint i is τᵢ = cᵢ f: the
//! tree adds it to the joint's force at every evaluation of the dynamics. The terms sit inline
//! (at most [`TENDON_TERMS`]), so a tendon needs no storage beyond its slot in the forces list.

use super::model::Model;
use crate::storage::Storage;
use crate::{BuildError, Item, JointLimit, Real};

/// The most joints one tendon spans (the dm_control rodent's tail tendons span 12).
pub const TENDON_TERMS: usize = 16;

/// One joint of a tendon: link `link`'s revolute or prismatic coordinate, times `coefficient`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TendonTerm<R> {
    /// The link whose joint coordinate enters the length.
    pub link: usize,
    /// cᵢ (m/rad or m/m of tendon length per unit of the coordinate; any finite value).
    pub coefficient: R,
    /// Where the coordinate sits in q and in v (found when the tendon is added to a model).
    pub(crate) at: (usize, usize),
}

/// A fixed tendon: its terms, the constant of its length, its spring, damper and end stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tendon<R> {
    terms: [TendonTerm<R>; TENDON_TERMS],
    count: usize,
    /// The length at zero coordinates.
    pub offset: R,
    /// Spring stiffness k (force per unit length), ≥ 0.
    pub stiffness: R,
    /// The rest band [l₀, l₁] of the spring, l₀ ≤ l₁.
    pub rest: (R, R),
    /// Damping c (force per unit length rate), ≥ 0.
    pub damping: R,
    /// End stops on the length.
    pub limit: Option<JointLimit<R>>,
}

impl<R: Real> Tendon<R> {
    /// A tendon of no joints yet, of length `offset` at zero coordinates, without spring,
    /// damper or limit.
    pub fn new(offset: R) -> Self {
        Self {
            terms: [TendonTerm::default(); TENDON_TERMS],
            count: 0,
            offset,
            stiffness: R::ZERO,
            rest: (R::ZERO, R::ZERO),
            damping: R::ZERO,
            limit: None,
        }
    }

    /// Adds `coefficient` × link `link`'s coordinate to the length; `None` when the tendon
    /// already spans [`TENDON_TERMS`] joints.
    pub fn with_term(mut self, link: usize, coefficient: R) -> Option<Self> {
        let slot = self.terms.get_mut(self.count)?;
        *slot = TendonTerm {
            link,
            coefficient,
            at: (0, 0),
        };
        self.count += 1;
        Some(self)
    }

    /// A spring of stiffness `stiffness` slack in the band [`lower`, `upper`] of lengths.
    pub fn with_spring(mut self, stiffness: R, lower: R, upper: R) -> Self {
        self.stiffness = stiffness;
        self.rest = (lower, upper);
        self
    }

    /// A damper of `damping` on the length's rate.
    pub fn with_damping(mut self, damping: R) -> Self {
        self.damping = damping;
        self
    }

    /// End stops on the length.
    pub fn with_limit(mut self, limit: JointLimit<R>) -> Self {
        self.limit = Some(limit);
        self
    }

    /// The terms, in the order added.
    pub fn terms(&self) -> &[TendonTerm<R>] {
        self.terms.get(..self.count).unwrap_or_default()
    }

    /// Checks the tendon as tendon `index` of `model` and finds its coordinates.
    pub(super) fn placed<St: Storage>(
        mut self,
        index: usize,
        model: &Model<R, St>,
    ) -> Result<Self, BuildError> {
        let item = Item::Tendon(index);
        let invalid = |reason| BuildError::InvalidParameter { item, reason };
        let (lower, upper) = self.rest;
        let values = [self.offset, self.stiffness, self.damping, lower, upper];
        if !values.iter().all(|v| v.is_finite()) || self.terms().iter().any(|t| !t.coefficient.is_finite()) {
            return Err(BuildError::NonFinite { item });
        }
        if self.count == 0 {
            return Err(invalid("a tendon spans at least one joint"));
        }
        if self.stiffness < R::ZERO || self.damping < R::ZERO {
            return Err(invalid("tendon stiffness and damping must be ≥ 0"));
        }
        if lower > upper {
            return Err(invalid("tendon rest band: lower must be ≤ upper"));
        }
        if let Some(limit) = self.limit {
            limit.validate(item)?;
        }
        for k in 0..self.count {
            let Some(term) = self.terms.get(k).copied() else {
                break;
            };
            let at = model
                .coordinates(term.link)
                .ok_or(invalid("a tendon term names no link of the tree"))?;
            if at.velocities != 1 {
                return Err(invalid(
                    "a fixed tendon spans revolute or prismatic joints (one coordinate)",
                ));
            }
            if self.terms().iter().take(k).any(|t| t.link == term.link) {
                return Err(invalid("a tendon names a joint twice"));
            }
            if let Some(slot) = self.terms.get_mut(k) {
                slot.at = (at.position, at.velocity);
            }
        }
        Ok(self)
    }

    /// The length L at coordinates `q` and its rate L̇ at rates `rate`.
    pub fn length(&self, q: &[R], rate: &[R]) -> (R, R) {
        self.terms().iter().fold((self.offset, R::ZERO), |(l, dl), t| {
            let qi = q.get(t.at.0).copied().unwrap_or(R::ZERO);
            let vi = rate.get(t.at.1).copied().unwrap_or(R::ZERO);
            (l + t.coefficient * qi, dl + t.coefficient * vi)
        })
    }

    /// The force f along the tendon at length `length` and rate `rate` (positive lengthens).
    pub fn force(&self, length: R, rate: R) -> R {
        let (lower, upper) = self.rest;
        let spring = if length > upper {
            self.stiffness * (upper - length)
        } else if length < lower {
            self.stiffness * (lower - length)
        } else {
            R::ZERO
        };
        let force = spring - self.damping * rate;
        match self.limit {
            Some(limit) => force + limit.force(length, rate),
            None => force,
        }
    }

    /// The energy in the spring and the end stops at length `length`.
    pub fn energy(&self, length: R) -> R {
        let (lower, upper) = self.rest;
        let stretch = (length - upper).max(lower - length).max(R::ZERO);
        let stops = self.limit.map_or(R::ZERO, |l| l.energy(length));
        R::HALF * self.stiffness * stretch * stretch + stops
    }
}

/// Adds every tendon's generalized forces τᵢ = cᵢ f at coordinates `q` and rates `rate` through
/// `add(link, τᵢ)`.
pub(super) fn load<R: Real>(tendons: &[Tendon<R>], q: &[R], rate: &[R], mut add: impl FnMut(usize, R)) {
    for tendon in tendons {
        let (length, length_rate) = tendon.length(q, rate);
        let force = tendon.force(length, length_rate);
        for term in tendon.terms() {
            add(term.link, term.coefficient * force);
        }
    }
}

/// The energy stored in the tendons at coordinates `q`.
pub(super) fn energy<R: Real>(tendons: &[Tendon<R>], q: &[R]) -> R {
    tendons
        .iter()
        .fold(R::ZERO, |sum, t| sum + t.energy(t.length(q, &[]).0))
}

#[cfg(test)]
#[path = "tendon_tests.rs"]
mod tests;
