//! action/search/aggs_sketch/: the estimation sketches behind OpenSearch's approximate metric
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

// Used by the aggregation framework, which lands separately.
#![allow(dead_code)]

mod avl;
pub mod hdr;
pub mod hll;
mod hll_tables;
mod java;
mod murmur;
pub mod tdigest;
mod tdigest_query;
