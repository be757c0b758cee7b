//! The storage engine: files, codecs, segments, the index writer, the translog, analysis and
//! query execution. Synchronous; driven from named thread pools by the layers above.
//!
//! | module | answers |
//! |---|---|
//! | [`store`] | "give me the bytes of file X; make these bytes durable" (fs + mmap, RAM, fault injection) |
//! | [`codec`] | "how is a number, a block of numbers, a header or a footer written" |
//! | [`segment`] | "here is a segment: its terms, postings, norms, doc values, stored source, points, live docs" |
//! | [`index`] | "buffer these documents, make them searchable, make them durable, merge, delete unused files" |
//! | [`translog`] | "remember this operation durably before it is acknowledged; replay it after a crash" |
//! | [`analysis`] | "turn this text into tokens" |
//! | [`schema`] | "which fields does this JSON document have, and of which types" |
//! | [`query`] | "which documents match, and how well (BM25)" |

pub mod analysis;
pub mod cancel;
pub mod codec;
pub mod error;
pub mod index;
pub mod query;
pub mod schema;
pub mod segment;
pub mod store;
pub mod sync;
pub mod translog;

pub use error::{Error, Result};

#[cfg(all(test, not(loom)))]
mod golden_tests;
