//! action/search/aggs/sketch/: the estimation sketches behind OpenSearch's approximate metric
//! aggregations, ported so that their numbers equal OpenSearch 3.3's.
//!
//! | file | holds |
//! |---|---|
//! | [`tdigest`] | `percentiles`, `percentile_ranks`, `median_absolute_deviation` (t-digest 3.3 `AVLTreeDigest`) |
//! | [`hdr`] | HDR `percentiles` and `percentile_ranks` (HdrHistogram 2.2.2 `DoubleHistogram`) |
//! | [`hll`] | `cardinality` (HyperLogLog++ with linear counting, and the value hashes) |
//! | `avl` | t-digest's AVL tree of centroids |
//! | `tdigest_query` | quantile and cdf over centroids |
//! | `hll_tables` | HLL++ bias-correction data |
//! | `murmur` | MurmurHash3 x64 128 |
//! | `java` | Java's `Math` rounding and `java.util.Random` |

//! How OpenSearch drives them (what the aggregations must do to get OpenSearch's numbers):
//!
//! - `percentiles` / `percentile_ranks` (t-digest): per shard `TDigest::new(compression)` (default
//!   100) and `add` of every value as a double (`unsigned_long` too); the reduce is a fresh
//!   `TDigest::new(compression)` that `merge`s every shard's digest in shard order; values are
//!   `percentile(p)` and `percentile_rank(x)`, printed as null when `size() == 0`.
//! - `median_absolute_deviation`: the same with compression default 1000, value
//!   `median_absolute_deviation()`.
//! - HDR: per shard `Hdr::new(digits)` (default 3; `Hdr::try_new` has OpenSearch's range
//!   message) and `record` of every value; an `Err` is a shard failure of type
//!   [`hdr::ERROR_TYPE`] (negative values, for one). Shards without values contribute an empty
//!   `Hdr::new(digits)`. The reduce is `Hdr::reduce(shards in order)`; values are
//!   `value_at_percentile(p)` and `percentile_at_or_below(x)`, null when `count() == 0`.
//! - `cardinality`: per shard `Hll::with_precision(DEFAULT_PRECISION)` without
//!   `precision_threshold`, else `Hll::with_precision_threshold(t)`, and `add_hash` of every value:
//!   `hash_long` for integer, date and boolean fields, `hash_double` for floating-point fields and
//!   `unsigned_long`, `hash_bytes` of the indexed term bytes for keyword-like fields; the reduce
//!   `merge`s every shard's counter into a fresh one of the same precision; the value is
//!   `cardinality()`.

// Used by the aggregation framework, which lands separately.

mod avl;
pub mod hdr;
pub mod hll;
mod hll_tables;
mod java;
mod murmur;
pub mod tdigest;
mod tdigest_query;
