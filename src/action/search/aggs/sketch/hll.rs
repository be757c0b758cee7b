//! OpenSearch's `HyperLogLogPlusPlus` for the `cardinality` aggregation, one bucket of it.
//!
//! Values are hashed to 64 bits as `CardinalityAggregator` hashes them ([`Hll::hash_long`],
//! [`Hll::hash_double`], [`Hll::hash_bytes`]). While few, hashes are kept exactly, each encoded
//! in 32 bits (`AbstractLinearCounting.encodeHash`), and counted by linear counting over 2^25
//! registers; past 3/4 of `2^p / 4` of them the set is replayed into 2^p HyperLogLog registers,
//! estimated with the HLL++ bias correction (`AbstractHyperLogLog.cardinality`).

use super::hll_tables::{BIAS_DATA, RAW_ESTIMATE_DATA, THRESHOLDS};
use super::java::java_round;
use super::murmur::murmur3_x64_128;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

pub const MIN_PRECISION: u8 = 4;
pub const MAX_PRECISION: u8 = 18;
/// Precision without `precision_threshold` (`HyperLogLogPlusPlus.DEFAULT_PRECISION`).
pub const DEFAULT_PRECISION: u8 = 14;

/// Bits kept of each hash in linear counting (`AbstractLinearCounting.P2`).
const P2: u32 = 25;
const BIAS_K: usize = 6;

/// One HLL++ counter.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hll {
    precision: u8,
    state: State,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
enum State {
    /// Distinct encoded hashes (linear counting).
    Linear(HashSet<u32>),
    /// One run length per register.
    Registers(Vec<u8>),
}

impl Hll {
    /// A counter with OpenSearch's precision for `precision_threshold`.
    pub fn with_precision_threshold(threshold: u64) -> Hll {
        Hll::with_precision(Hll::precision_from_threshold(threshold))
    }

    /// A counter of precision `p` (clamped to 4..=18).
    pub fn with_precision(p: u8) -> Hll {
        Hll { precision: p.clamp(MIN_PRECISION, MAX_PRECISION), state: State::Linear(HashSet::new()) }
    }

    /// `HyperLogLogPlusPlus.precisionFromThreshold`: the precision whose linear-counting table
    /// holds `threshold` hashes at load factor 0.75, within 4..=18 (so thresholds above 40,000
    /// act as 40,000). A threshold so large that Java's arithmetic overflows gives 18.
    pub fn precision_from_threshold(threshold: u64) -> u8 {
        let count = threshold.min(i64::MAX as u64) as i64;
        // Java divides in float: `(long) Math.ceil(count / 0.75f)`.
        let entries = f64::from(count as f32 / 0.75f32).ceil() as i64;
        let Some(bytes) = entries.checked_mul(4) else { return MAX_PRECISION };
        let bits = (64 - bytes.leading_zeros()).max(1) as u8;
        bits.clamp(MIN_PRECISION, MAX_PRECISION)
    }

    pub fn precision(&self) -> u8 {
        self.precision
    }

    /// Linear-counting capacity before the switch to registers.
    fn threshold(&self) -> usize {
        let capacity = (1usize << self.precision) / 4;
        (capacity as f32 * 0.75f32) as usize
    }

    /// Adds a hashed value (`HyperLogLogPlusPlus.collect`).
    pub fn add_hash(&mut self, hash: u64) {
        let p = self.precision as u32;
        match &mut self.state {
            State::Linear(set) => {
                if set.insert(encode_hash(hash, p)) && set.len() > self.threshold() {
                    self.upgrade();
                }
            }
            State::Registers(regs) => {
                let index = (hash >> (64 - p)) as usize;
                let run_len = 1 + (hash << p).leading_zeros().min(64 - p) as u8;
                regs[index] = regs[index].max(run_len);
            }
        }
    }

    /// `BitMixer.mix64(v)`: the hash of a long (integer, date and boolean fields).
    pub fn hash_long(v: i64) -> u64 {
        mix64(v as u64)
    }

    /// `BitMixer.mix64(Double.doubleToLongBits(v))`: the hash of a double (floating-point fields
    /// and `unsigned_long`, which OpenSearch reads as doubles here).
    pub fn hash_double(v: f64) -> u64 {
        let bits = if v.is_nan() { 0x7ff8_0000_0000_0000 } else { v.to_bits() };
        mix64(bits)
    }

    /// `MurmurHash3.hash128(bytes, seed 0).h1`: the hash of a term (keyword, ip, ...).
    pub fn hash_bytes(b: &[u8]) -> u64 {
        murmur3_x64_128(b, 0).0
    }

    /// `HyperLogLogPlusPlus.merge`: adds another counter of the same precision (a counter of
    /// another precision is refused, see [`Hll::try_merge`], and left out).
    pub fn merge(&mut self, other: &Hll) {
        let _ = self.try_merge(other);
    }

    /// [`Hll::merge`], or Err when the precisions differ (Java's `IllegalArgumentException`).
    pub fn try_merge(&mut self, other: &Hll) -> Result<(), String> {
        if other.precision != self.precision {
            return Err(format!("cannot merge precision {} into precision {}", other.precision, self.precision));
        }
        match &other.state {
            State::Linear(hashes) => {
                for &e in hashes {
                    self.add_encoded(e);
                }
            }
            State::Registers(theirs) => {
                if let State::Linear(_) = self.state {
                    self.upgrade();
                }
                if let State::Registers(ours) = &mut self.state {
                    for (o, t) in ours.iter_mut().zip(theirs) {
                        *o = (*o).max(*t);
                    }
                }
            }
        }
        Ok(())
    }

    fn add_encoded(&mut self, e: u32) {
        let p = self.precision as u32;
        match &mut self.state {
            State::Linear(set) => {
                if set.insert(e) && set.len() > self.threshold() {
                    self.upgrade();
                }
            }
            State::Registers(regs) => {
                let (index, run_len) = decode(e, p);
                regs[index] = regs[index].max(run_len);
            }
        }
    }

    /// `upgradeToHll`: the linear-counting hashes replayed into registers.
    fn upgrade(&mut self) {
        let p = self.precision as u32;
        let mut regs = vec![0u8; 1 << p];
        if let State::Linear(set) = &self.state {
            for &e in set {
                let (index, run_len) = decode(e, p);
                regs[index] = regs[index].max(run_len);
            }
        }
        self.state = State::Registers(regs);
    }

    /// Whether the counter has switched to HyperLogLog registers.
    pub fn is_hyperloglog(&self) -> bool {
        matches!(self.state, State::Registers(_))
    }

    /// The estimated number of distinct values.
    pub fn cardinality(&self) -> u64 {
        match &self.state {
            State::Linear(set) => {
                let m = 1i64 << P2;
                linear_counting(m, m - set.len() as i64)
            }
            State::Registers(regs) => self.hll_cardinality(regs),
        }
        .max(0) as u64
    }

    /// `AbstractHyperLogLog.cardinality`.
    fn hll_cardinality(&self, regs: &[u8]) -> i64 {
        let p = self.precision as usize;
        let m = regs.len();
        let mut inverse_sum = 0.0f64;
        let mut zeros = 0i64;
        for &r in regs {
            inverse_sum += 1.0 / (1u64 << r) as f64;
            if r == 0 {
                zeros += 1;
            }
        }
        let alpha = match p {
            4 => 0.673,
            5 => 0.697,
            _ => 0.7213 / (1.0 + 1.079 / m as f64),
        };
        let alpha_mm = alpha * m as f64 * m as f64;
        let e1 = alpha_mm / inverse_sum;
        let e2 = if e1 <= (5 * m) as f64 { e1 - estimate_bias(e1, p) } else { e1 };
        let h = if zeros != 0 { linear_counting(m as i64, zeros) } else { java_round(e2) };
        if h <= THRESHOLDS[p - 4] {
            h
        } else {
            java_round(e2)
        }
    }

    /// Approximate heap held.
    pub fn mem_bytes(&self) -> usize {
        std::mem::size_of::<Hll>()
            + match &self.state {
                State::Linear(set) => set.capacity() * 8,
                State::Registers(regs) => regs.capacity(),
            }
    }
}

/// `AbstractHyperLogLog.estimateBias`.
fn estimate_bias(e: f64, p: usize) -> f64 {
    let raw = RAW_ESTIMATE_DATA[p - 4];
    let bias = BIAS_DATA[p - 4];
    let mut weights = [0.0f64; BIAS_K];
    let mut index = bias.len() - BIAS_K;
    for (i, &r) in raw.iter().enumerate() {
        let w = 1.0 / (r - e).abs();
        let j = i % BIAS_K;
        if w.is_infinite() {
            return bias[i];
        } else if weights[j] >= w {
            index = i - BIAS_K;
            break;
        }
        weights[j] = w;
    }
    let mut weight_sum = 0.0;
    let mut bias_sum = 0.0;
    for (i, &w) in weights.iter().enumerate() {
        bias_sum += w * bias[index + i];
        weight_sum += w;
    }
    bias_sum / weight_sum
}

/// `AbstractCardinalityAlgorithm.linearCounting`.
fn linear_counting(m: i64, v: i64) -> i64 {
    java_round(m as f64 * (m as f64 / v as f64).ln())
}

/// `AbstractLinearCounting.encodeHash`: the top 25 bits, with the run length when the bits
/// below the register index are all zero.
fn encode_hash(hash: u64, p: u32) -> u32 {
    let e = hash >> (64 - P2);
    let encoded = if e & ((1u64 << (P2 - p)) - 1) == 0 {
        let run_len = 1 + (hash << P2).leading_zeros().min(64 - P2) as u64;
        (e << 7) | (run_len << 1) | 1
    } else {
        e << 1
    };
    encoded as u32
}

/// `decodeIndex` and `decodeRunLen`.
fn decode(encoded: u32, p: u32) -> (usize, u8) {
    let (index, run_len) = if encoded & 1 == 1 {
        (encoded >> 7, ((encoded >> 1) & 0x3F) + (P2 - p))
    } else {
        let bits = encoded << (31 + p - P2);
        (encoded >> 1, 1 + bits.leading_zeros())
    };
    ((index >> (P2 - p)) as usize, run_len as u8)
}

/// `BitMixer.mix64` (David Stafford's variant 9).
fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 32)).wrapping_mul(0x4cd6_944c_5cc2_0b6d);
    let z = (z ^ (z >> 29)).wrapping_mul(0xfc12_c5b1_9d32_59e9);
    z ^ (z >> 32)
}

#[cfg(test)]
#[path = "hll_tests.rs"]
mod tests;
