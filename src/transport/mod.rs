//! Node-to-node transport: a framed, versioned binary protocol over TCP (`format/transport.md`).
//!
//! A [`Transport`] listens on the transport port, keeps one multiplexed connection per remote
//! address (opened lazily with a handshake, reopened after a failure), sends requests with
//! per-request timeouts and serves registered handlers. [`Faults`] injects drops, delays and
//! partitions for tests. The frame codec ([`frame`]) is pure and builds without the `server`
//! feature (the fuzz targets use it); the rest needs tokio.
//!
//! This layer sits beside `cluster/`: it uses `crate::error` and nothing above it.

pub mod frame;

#[cfg(feature = "server")]
mod connection;
#[cfg(feature = "server")]
pub mod error;
#[cfg(feature = "server")]
pub mod faults;
#[cfg(feature = "server")]
pub mod handshake;
#[cfg(feature = "server")]
mod service;
/// Counters and their snapshot (plain data: a node without a transport reports zeros).
pub mod stats;

#[cfg(feature = "server")]
pub use error::TransportError;
#[cfg(feature = "server")]
pub use faults::{Fault, FaultTarget, Faults};
#[cfg(feature = "server")]
pub use frame::COMPRESS_THRESHOLD;
#[cfg(feature = "server")]
pub use handshake::RemoteNode;
#[cfg(feature = "server")]
pub(crate) use service::Shared;
#[cfg(feature = "server")]
pub use service::{handler, BoxFuture, Handler, Inbound, Transport, TransportConfig, TransportTls};
pub use stats::TransportStats;
