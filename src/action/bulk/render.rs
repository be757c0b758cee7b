//! The bulk response written straight to compact JSON bytes, in OpenSearch's shape and key order
//! (`BulkResponse`/`BulkItemResponse`/`DocWriteResponse.innerToXContent`), without building a
//! `serde_json::Value` per item.

use std::io::Write;

use serde_json::Value;

use super::meta::OpType;

/// A JSON string (escaped as serde_json escapes).
pub fn string(out: &mut Vec<u8>, s: &str) {
    // Writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn int(out: &mut Vec<u8>, n: i64) {
    let _ = write!(out, "{n}");
}

/// A successful index/create/delete item.
#[derive(Debug, Clone, Copy)]
pub struct Written<'a> {
    pub op: OpType,
    pub index: &'a str,
    pub id: &'a str,
    pub version: i64,
    pub result: &'a str,
    pub forced_refresh: bool,
    pub shards_total: u32,
    pub seq_no: i64,
    pub primary_term: u64,
    pub status: u16,
}

/// `{"index":{"_index":..,"_id":..,"_version":..,"result":..,["forced_refresh":true,]"_shards":{..},"_seq_no":..,"_primary_term":..,"status":..}}`
///
/// Returns the offset of the `successful` count's digit (`1` until replication is known; see
/// [`patch_shards`]).
pub fn written(out: &mut Vec<u8>, w: &Written) -> usize {
    out.extend_from_slice(b"{\"");
    out.extend_from_slice(w.op.name().as_bytes());
    out.extend_from_slice(b"\":{\"_index\":");
    string(out, w.index);
    out.extend_from_slice(b",\"_id\":");
    string(out, w.id);
    out.extend_from_slice(b",\"_version\":");
    int(out, w.version);
    out.extend_from_slice(b",\"result\":");
    string(out, w.result);
    if w.forced_refresh {
        out.extend_from_slice(b",\"forced_refresh\":true");
    }
    out.extend_from_slice(b",\"_shards\":{\"total\":");
    int(out, i64::from(w.shards_total));
    out.extend_from_slice(b",\"successful\":");
    let at = out.len();
    out.extend_from_slice(b"1,\"failed\":0},\"_seq_no\":");
    int(out, w.seq_no);
    out.extend_from_slice(b",\"_primary_term\":");
    let _ = write!(out, "{}", w.primary_term);
    out.extend_from_slice(b",\"status\":");
    int(out, i64::from(w.status));
    out.extend_from_slice(b"}}");
    at
}

/// Writes the copies that took an item into its rendered `_shards` (at the offset
/// [`written`] returned): `successful` and `failed` when both are single digits (always, but
/// for indices with ten or more replicas, which keep the primary's count).
pub fn patch_shards(out: &mut [u8], at: usize, successful: u32, failed: u32) {
    const FAILED_DIGIT: usize = 1 + ",\"failed\":".len();
    if successful > 9 || failed > 9 || at + FAILED_DIGIT >= out.len() || out[at] != b'1' {
        return;
    }
    out[at] = b'0' + successful as u8;
    out[at + FAILED_DIGIT] = b'0' + failed as u8;
}

/// A failed item: `{"op":{"_index":..,"_id":..|null,"status":..,"error":{..}}}`.
pub fn failed(out: &mut Vec<u8>, op: OpType, index: &str, id: Option<&str>, status: u16, error: &Value) {
    out.extend_from_slice(b"{\"");
    out.extend_from_slice(op.name().as_bytes());
    out.extend_from_slice(b"\":{\"_index\":");
    string(out, index);
    out.extend_from_slice(b",\"_id\":");
    match id {
        Some(id) => string(out, id),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"status\":");
    int(out, i64::from(status));
    out.extend_from_slice(b",\"error\":");
    let _ = serde_json::to_writer(&mut *out, error);
    out.extend_from_slice(b"}}");
}

/// Any other item (updates): `{"op": body}`.
pub fn other(out: &mut Vec<u8>, op: OpType, body: &Value) {
    out.extend_from_slice(b"{\"");
    out.extend_from_slice(op.name().as_bytes());
    out.extend_from_slice(b"\":");
    let _ = serde_json::to_writer(&mut *out, body);
    out.push(b'}');
}

/// The whole body around the rendered `items` (comma-separated item objects).
pub fn body(took_ms: u64, errors: bool, items: &[u8]) -> Vec<u8> {
    body_with_ingest(took_ms, None, errors, items)
}

/// The response body, with `ingest_took` when pipelines ran on its documents.
pub fn body_with_ingest(took_ms: u64, ingest_took: Option<u64>, errors: bool, items: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(items.len() + 64);
    let _ = write!(out, "{{\"took\":{took_ms},");
    if let Some(i) = ingest_took {
        let _ = write!(out, "\"ingest_took\":{i},");
    }
    let _ = write!(out, "\"errors\":{errors},\"items\":[");
    out.extend_from_slice(items);
    out.extend_from_slice(b"]}");
    out
}
