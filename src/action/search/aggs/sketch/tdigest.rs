//! OpenSearch 3.3's `TDigestState`: t-digest 3.3's `AVLTreeDigest` with the `K_2` scale function.
//!
//! OpenSearch 3.3 still extends `AVLTreeDigest` (the switch to `MergingDigest` was reverted before
//! 3.1 and landed again in 3.4), so this is a port of that class: centroids kept sorted by mean,
//! a new sample joins the nearest centroid that has room under the scale function or becomes a
//! centroid of its own, and the first and last centroids never take a second sample (so `min`
//! and `max` stay exact). The Java tree is a sorted vector here; only its order matters.
//!
//! When several nearest centroids have room, Java picks one with `java.util.Random` seeded from
//! the clock; this port uses the same generator with a fixed seed ([`JAVA_RANDOM_SEED`]), so
//! results are reproducible and equal Java's for that seed. Without such ties (distinct values,
//! the usual case) the result does not depend on the generator at all.

use super::avl::{GroupTree, NIL};
use super::java::{java_min, JavaRandom};
use super::tdigest_query::{cdf, quantile, weighted_average};
use serde::{Deserialize, Serialize};

/// Seed of the generator that breaks ties between equally near centroids.
pub const JAVA_RANDOM_SEED: i64 = 0x5EED;

/// A t-digest as OpenSearch's `percentiles`, `percentile_ranks` and `median_absolute_deviation`
/// aggregations keep it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TDigest {
    compression: f64,
    /// The centroids.
    tree: GroupTree,
    /// Samples added.
    count: u64,
    #[serde(with = "super::java::any_f64")]
    min: f64,
    #[serde(with = "super::java::any_f64")]
    max: f64,
    rng: JavaRandom,
}

impl TDigest {
    /// An empty digest. OpenSearch's default compression is 100 (1000 for the median absolute
    /// deviation).
    pub fn new(compression: f64) -> TDigest {
        TDigest {
            compression,
            tree: GroupTree::new(),
            count: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            rng: JavaRandom::new(JAVA_RANDOM_SEED),
        }
    }

    pub fn compression(&self) -> f64 {
        self.compression
    }

    /// Adds one sample. NaN is not added (Java throws `Cannot add NaN`, see [`TDigest::try_add`]).
    pub fn add(&mut self, x: f64) {
        let _ = self.try_add_weighted(x, 1);
    }

    /// Adds one sample, or `Cannot add NaN` as t-digest's `IllegalArgumentException` says.
    pub fn try_add(&mut self, x: f64) -> Result<(), String> {
        self.try_add_weighted(x, 1)
    }

    /// Adds `w` samples at `x` (the median absolute deviation adds weighted deviations).
    pub fn add_weighted(&mut self, x: f64, w: u64) {
        let _ = self.try_add_weighted(x, w);
    }

    /// `AbstractTDigest.add(TDigest)`: every centroid of `other` added in order, as OpenSearch's
    /// reduce adds each shard's digest to a fresh one.
    pub fn merge(&mut self, other: &TDigest) {
        for (m, c) in other.centroids().collect::<Vec<_>>() {
            self.add_weighted(m, c);
        }
    }

    /// Samples added.
    pub fn size(&self) -> u64 {
        self.count
    }

    /// Smallest sample (`+inf` when empty).
    pub fn min(&self) -> f64 {
        self.min
    }

    /// Largest sample (`-inf` when empty).
    pub fn max(&self) -> f64 {
        self.max
    }

    /// Number of centroids.
    pub fn centroid_count(&self) -> usize {
        self.tree.size()
    }

    /// The centroids `(mean, weight)` in ascending order.
    pub fn centroids(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        self.tree.iter().map(|n| (self.tree.mean(n), self.tree.count(n)))
    }

    /// Approximate heap held.
    pub fn mem_bytes(&self) -> usize {
        std::mem::size_of::<TDigest>() + self.tree.capacity() * 40
    }

    fn try_add_weighted(&mut self, x: f64, w: u64) -> Result<(), String> {
        if x.is_nan() {
            return Err("Cannot add NaN".to_string());
        }
        if w == 0 {
            return Ok(());
        }
        if x < self.min {
            self.min = x;
        }
        if x > self.max {
            self.max = x;
        }
        let tree = &self.tree;
        let mut start = tree.floor(x);
        if start == NIL {
            start = tree.first();
        }
        if start == NIL {
            self.tree.add(x, w);
            self.count = w;
            return Ok(());
        }
        let mut min_distance = f64::MAX;
        let mut last_neighbor = NIL;
        let mut neighbor = start;
        while neighbor != NIL {
            let z = (tree.mean(neighbor) - x).abs();
            if z < min_distance {
                start = neighbor;
                min_distance = z;
            } else if z > min_distance {
                last_neighbor = neighbor;
                break;
            }
            neighbor = tree.next(neighbor);
        }
        let total = self.count as f64;
        let mut closest = NIL;
        let mut n = 0.0f64;
        let mut neighbor = start;
        while neighbor != last_neighbor {
            let q0 = tree.head_sum(neighbor) as f64 / total;
            let q1 = q0 + tree.count(neighbor) as f64 / total;
            let k = total * java_min(self.scale_max(q0, total), self.scale_max(q1, total));
            if ((tree.count(neighbor) + w) as f64) <= k {
                n += 1.0;
                if self.rng.next_double() < 1.0 / n {
                    closest = neighbor;
                }
            }
            neighbor = tree.next(neighbor);
        }
        if closest == NIL {
            self.tree.add(x, w);
        } else {
            let c = self.tree.count(closest);
            let mean = weighted_average(self.tree.mean(closest), c as f64, x, w as f64);
            self.tree.update(closest, mean, c + w, false);
        }
        self.count += w;
        if self.tree.size() as f64 > 20.0 * self.compression {
            self.compress();
        }
        Ok(())
    }

    /// `ScaleFunction.K_2.max(q, compression, n)`.
    fn scale_max(&self, q: f64, n: f64) -> f64 {
        let z = 4.0 * (n / self.compression).ln() + 24.0;
        z * q * (1.0 - q) / self.compression
    }

    /// `AVLTreeDigest.compress`: merges neighbours while the scale function allows.
    pub fn compress(&mut self) {
        if self.tree.size() <= 1 {
            return;
        }
        let total = self.count as f64;
        let mut n0 = 0.0f64;
        let mut k0 = total * self.scale_max(n0 / total, total);
        let mut node = self.tree.first();
        let mut w0 = self.tree.count(node);
        let mut n1 = n0 + w0 as f64;
        let mut w1 = 0u64;
        while node != NIL {
            let mut after = self.tree.next(node);
            while after != NIL {
                w1 = self.tree.count(after);
                let k1 = total * self.scale_max((n1 + w1 as f64) / total, total);
                if (w0 + w1) as f64 > java_min(k0, k1) {
                    break;
                }
                let mean = weighted_average(self.tree.mean(node), w0 as f64, self.tree.mean(after), w1 as f64);
                self.tree.update(node, mean, w0 + w1, true);
                let tmp = self.tree.next(after);
                self.tree.remove(after);
                after = tmp;
                n1 += w1 as f64;
                w0 += w1;
            }
            node = after;
            if node != NIL {
                n0 = n1;
                k0 = total * self.scale_max(n0 / total, total);
                w0 = w1;
                n1 = n0 + w0 as f64;
            }
        }
    }

    /// `AVLTreeDigest.quantile(q)`, q in [0, 1]; NaN when empty or q is outside [0, 1].
    pub fn quantile(&self, q: f64) -> f64 {
        let (means, counts) = self.arrays();
        quantile(&means, &counts, self.count as f64, self.min, self.max, q)
    }

    /// OpenSearch's t-digest percentile: `quantile(percent / 100)`.
    pub fn percentile(&self, percent: f64) -> f64 {
        self.quantile(percent / 100.0)
    }

    /// OpenSearch's t-digest percentile rank of `x` (`InternalTDigestPercentileRanks`): the
    /// cdf clamped to [0, 1], times 100; NaN when empty.
    pub fn percentile_rank(&self, x: f64) -> f64 {
        let r = self.cdf(x);
        if r < 0.0 {
            0.0
        } else if r > 1.0 {
            100.0
        } else {
            r * 100.0
        }
    }

    /// `AVLTreeDigest.cdf(x)`: the fraction of samples <= x (half of those equal to x); NaN
    /// when empty.
    pub fn cdf(&self, x: f64) -> f64 {
        let (means, counts) = self.arrays();
        cdf(&means, &counts, self.count as f64, self.min, self.max, x)
    }

    fn arrays(&self) -> (Vec<f64>, Vec<f64>) {
        self.centroids().map(|(m, c)| (m, c as f64)).unzip()
    }

    /// OpenSearch's median absolute deviation of the samples (`InternalMedianAbsoluteDeviation`):
    /// the median of a fresh digest of each centroid's distance to this digest's median, added
    /// with the centroid's weight. NaN when empty.
    pub fn median_absolute_deviation(&self) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        let median = self.quantile(0.5);
        let mut deviations = TDigest::new(self.compression);
        for (m, c) in self.centroids() {
            deviations.add_weighted((median - m).abs(), c);
        }
        deviations.quantile(0.5)
    }
}

#[cfg(test)]
#[path = "tdigest_tests.rs"]
mod tests;
