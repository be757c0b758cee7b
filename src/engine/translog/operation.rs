//! One translog operation and its payload encoding (the bytes inside a frame; grammar in
//! `format/translog.md`, "Operation payload"). Pure functions on bytes.

use crate::engine::codec::{put_bytes, put_vu64, zigzag, ByteReader};
use crate::engine::{Error, Result};

const TYPE_INDEX: u8 = 1;
const TYPE_DELETE: u8 = 2;
const TYPE_NO_OP: u8 = 3;

/// A write as the translog remembers it: enough to replay it after a crash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Index (create or overwrite) a document.
    Index { id: String, routing: Option<String>, source: Vec<u8>, seq_no: i64, primary_term: u64, version: i64 },
    /// Delete a document.
    Delete { id: String, seq_no: i64, primary_term: u64, version: i64 },
    /// A sequence number consumed without a document change (failed op, primary promotion gap).
    NoOp { seq_no: i64, primary_term: u64, reason: String },
}

impl Operation {
    /// The operation's sequence number (always `>= 0`).
    pub fn seq_no(&self) -> i64 {
        match self {
            Operation::Index { seq_no, .. } | Operation::Delete { seq_no, .. } | Operation::NoOp { seq_no, .. } => {
                *seq_no
            }
        }
    }

    /// The primary term of the primary that assigned the sequence number.
    pub fn primary_term(&self) -> u64 {
        match self {
            Operation::Index { primary_term, .. }
            | Operation::Delete { primary_term, .. }
            | Operation::NoOp { primary_term, .. } => *primary_term,
        }
    }

    /// Appends the payload (no framing).
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Operation::Index { id, routing, source, seq_no, primary_term, version } => {
                out.push(TYPE_INDEX);
                put_vu64(out, zigzag(*seq_no));
                put_vu64(out, *primary_term);
                put_vu64(out, zigzag(*version));
                put_bytes(out, id.as_bytes());
                match routing {
                    None => out.push(0),
                    Some(r) => {
                        out.push(1);
                        put_bytes(out, r.as_bytes());
                    }
                }
                put_bytes(out, source);
            }
            Operation::Delete { id, seq_no, primary_term, version } => {
                out.push(TYPE_DELETE);
                put_vu64(out, zigzag(*seq_no));
                put_vu64(out, *primary_term);
                put_vu64(out, zigzag(*version));
                put_bytes(out, id.as_bytes());
            }
            Operation::NoOp { seq_no, primary_term, reason } => {
                out.push(TYPE_NO_OP);
                put_vu64(out, zigzag(*seq_no));
                put_vu64(out, *primary_term);
                put_bytes(out, reason.as_bytes());
            }
        }
    }

    /// Decodes a whole payload; every byte must be used.
    pub fn decode(payload: &[u8]) -> Result<Operation> {
        Operation::decode_at(payload, 0)
    }

    /// Decodes a payload that starts at `base` in its file (so errors carry file offsets).
    pub fn decode_at(payload: &[u8], base: u64) -> Result<Operation> {
        let mut r = ByteReader::at(payload, base);
        let kind = r.u8()?;
        let seq_at = r.offset();
        let seq_no = r.vi64()?;
        if seq_no < 0 {
            return Err(Error::corrupt("", seq_at, format!("operation seq_no must be >= 0, got {seq_no}")));
        }
        let primary_term = r.vu64()?;
        let op = match kind {
            TYPE_INDEX => {
                let version = r.vi64()?;
                let id = r.string()?.to_string();
                let routing = match r.u8()? {
                    0 => None,
                    1 => Some(r.string()?.to_string()),
                    v => return Err(r.error(format!("routing flag must be 0 or 1, got {v}"))),
                };
                let source = r.bytes()?.to_vec();
                Operation::Index { id, routing, source, seq_no, primary_term, version }
            }
            TYPE_DELETE => {
                let version = r.vi64()?;
                let id = r.string()?.to_string();
                Operation::Delete { id, seq_no, primary_term, version }
            }
            TYPE_NO_OP => {
                let reason = r.string()?.to_string();
                Operation::NoOp { seq_no, primary_term, reason }
            }
            other => {
                return Err(Error::corrupt("", base, format!("unknown operation type {other} (expected 1, 2 or 3)")))
            }
        };
        if !r.is_empty() {
            return Err(r.error(format!("{} trailing bytes after operation", r.remaining())));
        }
        Ok(op)
    }
}
