//! The [`Wire`] of a running node: Raft and coordination requests over the transport.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::network::{Wire, WireError, WireFuture};
use super::types::ClusterNode;
use crate::transport::{Transport, TransportError};

/// Coordination requests over the node's transport.
#[derive(Debug, Clone)]
pub struct TransportWire {
    pub transport: Arc<Transport>,
}

impl Wire for TransportWire {
    fn call(&self, to: &ClusterNode, action: &'static str, payload: Vec<u8>, timeout: Duration) -> WireFuture {
        let t = self.transport.clone();
        let to_addr = to.transport_address.clone();
        Box::pin(async move {
            let addr: SocketAddr =
                to_addr.parse().map_err(|_| WireError::Unreachable(format!("bad transport address [{to_addr}]")))?;
            match t.request(addr, action, bytes::Bytes::from(payload), timeout).await {
                Ok(b) => Ok(b.to_vec()),
                Err(e @ TransportError::Timeout { .. }) => Err(WireError::Timeout(e.to_string())),
                Err(e @ (TransportError::Remote(_) | TransportError::NoHandler { .. })) => {
                    Err(WireError::Remote(e.to_string()))
                }
                Err(e) => Err(WireError::Unreachable(e.to_string())),
            }
        })
    }
}
