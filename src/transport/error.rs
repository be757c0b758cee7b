//! Transport failures, their OpenSearch exceptions, and the wire form of an [`OsError`] carried
//! by error frames.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::error::{ErrorKind, OsError};

/// Why a transport call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportError {
    /// No connection could be opened (refused, unreachable, connect or handshake timed out).
    Connect { addr: SocketAddr, reason: String },
    /// The peer answered the handshake but cannot join: other cluster, incompatible protocol.
    Handshake { addr: SocketAddr, reason: String },
    /// No answer within the request's timeout. `node` is the peer's node name (empty when the
    /// handshake has not told it).
    Timeout { action: String, addr: SocketAddr, after: Duration, node: String, request_id: u64 },
    /// The connection closed while the request was pending.
    Disconnected { addr: SocketAddr },
    /// The remote handler failed with this error.
    Remote(OsError),
    /// Dropped by fault injection. Callers never see it: a dropped request surfaces as a
    /// [`TransportError::Timeout`] when its timeout lapses.
    Dropped,
    /// The remote node has no handler for this action.
    NoHandler { action: String },
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", OsError::from(self.clone()))
    }
}

impl std::error::Error for TransportError {}

/// `ActionTransportException.buildMessage`: `[name][address][action] msg`, parts omitted when
/// unknown.
fn build_message(name: &str, addr: SocketAddr, action: &str, msg: &str) -> String {
    let mut s = String::new();
    if !name.is_empty() {
        s.push_str(&format!("[{name}]"));
    }
    s.push_str(&format!("[{addr}]"));
    if !action.is_empty() {
        s.push_str(&format!("[{action}]"));
    }
    s.push(' ');
    s.push_str(msg);
    s
}

impl From<TransportError> for OsError {
    fn from(e: TransportError) -> OsError {
        match e {
            TransportError::Connect { addr, reason } => {
                OsError::new(ErrorKind::ConnectTransport, build_message("", addr, "", &reason))
            }
            TransportError::Handshake { addr, reason } => {
                OsError::new(ErrorKind::IllegalState, format!("handshake with [{addr}] failed: {reason}"))
            }
            TransportError::Timeout { action, addr, after, node, request_id } => OsError::new(
                ErrorKind::ReceiveTimeoutTransport,
                build_message(
                    &node,
                    addr,
                    &action,
                    &format!("request_id [{request_id}] timed out after [{}ms]", after.as_millis()),
                ),
            ),
            TransportError::Disconnected { addr } => {
                OsError::new(ErrorKind::NodeDisconnected, build_message("", addr, "", "disconnected"))
            }
            TransportError::Remote(e) => e,
            TransportError::Dropped => {
                OsError::new(ErrorKind::ReceiveTimeoutTransport, "message dropped by fault injection")
            }
            TransportError::NoHandler { action } => no_handler(&action),
        }
    }
}

/// `action_not_found_transport_exception`: "No handler for action [x]".
pub fn no_handler(action: &str) -> OsError {
    OsError::new(ErrorKind::ActionNotFoundTransport, format!("No handler for action [{action}]"))
}

/// Deepest `caused_by` chain an error frame may carry.
const MAX_CAUSE_DEPTH: usize = 32;

/// The error frame's payload: `{"type", "reason", "status", "meta": {...}, "caused_by": {...}}`.
pub fn encode_os_error(e: &OsError) -> Vec<u8> {
    fn to_value(e: &OsError, depth: usize) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!(e.kind.name()));
        m.insert("reason".into(), json!(e.reason));
        m.insert("status".into(), json!(e.status));
        m.insert("meta".into(), Value::Object(e.meta.clone()));
        if let (Some(c), true) = (&e.caused_by, depth < MAX_CAUSE_DEPTH) {
            m.insert("caused_by".into(), to_value(c, depth + 1));
        }
        Value::Object(m)
    }
    serde_json::to_vec(&to_value(e, 0)).unwrap_or_default()
}

/// Reads an error frame's payload back. A type this node does not know becomes `exception`
/// with the original type in the reason, so nothing is lost silently.
pub fn decode_os_error(bytes: &[u8]) -> Result<OsError, String> {
    fn from_value(v: &Value, depth: usize) -> Result<OsError, String> {
        let o = v.as_object().ok_or("an error is a JSON object")?;
        let ty = o.get("type").and_then(Value::as_str).ok_or("error without [type]")?;
        let reason = o.get("reason").and_then(Value::as_str).unwrap_or_default();
        let mut e = match ErrorKind::from_name(ty) {
            Some(kind) => OsError::new(kind, reason),
            None => OsError::internal(format!("[{ty}] {reason}")),
        };
        if let Some(s) = o.get("status").and_then(Value::as_u64) {
            e.status = u16::try_from(s).map_err(|_| format!("invalid status [{s}]"))?;
        }
        if let Some(Value::Object(meta)) = o.get("meta") {
            e.meta = meta.clone();
        }
        if let Some(c) = o.get("caused_by") {
            if depth >= MAX_CAUSE_DEPTH {
                return Err("caused_by chain too deep".into());
            }
            e.caused_by = Some(Box::new(from_value(c, depth + 1)?));
        }
        Ok(e)
    }
    let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("invalid error payload: {e}"))?;
    from_value(&v, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr() -> SocketAddr {
        "127.0.0.1:9300".parse().unwrap()
    }

    #[test]
    fn messages_follow_opensearch() {
        let t = TransportError::Timeout {
            action: "internal:ping".into(),
            addr: addr(),
            after: Duration::from_millis(1500),
            node: "n2".into(),
            request_id: 17,
        };
        let e = OsError::from(t);
        assert_eq!(e.kind, ErrorKind::ReceiveTimeoutTransport);
        assert_eq!(e.reason, "[n2][127.0.0.1:9300][internal:ping] request_id [17] timed out after [1500ms]");
        assert_eq!(OsError::from(TransportError::NoHandler { action: "x".into() }).reason, "No handler for action [x]");
        let e = OsError::from(TransportError::Disconnected { addr: addr() });
        assert_eq!((e.kind, e.reason.as_str()), (ErrorKind::NodeDisconnected, "[127.0.0.1:9300] disconnected"));
        let e = OsError::from(TransportError::Connect { addr: addr(), reason: "connect_exception".into() });
        assert_eq!(e.reason, "[127.0.0.1:9300] connect_exception");
        let e = OsError::from(TransportError::Handshake {
            addr: addr(),
            reason: "remote cluster name [b] does not match local cluster name [a]".into(),
        });
        assert_eq!(
            e.reason,
            "handshake with [127.0.0.1:9300] failed: remote cluster name [b] does not match local cluster name [a]"
        );
        let inner = OsError::index_not_found("i");
        assert_eq!(OsError::from(TransportError::Remote(inner.clone())), inner);
    }

    #[test]
    fn os_errors_round_trip() {
        let e = OsError::index_not_found("logs")
            .caused_by(OsError::illegal("inner").with("x", 1).caused_by(OsError::internal("root")))
            .status(418);
        assert_eq!(decode_os_error(&encode_os_error(&e)).unwrap(), e);
        let unknown = decode_os_error(br#"{"type":"weird_exception","reason":"r","status":503}"#).unwrap();
        assert_eq!(
            (unknown.kind, unknown.status, unknown.reason.as_str()),
            (ErrorKind::Exception, 503, "[weird_exception] r")
        );
        assert!(decode_os_error(b"[]").is_err());
        assert!(decode_os_error(b"{").is_err());
        assert!(decode_os_error(br#"{"type":"exception","status":70000}"#).is_err());
        let mut deep = String::from(r#"{"type":"exception""#);
        for _ in 0..40 {
            deep.push_str(r#","caused_by":{"type":"exception""#);
        }
        deep.push_str(&"}".repeat(41));
        assert!(decode_os_error(deep.as_bytes()).is_err());
    }
}
