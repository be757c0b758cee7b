//! The handshake that opens every connection: each side sends its identity (a JSON object in a
//! handshake frame) and checks the other's cluster name and protocol range.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::frame::{MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};

/// The OpenSearch version a Fathom node reports.
pub const NODE_VERSION: &str = "3.3.0";

/// A node as its handshake describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteNode {
    pub node_id: String,
    pub node_name: String,
    pub cluster_name: String,
    /// The node's OpenSearch version (`3.3.0`).
    pub version: String,
    /// The node's transport (publish) address: where it accepts connections.
    pub address: SocketAddr,
}

/// The handshake payload: the sender's identity and the protocol versions it reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandshakeInfo {
    pub node: RemoteNode,
    /// The protocol version the sender writes.
    pub protocol: u8,
    /// The oldest protocol version the sender reads.
    pub min_protocol: u8,
}

impl HandshakeInfo {
    /// This node's handshake.
    pub fn local(node: &RemoteNode) -> HandshakeInfo {
        HandshakeInfo { node: node.clone(), protocol: PROTOCOL_VERSION, min_protocol: MIN_PROTOCOL_VERSION }
    }

    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Result<HandshakeInfo, String> {
        serde_json::from_slice(bytes).map_err(|e| format!("invalid handshake payload: {e}"))
    }

    /// Whether the peer `remote` may talk to a node of `local_cluster`: the reason it may not
    /// (OpenSearch's message for a cluster name mismatch).
    pub fn check(&self, local_cluster: &str) -> Result<(), String> {
        if self.node.cluster_name != local_cluster {
            return Err(format!(
                "remote cluster name [{}] does not match local cluster name [{local_cluster}]",
                self.node.cluster_name
            ));
        }
        // Both sides write their own version; each must read the other's.
        let reads = |min: u8, max: u8, v: u8| (min..=max).contains(&v);
        if !reads(MIN_PROTOCOL_VERSION, PROTOCOL_VERSION, self.protocol)
            || !reads(self.min_protocol, self.protocol, PROTOCOL_VERSION)
        {
            return Err(format!(
                "remote node speaks transport protocol [{}] (reads [{}..={}]), this node speaks [{PROTOCOL_VERSION}] \
                 (reads [{MIN_PROTOCOL_VERSION}..={PROTOCOL_VERSION}])",
                self.protocol, self.min_protocol, self.protocol
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(cluster: &str) -> RemoteNode {
        RemoteNode {
            node_id: "id1".into(),
            node_name: "n1".into(),
            cluster_name: cluster.into(),
            version: NODE_VERSION.into(),
            address: "127.0.0.1:9300".parse().unwrap(),
        }
    }

    #[test]
    fn round_trip_and_checks() {
        let h = HandshakeInfo::local(&node("a"));
        assert_eq!(HandshakeInfo::decode(&h.encode()).unwrap(), h);
        assert!(h.check("a").is_ok());
        assert_eq!(h.check("b").unwrap_err(), "remote cluster name [a] does not match local cluster name [b]");
        let newer = HandshakeInfo { protocol: PROTOCOL_VERSION + 1, min_protocol: PROTOCOL_VERSION + 1, ..h.clone() };
        assert!(newer.check("a").unwrap_err().contains("protocol"));
        // A newer peer that still reads our version and writes one we read would be accepted.
        let compatible = HandshakeInfo { protocol: PROTOCOL_VERSION, min_protocol: 0, ..h.clone() };
        assert!(compatible.check("a").is_ok());
        assert!(HandshakeInfo::decode(b"{}").is_err());
    }
}
