//! index/: "buffer these documents, make them searchable, make them durable, merge, delete unused
//! files". Not for: sequence numbers, versions and the translog (that is `shard/`).

pub mod commit;
pub mod deleter;
