//! Fathom: a search and analytics server that speaks the OpenSearch REST API.
//!
//! Layers depend downward only (see `DESIGN.md` §2 and the README):
//!
//! ```text
//! shard/   one shard copy: engine + translog + seq_no tracking + recovery state
//! engine/  the storage engine library: no HTTP, no cluster, no async runtime
//! ```
//!
//! The engine and the shard build without default features (no tokio, no hyper).

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_debug_implementations)]

pub mod engine;
pub mod shard;
pub mod inspect;
pub mod script;
