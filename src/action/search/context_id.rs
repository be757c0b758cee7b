//! PIT and scroll ids: opaque to clients, decodable here. URL-safe base64 (with padding, as
//! OpenSearch's `SearchContextId`) of
//!
//! ```text
//! ContextId --> Version(u8 = 2), Kind(u8: 0 pit, 1 scroll), NodeCount(vint), <Node>^NodeCount,
//!               Count(vint), <Shard>^Count
//! Node      --> NodeId, Session
//! Shard     --> Index, IndexUuid, ShardNumber(vint), NodeOrdinal(vint), ContextNumber(vint)
//! NodeId, Session, Index, IndexUuid --> Len(vint), UTF-8 bytes
//! ```
//!
//! Each shard names the node holding its reader context (as OpenSearch's
//! `SearchContextIdForNode`) and that node's context number; `Session` is the node's registry's
//! random id: an id from an earlier process of the node names no live context. Decoding is a
//! pure function on bytes that rejects anything else (never panics).

use base64::Engine as _;

use crate::error::{OsError, OsResult};

/// Most shard entries a decoded id may hold.
const MAX_ID_SHARDS: usize = 100_000;

/// What a reader context serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextKind {
    Pit,
    Scroll,
}

/// One shard of a decoded PIT or scroll id: the node holding its reader context, that node's
/// registry session and the context's number there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShardRef {
    pub index: String,
    pub index_uuid: String,
    pub shard: u32,
    pub node: String,
    pub session: String,
    pub context: u64,
}

/// A decoded PIT or scroll id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextId {
    pub kind: ContextKind,
    pub shards: Vec<ShardRef>,
}

fn put_vint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_vint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn get_vint(b: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..10 {
        let (&x, rest) = b.split_first()?;
        *b = rest;
        v |= u64::from(x & 0x7f) << (7 * i);
        if x & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn get_str(b: &mut &[u8]) -> Option<String> {
    let n = usize::try_from(get_vint(b)?).ok()?;
    if n > b.len() {
        return None;
    }
    let (s, rest) = b.split_at(n);
    *b = rest;
    String::from_utf8(s.to_vec()).ok()
}

impl ContextId {
    /// The id's bytes (see the module doc).
    pub fn encode_bytes(&self) -> Vec<u8> {
        let mut out = vec![2u8, if self.kind == ContextKind::Pit { 0 } else { 1 }];
        let mut nodes: Vec<(&str, &str)> = Vec::new();
        for s in &self.shards {
            if !nodes.contains(&(s.node.as_str(), s.session.as_str())) {
                nodes.push((&s.node, &s.session));
            }
        }
        put_vint(&mut out, nodes.len() as u64);
        for (node, session) in &nodes {
            put_str(&mut out, node);
            put_str(&mut out, session);
        }
        put_vint(&mut out, self.shards.len() as u64);
        for s in &self.shards {
            put_str(&mut out, &s.index);
            put_str(&mut out, &s.index_uuid);
            put_vint(&mut out, u64::from(s.shard));
            let ord = nodes.iter().position(|n| *n == (s.node.as_str(), s.session.as_str())).unwrap_or(0);
            put_vint(&mut out, ord as u64);
            put_vint(&mut out, s.context);
        }
        out
    }

    /// Decodes [`ContextId::encode_bytes`]; `None` for anything else.
    pub fn decode_bytes(mut b: &[u8]) -> Option<ContextId> {
        let b = &mut b;
        let (&version, rest) = b.split_first()?;
        let (&kind, rest) = rest.split_first()?;
        *b = rest;
        if version != 2 {
            return None;
        }
        let kind = match kind {
            0 => ContextKind::Pit,
            1 => ContextKind::Scroll,
            _ => return None,
        };
        let n = usize::try_from(get_vint(b)?).ok()?;
        if n > MAX_ID_SHARDS || n > b.len() {
            return None;
        }
        let mut nodes = Vec::with_capacity(n);
        for _ in 0..n {
            nodes.push((get_str(b)?, get_str(b)?));
        }
        let n = usize::try_from(get_vint(b)?).ok()?;
        if n > MAX_ID_SHARDS || n > b.len() {
            return None;
        }
        let mut shards = Vec::with_capacity(n);
        for _ in 0..n {
            let index = get_str(b)?;
            let index_uuid = get_str(b)?;
            let shard = u32::try_from(get_vint(b)?).ok()?;
            let (node, session) = nodes.get(usize::try_from(get_vint(b)?).ok()?)?.clone();
            let context = get_vint(b)?;
            shards.push(ShardRef { index, index_uuid, shard, node, session, context });
        }
        if !b.is_empty() {
            return None;
        }
        Some(ContextId { kind, shards })
    }

    /// URL-safe base64 of the bytes.
    pub fn encode(&self) -> String {
        base64::engine::general_purpose::URL_SAFE.encode(self.encode_bytes())
    }

    /// Decodes an id string of the given kind; `None` when malformed.
    pub fn decode(s: &str, kind: ContextKind) -> Option<ContextId> {
        let bytes = base64::engine::general_purpose::URL_SAFE.decode(s.trim().as_bytes()).ok()?;
        ContextId::decode_bytes(&bytes).filter(|c| c.kind == kind)
    }

    /// The shards grouped by the node holding their contexts, in first-seen order.
    pub fn by_node(&self) -> Vec<(String, ContextId)> {
        let mut out: Vec<(String, ContextId)> = Vec::new();
        for s in &self.shards {
            match out.iter_mut().find(|g| g.0 == s.node) {
                Some(g) => g.1.shards.push(s.clone()),
                None => out.push((s.node.clone(), ContextId { kind: self.kind, shards: vec![s.clone()] })),
            }
        }
        out
    }

    /// The resolved indices, in first-seen order.
    pub fn indices(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in &self.shards {
            if !out.contains(&s.index) {
                out.push(s.index.clone());
            }
        }
        out
    }
}

/// Decodes a PIT id: a malformed one is OpenSearch's `invalid id` error.
pub fn decode_pit_id(id: &str) -> OsResult<ContextId> {
    ContextId::decode(id, ContextKind::Pit).ok_or_else(|| OsError::illegal(format!("invalid id: [{id}]")))
}
