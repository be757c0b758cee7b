//! shard/: one shard copy: the engine (index writer) + translog + sequence numbers and versions +
//! recovery state. Synchronous, like the engine below it.

pub(crate) mod checkpoint;
pub mod engine;
pub(crate) mod failure;
pub(crate) mod merge_scheduler;
pub(crate) mod recovery;
pub mod replica;
mod replication_sim;
pub mod stats;
pub mod versioning;

pub use engine::{IndexOp, ShardConfig, ShardEngine, WriteResult};
