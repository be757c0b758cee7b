//! Calls to other nodes, as the action layer sees them: a named transport action sent to a
//! node of the cluster state, answered with bytes. The node (server builds) provides the
//! transport behind [`NodeClient`]; a node alone has none, and every shard is local.

use std::time::Duration;

use super::coordination_view::MemberView;
use crate::error::OsResult;

/// Sends requests to other nodes (blocking: called from the pools' threads).
pub trait NodeClient: Send + Sync + std::fmt::Debug {
    fn send(&self, node: &MemberView, action: &str, payload: Vec<u8>, timeout: Duration) -> OsResult<Vec<u8>>;
}

/// A length-prefixed pair of byte strings (a request's JSON header and its raw body).
pub fn frame_pair(head: &[u8], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + head.len() + body.len());
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(head);
    out.extend_from_slice(body);
    out
}

/// Splits [`frame_pair`]'s bytes; `None` when they are not such a pair.
pub fn unframe_pair(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let head = bytes.get(4..4usize.checked_add(len)?)?;
    Some((head, &bytes[4 + len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_round_trip_and_bad_frames_are_refused() {
        let f = frame_pair(b"{\"a\":1}", b"body\n");
        assert_eq!(unframe_pair(&f), Some((&b"{\"a\":1}"[..], &b"body\n"[..])));
        assert_eq!(unframe_pair(&f[..3]), None);
        assert_eq!(unframe_pair(&[255, 255, 255, 255, 1]), None);
        assert_eq!(unframe_pair(&frame_pair(b"", b"")), Some((&b""[..], &b""[..])));
    }
}
