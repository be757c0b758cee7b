//! HdrHistogram 2.2.2's `DoubleHistogram` as OpenSearch's HDR `percentiles` and
//! `percentile_ranks` use it: `new DoubleHistogram(digits)` with auto-resize, values recorded
//! one by one, shard results reduced into a copy of the first one's shape.
//!
//! A port of `DoubleHistogram` over an integer `Histogram`: doubles map to integers through a
//! power-of-two conversion ratio; the covered range starts at 2^800 and shifts (moving the
//! recorded counts by whole binary orders) or grows to take each new value. Counts are kept by
//! logical index (Java's normalizing offset only rotates where they sit in its array).
//!
//! Errors are HdrHistogram's `ArrayIndexOutOfBoundsException` messages (OpenSearch reports them
//! as `array_index_out_of_bounds_exception`, see [`ERROR_TYPE`]): negative values, values above
//! about 4.5e307, and ranges wider than the integer histogram can grow to.

use super::java::{java_max, java_min, next_down, ulp};
use serde::{Deserialize, Serialize};

/// The OpenSearch error type of a failed recording.
pub const ERROR_TYPE: &str = "array_index_out_of_bounds_exception";

/// OpenSearch's default `number_of_significant_value_digits`.
pub const DEFAULT_DIGITS: u8 = 3;

/// Bound on the steps of one range adjustment (Java's loop has none; ~1,900 suffice for any
/// finite double).
const MAX_RANGE_STEPS: usize = 10_000;

const AIOOBE: &str = "java.lang.ArrayIndexOutOfBoundsException: ";

/// `DoubleHistogram.highestAllowedValueEver`: the largest power of two below `Double.MAX_VALUE / 4`.
fn highest_allowed_value_ever() -> f64 {
    let mut v = 1.0f64;
    while v < f64::MAX / 4.0 {
        v *= 2.0;
    }
    v
}

/// A `DoubleHistogram`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hdr {
    configured_ratio: i64,
    #[serde(with = "super::java::any_f64")]
    current_lowest: f64,
    #[serde(with = "super::java::any_f64")]
    current_highest_limit: f64,
    ints: IntHistogram,
}

/// The integer `Histogram` inside (lowest discernible value 1, so unit magnitude 0).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct IntHistogram {
    digits: u8,
    highest_trackable: i64,
    sub_bucket_count: i32,
    sub_bucket_half_count: i32,
    sub_bucket_half_count_magnitude: i32,
    sub_bucket_mask: i64,
    leading_zero_count_base: i32,
    counts: Vec<u64>,
    total_count: u64,
    max_value: i64,
    min_non_zero_value: i64,
    #[serde(with = "super::java::any_f64")]
    i2d: f64,
    #[serde(with = "super::java::any_f64")]
    d2i: f64,
}

/// `AbstractHistogram.numberOfSubBuckets`.
fn sub_bucket_count_magnitude(digits: u8) -> i32 {
    let largest = 2.0 * 10f64.powi(digits as i32);
    (largest.ln() / 2f64.ln()).ceil() as i32
}

fn containing_order(v: i64) -> i32 {
    64 - v.leading_zeros() as i32
}

impl IntHistogram {
    fn new(highest_trackable: i64, digits: u8) -> IntHistogram {
        let mag = sub_bucket_count_magnitude(digits);
        let sub_bucket_count = 1i32 << mag;
        let mut h = IntHistogram {
            digits,
            highest_trackable,
            sub_bucket_count,
            sub_bucket_half_count: sub_bucket_count / 2,
            sub_bucket_half_count_magnitude: mag - 1,
            sub_bucket_mask: (sub_bucket_count as i64) - 1,
            leading_zero_count_base: 64 - mag,
            counts: Vec::new(),
            total_count: 0,
            max_value: 0,
            min_non_zero_value: i64::MAX,
            i2d: 1.0,
            d2i: 1.0,
        };
        h.establish_size(highest_trackable);
        h
    }

    fn establish_size(&mut self, highest: i64) {
        let len = self.length_for_buckets(self.buckets_needed(highest));
        self.counts.resize(len, 0);
        self.highest_trackable = highest;
    }

    fn buckets_needed(&self, value: i64) -> i32 {
        let mut smallest_untrackable = self.sub_bucket_count as i64;
        let mut buckets = 1;
        while smallest_untrackable <= value {
            if smallest_untrackable > i64::MAX / 2 {
                return buckets + 1;
            }
            smallest_untrackable <<= 1;
            buckets += 1;
        }
        buckets
    }

    fn length_for_buckets(&self, buckets: i32) -> usize {
        ((buckets + 1) * self.sub_bucket_half_count) as usize
    }

    fn set_i2d(&mut self, r: f64) {
        self.i2d = r;
        self.d2i = 1.0 / r;
    }

    fn bucket_index(&self, v: i64) -> i32 {
        self.leading_zero_count_base - (v | self.sub_bucket_mask).leading_zeros() as i32
    }

    fn sub_bucket_index(&self, v: i64, bucket: i32) -> i32 {
        ((v as u64) >> bucket) as i32
    }

    /// `countsArrayIndex`; Err for negative values.
    fn index_of(&self, v: i64) -> Result<usize, String> {
        if v < 0 {
            return Err("Histogram recorded value cannot be negative.".to_string());
        }
        let bucket = self.bucket_index(v);
        let sub = self.sub_bucket_index(v, bucket);
        let base = (bucket + 1) << self.sub_bucket_half_count_magnitude;
        Ok((base + sub - self.sub_bucket_half_count) as usize)
    }

    fn value_from_index(&self, index: usize) -> i64 {
        let index = index as i32;
        let mut bucket = (index >> self.sub_bucket_half_count_magnitude) - 1;
        let mut sub = (index & (self.sub_bucket_half_count - 1)) + self.sub_bucket_half_count;
        if bucket < 0 {
            sub -= self.sub_bucket_half_count;
            bucket = 0;
        }
        (sub as i64) << bucket
    }

    fn lowest_equivalent(&self, v: i64) -> i64 {
        let bucket = self.bucket_index(v);
        (self.sub_bucket_index(v, bucket) as i64) << bucket
    }

    fn size_of_equivalent_range(&self, v: i64) -> i64 {
        1i64 << self.bucket_index(v)
    }

    fn highest_equivalent(&self, v: i64) -> i64 {
        self.lowest_equivalent(v).wrapping_add(self.size_of_equivalent_range(v)).wrapping_sub(1)
    }

    fn update_min_and_max(&mut self, v: i64) {
        if v > self.max_value {
            self.max_value = v;
        }
        if v < self.min_non_zero_value && v != 0 {
            self.min_non_zero_value = v;
        }
    }

    fn max_value(&self) -> i64 {
        if self.max_value == 0 {
            0
        } else {
            self.highest_equivalent(self.max_value)
        }
    }

    fn min_non_zero_value(&self) -> i64 {
        if self.min_non_zero_value == i64::MAX {
            i64::MAX
        } else {
            self.lowest_equivalent(self.min_non_zero_value)
        }
    }

    /// `recordCountAtValue` without auto-resize (a `DoubleHistogram`'s inner histogram has none).
    fn record(&mut self, v: i64, count: u64) -> Result<(), String> {
        let i = self.index_of(v)?;
        let Some(slot) = self.counts.get_mut(i) else {
            return Err(format!("value {v} outside of histogram covered range."));
        };
        *slot += count;
        self.update_min_and_max(v);
        self.total_count += count;
        Ok(())
    }

    /// `shiftValuesLeft(n)`: every recorded value times 2^n.
    fn shift_values_left(&mut self, n: i32) -> Result<(), String> {
        if n == 0 || self.total_count == self.counts[0] {
            return Ok(());
        }
        let shift = (n << self.sub_bucket_half_count_magnitude) as usize;
        let len = self.counts.len();
        let max_index = self.index_of(self.max_value())?;
        if max_index >= len.saturating_sub(shift) {
            return Err("Operation would overflow, would discard recorded value counts".to_string());
        }
        let max_before = self.max_value;
        let min_before = self.min_non_zero_value;
        self.max_value = 0;
        self.min_non_zero_value = i64::MAX;
        let half = self.sub_bucket_half_count as usize;
        let mut shifted = vec![0u64; len];
        shifted[0] = self.counts[0];
        for i in 1..len {
            let c = self.counts[i];
            if c == 0 {
                continue;
            }
            let to = if i < half { self.index_of(self.value_from_index(i) << n)? } else { i + shift };
            match shifted.get_mut(to) {
                Some(slot) => *slot = c,
                None => return Err("Operation would overflow, would discard recorded value counts".to_string()),
            }
        }
        self.counts = shifted;
        self.update_min_and_max(max_before << n);
        if min_before < i64::MAX {
            self.update_min_and_max(min_before << n);
        }
        Ok(())
    }

    /// `shiftValuesRight(n)`: every recorded value divided by 2^n.
    fn shift_values_right(&mut self, n: i32) -> Result<(), String> {
        if n == 0 || self.total_count == self.counts[0] {
            return Ok(());
        }
        let shift = (self.sub_bucket_half_count * n) as usize;
        let min_index = self.index_of(self.min_non_zero_value())?;
        if min_index < shift + self.sub_bucket_half_count as usize {
            return Err("Operation would underflow and lose precision of already recorded value counts".to_string());
        }
        let max_before = self.max_value;
        let min_before = self.min_non_zero_value;
        self.max_value = 0;
        self.min_non_zero_value = i64::MAX;
        let zero = self.counts[0];
        self.counts[0] = 0;
        self.counts.rotate_left(shift);
        self.counts[0] = zero;
        self.update_min_and_max(max_before >> n);
        if min_before < i64::MAX {
            self.update_min_and_max(min_before >> n);
        }
        Ok(())
    }
}

impl Hdr {
    /// `new DoubleHistogram(digits)` with auto-resize; digits above 5 are taken as 5 (see
    /// [`Hdr::try_new`] for OpenSearch's check).
    pub fn new(significant_digits: u8) -> Hdr {
        let digits = significant_digits.min(5);
        let configured_ratio = 2i64;
        let internal_ratio = internal_ratio(configured_ratio);
        let mag = sub_bucket_count_magnitude(digits);
        let integer_range = (1i64 << (mag - 1)) * internal_ratio;
        let ints = IntHistogram::new(integer_range - 1, digits);
        let mut h = Hdr { configured_ratio, current_lowest: 0.0, current_highest_limit: 0.0, ints };
        let lowest = 2f64.powi(800);
        h.set_range(lowest, lowest * internal_ratio as f64);
        h
    }

    /// [`Hdr::new`], or OpenSearch's message for digits outside 0..=5.
    pub fn try_new(significant_digits: i64) -> Result<Hdr, String> {
        if !(0..=5).contains(&significant_digits) {
            return Err("[numberOfSignificantValueDigits] must be between 0 and 5".to_string());
        }
        Ok(Hdr::new(significant_digits as u8))
    }

    /// `new DoubleHistogram(source)`: an empty histogram of the same shape and range, which
    /// OpenSearch's reduce starts from (then merges every shard's histogram into it).
    pub fn empty_copy(&self) -> Hdr {
        let mut ints = IntHistogram::new(self.ints.highest_trackable, self.ints.digits);
        ints.set_i2d(self.ints.i2d);
        let mut h =
            Hdr { configured_ratio: self.configured_ratio, current_lowest: 0.0, current_highest_limit: 0.0, ints };
        h.set_range(self.current_lowest, self.current_highest_limit);
        h
    }

    /// OpenSearch's reduce of shard histograms: an empty copy of the first, every one merged in.
    /// None when there are none.
    pub fn reduce<'a>(parts: impl IntoIterator<Item = &'a Hdr>) -> Result<Option<Hdr>, String> {
        let mut merged: Option<Hdr> = None;
        for p in parts {
            let m = merged.get_or_insert_with(|| p.empty_copy());
            m.merge(p)?;
        }
        Ok(merged)
    }

    pub fn significant_digits(&self) -> u8 {
        self.ints.digits
    }

    fn set_range(&mut self, lowest: f64, highest_limit: f64) {
        self.current_lowest = lowest;
        self.current_highest_limit = highest_limit;
        let r = lowest / self.ints.sub_bucket_half_count as f64;
        self.ints.set_i2d(r);
    }

    /// `recordValue(x)`. NaN records as 0 (Java's `(long) NaN`); negative values, infinities and
    /// values beyond the histogram's reach are an error (OpenSearch fails the shard with it).
    pub fn record(&mut self, x: f64) -> Result<(), String> {
        self.record_count(x, 1)
    }

    fn record_count(&mut self, x: f64, count: u64) -> Result<(), String> {
        if x < self.current_lowest || x >= self.current_highest_limit {
            self.auto_adjust_range(x)?;
        }
        let v = (x * self.ints.d2i) as i64;
        self.ints
            .record(v, count)
            .map_err(|e| format!("BUG: Unexpected non-transient AIOOB Exception caused by:\n{AIOOBE}{e}"))
    }

    /// `DoubleHistogram.add(other)`: every recorded value of `other` recorded here.
    pub fn merge(&mut self, other: &Hdr) -> Result<(), String> {
        for (i, &c) in other.ints.counts.iter().enumerate() {
            if c > 0 {
                self.record_count(other.ints.value_from_index(i) as f64 * other.ints.i2d, c)?;
            }
        }
        Ok(())
    }

    pub fn count(&self) -> u64 {
        self.ints.total_count
    }

    /// `getValueAtPercentile(p)`, p in [0, 100] (clamped as Java does); NaN when empty (where
    /// OpenSearch prints null).
    pub fn value_at_percentile(&self, p: f64) -> f64 {
        if self.count() == 0 {
            return f64::NAN;
        }
        let h = &self.ints;
        let requested = java_min(java_max(next_down(p), 0.0), 100.0);
        let fp_count = (requested * h.total_count as f64) / 100.0;
        let at = (fp_count.ceil() as i64).max(1);
        let mut total: u64 = 0;
        for (i, &c) in h.counts.iter().enumerate() {
            total += c;
            if total as i64 >= at {
                let v = h.value_from_index(i);
                let v = if p == 0.0 { h.lowest_equivalent(v) } else { h.highest_equivalent(v) };
                return v as f64 * h.i2d;
            }
        }
        0.0
    }

    /// `getPercentileAtOrBelowValue(x)` clamped to [0, 100] as OpenSearch's percentile ranks
    /// clamp it; NaN when empty, 0 where Java refuses a negative value (see
    /// [`Hdr::try_percentile_at_or_below`]).
    pub fn percentile_at_or_below(&self, x: f64) -> f64 {
        if self.count() == 0 {
            return f64::NAN;
        }
        self.try_percentile_at_or_below(x).unwrap_or(0.0).clamp(0.0, 100.0)
    }

    /// `getPercentileAtOrBelowValue(x)`: 100 when empty; Err for values that convert to a
    /// negative integer (Java's `Histogram recorded value cannot be negative.`).
    pub fn try_percentile_at_or_below(&self, x: f64) -> Result<f64, String> {
        let h = &self.ints;
        if h.total_count == 0 {
            return Ok(100.0);
        }
        let v = (x * h.d2i) as i64;
        let target = h.index_of(v)?.min(h.counts.len() - 1);
        let below: u64 = h.counts[..=target].iter().sum();
        Ok((100.0 * below as f64) / h.total_count as f64)
    }

    /// `getEstimatedFootprintInBytes()`.
    pub fn mem_bytes(&self) -> usize {
        512 + 8 * self.ints.counts.len()
    }

    fn auto_adjust_range(&mut self, x: f64) -> Result<(), String> {
        if x == 0.0 {
            return Ok(());
        }
        self.adjust_range_slow(x).map_err(|e| {
            format!(
                "The value {} is out of bounds for histogram, current covered range [{}, {}) cannot be extended any further.\nCaused by: {AIOOBE}{e}",
                java_double(x),
                java_double(self.current_lowest),
                java_double(self.current_highest_limit)
            )
        })
    }

    fn adjust_range_slow(&mut self, x: f64) -> Result<(), String> {
        if x < self.current_lowest {
            if x < 0.0 {
                return Err("Negative values cannot be recorded".to_string());
            }
            for _ in 0..MAX_RANGE_STEPS {
                let n = self.capped_containing_order((self.current_lowest / x).ceil() - 1.0);
                self.shift_covered_range_right(n)?;
                if x >= self.current_lowest {
                    return Ok(());
                }
            }
            return Err(format!("Value {} could not be brought into range", java_double(x)));
        } else if x >= self.current_highest_limit {
            let highest_allowed = highest_allowed_value_ever();
            if x > highest_allowed {
                return Err(format!("Values above {} cannot be recorded", java_double(highest_allowed)));
            }
            for _ in 0..MAX_RANGE_STEPS {
                let n = self.capped_containing_order(((x + ulp(x)) / self.current_highest_limit).ceil() - 1.0);
                self.shift_covered_range_left(n)?;
                if x < self.current_highest_limit {
                    return Ok(());
                }
            }
            return Err(format!("Value {} could not be brought into range", java_double(x)));
        }
        Ok(())
    }

    /// `findCappedContainingBinaryOrderOfMagnitude`.
    fn capped_containing_order(&self, d: f64) -> i32 {
        let n = if d > self.configured_ratio as f64 {
            ((self.configured_ratio as f64).ln() / 2f64.ln()) as i32
        } else if d > 2f64.powi(50) {
            50
        } else {
            containing_order(d.ceil() as i64)
        };
        n.clamp(0, 62)
    }

    /// Covers smaller values: the recorded integers shift left by `n` binary orders.
    fn shift_covered_range_right(&mut self, n: i32) -> Result<(), String> {
        let mut new_lowest = self.current_lowest;
        let mut new_highest = self.current_highest_limit;
        let multiplier = 1.0 / (1i64 << n) as f64;
        let result = (|| -> Result<(), String> {
            if self.ints.total_count > self.ints.counts[0] {
                if let Err(e) = self.ints.shift_values_left(n) {
                    self.handle_shift_failure(n, &e)?;
                    new_highest /= multiplier;
                    self.ints.shift_values_left(n)?;
                }
            }
            new_lowest *= multiplier;
            new_highest *= multiplier;
            Ok(())
        })();
        self.set_range(new_lowest, new_highest);
        result
    }

    /// Covers larger values: the recorded integers shift right by `n` binary orders, or the
    /// integer histogram grows when they cannot.
    fn shift_covered_range_left(&mut self, n: i32) -> Result<(), String> {
        let mut new_lowest = self.current_lowest;
        let mut new_highest = self.current_highest_limit;
        let multiplier = (1i64 << n) as f64;
        let result = (|| -> Result<(), String> {
            if self.ints.total_count > self.ints.counts[0] {
                match self.ints.shift_values_right(n) {
                    // HdrHistogram 2.2.2 scales the range twice after a successful shift.
                    Ok(()) => {
                        new_lowest *= multiplier;
                        new_highest *= multiplier;
                    }
                    Err(e) => {
                        self.handle_shift_failure(n, &e)?;
                        new_lowest /= multiplier;
                    }
                }
            }
            new_lowest *= multiplier;
            new_highest *= multiplier;
            Ok(())
        })();
        self.set_range(new_lowest, new_highest);
        result
    }

    /// `handleShiftValuesException`: grows the integer histogram by `n` binary orders.
    fn handle_shift_failure(&mut self, n: i32, cause: &str) -> Result<(), String> {
        let current = containing_order(self.ints.highest_trackable);
        let new_order = n + current;
        if new_order > 63 {
            return Err(format!(
                "Cannot resize histogram covered range beyond (1L << 63) / (1L << {}) - 1.\nCaused by: {AIOOBE}{cause}",
                self.ints.sub_bucket_half_count_magnitude
            ));
        }
        let new_highest = (1i64 << new_order).wrapping_sub(1);
        self.ints.establish_size(new_highest);
        self.configured_ratio <<= n;
        Ok(())
    }
}

/// `deriveInternalHighestToLowestValueRatio`.
fn internal_ratio(configured: i64) -> i64 {
    1i64 << (containing_order(configured) + 1)
}

fn java_double(d: f64) -> String {
    crate::engine::schema::geo::java_double_of(d)
}

#[cfg(test)]
#[path = "hdr_tests.rs"]
mod tests;
