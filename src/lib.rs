//! Fathom: a search and analytics server that speaks the OpenSearch REST API.
//!
//! Layers depend downward only (see `DESIGN.md` §2 and the README):
//!
//! ```text
//! http/    hyper server: routing, params, bodies, rendering, errors (feature `server`)
//! action/  OpenSearch semantics as typed requests and responses
//! cluster/ metadata, indices of this node, routing, health
//! shard/   one shard copy: engine + translog + seq_no tracking + recovery state
//! engine/  the storage engine library: no HTTP, no cluster, no async runtime
//! transport/ node-to-node framed protocol, beside cluster/ (uses only error and lower layers)
//! tasks/   the task manager: every request and transport action as a task (used by http, action, node)
//! ```
//!
//! The engine and the shard build without default features (no tokio, no hyper).

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_debug_implementations)]

pub(crate) mod action;
pub(crate) mod clock;
pub mod cluster;
pub mod engine;
pub mod error;
#[cfg(feature = "server")]
pub mod http;
pub mod inspect;
pub mod node;
pub(crate) mod script;
/// Security (`plugins.security.*`): settings, TLS, the demo installer; off by default.
#[cfg(feature = "server")]
pub mod security;
pub mod shard;
/// The task manager: every request and transport action as a task (`_tasks`).
pub mod tasks;
pub(crate) mod threadpool;
/// Node-to-node transport: the frame codec always, the tokio service with feature `server`.
pub mod transport;
/// Human-readable sizes and durations as OpenSearch prints them (every layer prints them).
pub(crate) mod units;

/// What the benches drive below the HTTP layer (the search path over pinned shards); not a
/// stable API. Everything else of `action` stays crate-private so the compiler finds dead code.
#[doc(hidden)]
pub mod bench_support {
    pub use crate::action::search::context::{acquire, ShardContext};
    pub use crate::action::search::execute::search_contexts;
    pub use crate::action::search::request::SearchRequest;
    pub use crate::cluster::resolve::IndicesOptions;
    pub use crate::threadpool::ThreadPool;
}
