//! A digest of a state: 64-bit FNV-1a over the little-endian IEEE bits of every value, as many
//! bytes as the scalar has. Equal digests on two targets mean (with overwhelming likelihood)
//! the same bits: how the firmware and the host prove they computed the same trajectory.

use crate::Real;

/// A 64-bit FNV-1a hash of states, fed one state at a time (chained over a trajectory) or
/// taken of one state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Digest(pub u64);

impl Default for Digest {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    /// Mixes every value's bits into the digest.
    pub fn add<R: Real>(&mut self, state: &[R]) {
        for x in state {
            self.add_bytes(&x.ieee_bits().to_le_bytes()[..R::BYTES]);
        }
    }
    /// Mixes raw bytes into the digest (a text, a file): FNV-1a itself.
    pub fn add_bytes(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// The digest of one state.
    pub fn of<R: Real>(state: &[R]) -> Self {
        let mut d = Self::default();
        d.add(state);
        d
    }
}

#[cfg(test)]
mod tests {
    use super::Digest;

    /// Byte-wise FNV-1a 64, the reference.
    fn fnv1a(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    #[test]
    fn is_fnv1a_over_the_little_endian_ieee_bytes() {
        // The reference against the published vectors (Fowler–Noll–Vo, draft-eastlake-fnv).
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        let (x, y) = (1.5f32, -2.25f64);
        assert_eq!(Digest::of(&[x]).0, fnv1a(&x.to_le_bytes()), "4 bytes of an f32");
        assert_eq!(Digest::of(&[y]).0, fnv1a(&y.to_le_bytes()), "8 bytes of an f64");
        let mut chained = Digest::default();
        chained.add(&[y]);
        chained.add(&[3.0f64]);
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&y.to_le_bytes());
        bytes[8..].copy_from_slice(&3.0f64.to_le_bytes());
        assert_eq!(chained.0, fnv1a(&bytes), "chaining is concatenation");
    }
}
