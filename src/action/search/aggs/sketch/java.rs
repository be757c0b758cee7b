//! Java arithmetic the sketches depend on for bit-equal results: `Math.min`/`Math.max` (NaN wins,
//! -0.0 < 0.0), `Math.round`, `Math.nextAfter` downwards, `Math.ulp` and `java.util.Random`.

use serde::{Deserialize, Serialize};

/// `Math.min(a, b)` for doubles.
pub(super) fn java_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else if a <= b {
        a
    } else {
        b
    }
}

/// `Math.max(a, b)` for doubles.
pub(super) fn java_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_positive() {
            a
        } else {
            b
        }
    } else if a >= b {
        a
    } else {
        b
    }
}

/// `Math.round(double)`: the nearest long, ties towards positive infinity, NaN to 0, saturating.
pub(super) fn java_round(x: f64) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let f = x.floor();
    let r = if x - f >= 0.5 { f + 1.0 } else { f };
    r as i64
}

/// `Math.nextAfter(x, Double.NEGATIVE_INFINITY)`.
pub(super) fn next_down(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return x;
    }
    if x == 0.0 {
        return -f64::from_bits(1);
    }
    let bits = x.to_bits();
    if x > 0.0 {
        f64::from_bits(bits - 1)
    } else {
        f64::from_bits(bits + 1)
    }
}

/// `Math.ulp(x)`.
pub(super) fn ulp(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let a = x.abs();
    if a == f64::MAX {
        return a - f64::from_bits(a.to_bits() - 1);
    }
    f64::from_bits(a.to_bits() + 1) - a
}

/// `java.util.Random`: the 48-bit linear congruential generator, for `nextDouble`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct JavaRandom {
    seed: u64,
}

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const MASK: u64 = (1 << 48) - 1;

impl JavaRandom {
    /// `new Random(seed)`.
    pub(super) fn new(seed: i64) -> JavaRandom {
        JavaRandom { seed: (seed as u64 ^ MULTIPLIER) & MASK }
    }

    fn next(&mut self, bits: u32) -> u64 {
        self.seed = (self.seed.wrapping_mul(MULTIPLIER).wrapping_add(0xB)) & MASK;
        self.seed >> (48 - bits)
    }

    /// `nextDouble()`.
    pub(super) fn next_double(&mut self) -> f64 {
        let hi = self.next(26);
        let lo = self.next(27);
        ((hi << 27) + lo) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_random_matches_known_sequence() {
        // new Random(42).nextDouble() twice, as Java prints them.
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_double(), 0.7275636800328681);
        assert_eq!(r.next_double(), 0.6832234717598454);
    }

    #[test]
    fn java_min_max_and_round() {
        assert!(java_min(f64::NAN, 1.0).is_nan());
        assert!(java_max(1.0, f64::NAN).is_nan());
        assert!(java_min(0.0, -0.0).is_sign_negative());
        assert!(java_max(-0.0, 0.0).is_sign_positive());
        assert_eq!(java_round(2.5), 3);
        assert_eq!(java_round(-2.5), -2);
        assert_eq!(java_round(0.49999999999999994), 0);
        assert_eq!(java_round(f64::NAN), 0);
        assert_eq!(java_round(1e30), i64::MAX);
        assert_eq!(next_down(1.0), 0.9999999999999999);
        assert_eq!(next_down(0.0), -f64::from_bits(1));
        assert_eq!(ulp(1.0), f64::EPSILON);
        assert_eq!(ulp(-8.0), 8.0 * f64::EPSILON);
    }
}

/// Serde for doubles that may be infinite or NaN (JSON has no such numbers): those travel as
/// the strings `Infinity`, `-Infinity` and `NaN`, every other value as a number.
pub(super) mod any_f64 {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    pub(super) enum Repr {
        Num(f64),
        Text(String),
    }

    pub(super) fn to_repr(v: f64) -> Repr {
        if v.is_finite() {
            Repr::Num(v)
        } else if v.is_nan() {
            Repr::Text("NaN".into())
        } else if v > 0.0 {
            Repr::Text("Infinity".into())
        } else {
            Repr::Text("-Infinity".into())
        }
    }

    pub(super) fn from_repr<E: serde::de::Error>(r: Repr) -> Result<f64, E> {
        match r {
            Repr::Num(v) => Ok(v),
            Repr::Text(t) => match t.as_str() {
                "NaN" => Ok(f64::NAN),
                "Infinity" => Ok(f64::INFINITY),
                "-Infinity" => Ok(f64::NEG_INFINITY),
                _ => Err(E::custom(format!("not a double: {t}"))),
            },
        }
    }

    pub(in super::super) fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        to_repr(*v).serialize(s)
    }

    pub(in super::super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        from_repr(Repr::deserialize(d)?)
    }

    /// The same for a vector of doubles.
    pub(in super::super) mod vec {
        use super::{from_repr, to_repr, Repr};
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub(in super::super::super) fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
            v.iter().map(|&x| to_repr(x)).collect::<Vec<_>>().serialize(s)
        }

        pub(in super::super::super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            Vec::<Repr>::deserialize(d)?.into_iter().map(from_repr).collect()
        }
    }
}
