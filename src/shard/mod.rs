//! shard/: one shard copy: the engine (index writer) + translog + sequence numbers and versions +
//! recovery state. Synchronous, like the engine below it.

pub mod checkpoint;
pub mod engine;
pub mod failure;
pub mod merge_scheduler;
pub mod recovery;
pub mod versioning;

pub use engine::{IndexOp, ShardConfig, ShardEngine, WriteResult};
