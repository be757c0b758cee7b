//! A translog generation file (`translog-{gen}.tlog`): a header, then operation frames, and no
//! footer: it is append-only and trusted only up to the offset its checkpoint records.
//! Layout: `format/translog.md`.

use super::operation::Operation;
use crate::engine::codec::{check_header, write_header, ByteReader};
use crate::engine::{Error, Result};

/// Codec name in the `.tlog` header.
pub const CODEC: &str = "FathomTranslog";
/// Current `.tlog` format version.
pub const VERSION: u32 = 1;
/// Bytes of the common header (magic 4, name length 1, name, version 4, uuid 16), then the
/// primary term u64 and the header CRC32 u32: 51 bytes.
pub const HEADER_LEN: u64 = (4 + 1 + CODEC.len() + 4 + 16 + 8 + 4) as u64;
/// Bytes a frame adds around its payload: `len u32` before, `crc32 u32` after.
pub const FRAME_OVERHEAD: u64 = 8;

/// What a generation file's header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenerationHeader {
    /// The translog uuid (the header id).
    pub uuid: [u8; 16],
    /// The primary term of the shard copy that created the file.
    pub primary_term: u64,
}

/// The header bytes of a new generation file.
pub fn header_bytes(uuid: &[u8; 16], primary_term: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_LEN as usize);
    write_header(&mut h, CODEC, VERSION, uuid);
    h.extend_from_slice(&primary_term.to_le_bytes());
    let crc = crc32fast::hash(&h);
    h.extend_from_slice(&crc.to_le_bytes());
    debug_assert_eq!(h.len() as u64, HEADER_LEN);
    h
}

/// A translog error at `offset` of `file`.
pub fn corrupted(file: &str, offset: u64, reason: impl Into<String>) -> Error {
    Error::TranslogCorrupted { file: file.to_string(), offset, reason: reason.into() }
}

/// Reads and verifies a generation file's header. The CRC is checked before the uuid is compared
/// (as OpenSearch does), so a damaged header is reported as damage, not as a foreign file.
pub fn read_header(bytes: &[u8], file: &str, expected_uuid: Option<&[u8; 16]>) -> Result<GenerationHeader> {
    let len = HEADER_LEN as usize;
    let Some(head) = bytes.get(..len) else {
        return Err(corrupted(
            file,
            bytes.len() as u64,
            format!("translog header truncated: {} bytes, need {len}", bytes.len()),
        ));
    };
    let stored = u32::from_le_bytes(head[len - 4..].try_into().expect("a 4-byte slice of a HEADER_LEN slice"));
    let actual = crc32fast::hash(&head[..len - 4]);
    if stored != actual {
        return Err(corrupted(
            file,
            (len - 4) as u64,
            format!("translog header corrupted: header crc32 expected={stored:#010x} actual={actual:#010x}"),
        ));
    }
    let h = check_header(head, file, CODEC, VERSION, VERSION, None).map_err(|e| relabel(e, file))?;
    if let Some(want) = expected_uuid {
        if &h.id != want {
            return Err(corrupted(
                file,
                9 + CODEC.len() as u64,
                format!(
                    "this translog file belongs to a different translog: translog uuid {} but expected {}",
                    crate::engine::codec::header::hex(&h.id),
                    crate::engine::codec::header::hex(want)
                ),
            ));
        }
    }
    let mut r = ByteReader::at(&head[h.len..], h.len as u64);
    let primary_term = r.u64().map_err(|e| relabel(e, file))?;
    Ok(GenerationHeader { uuid: h.id, primary_term })
}

/// Turns any byte-level error into a `TranslogCorrupted` for `file`, keeping its offset.
pub fn relabel(e: Error, file: &str) -> Error {
    match e {
        Error::Corrupt { offset, reason, .. } => corrupted(file, offset, reason),
        Error::FormatTooOld { version, min, .. } => {
            corrupted(file, 0, format!("format version {version} is too old (min {min})"))
        }
        Error::FormatTooNew { version, max, .. } => {
            corrupted(file, 0, format!("format version {version} is too new (max {max})"))
        }
        Error::ChecksumMismatch { expected, actual, .. } => {
            corrupted(file, 0, format!("checksum failed: expected={expected:#010x} actual={actual:#010x}"))
        }
        other => other,
    }
}

/// Appends one frame: `len u32 | payload | crc32(len ‖ payload) u32`. Returns the frame size,
/// or an error (with `out` unchanged) for a payload of 4 GiB or more.
pub fn encode_frame(op: &Operation, out: &mut Vec<u8>) -> Result<u64> {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    op.encode(out);
    let Ok(len) = u32::try_from(out.len() - start - 4) else {
        let n = out.len() - start - 4;
        out.truncate(start);
        return Err(Error::InvalidArgument(format!("operation of {n} bytes is too large for the translog")));
    };
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok((out.len() - start) as u64)
}

/// Decodes the frame starting at `pos`, which must end at or before `end` (the checkpointed
/// offset). Returns the operation and the offset after the frame.
pub fn decode_frame(bytes: &[u8], pos: u64, end: u64, file: &str) -> Result<(Operation, u64)> {
    let end = end.min(bytes.len() as u64);
    if pos + 4 > end {
        return Err(corrupted(
            file,
            pos,
            format!("operation frame length truncated: {} bytes left, need 4", end.saturating_sub(pos)),
        ));
    }
    let window = &bytes[pos as usize..end as usize];
    let len = u32::from_le_bytes(window[..4].try_into().expect("window holds at least 4 bytes")) as u64;
    let frame = len + FRAME_OVERHEAD;
    if frame > window.len() as u64 {
        return Err(corrupted(
            file,
            pos,
            format!(
                "operation size {len} runs past the checkpointed end {end} (frame needs {frame} bytes, {} left)",
                window.len()
            ),
        ));
    }
    let body_end = 4 + len as usize;
    let stored = u32::from_le_bytes(window[body_end..body_end + 4].try_into().expect("frame length checked above"));
    let actual = crc32fast::hash(&window[..body_end]);
    if stored != actual {
        return Err(corrupted(
            file,
            pos,
            format!("operation checksum mismatch: expected={stored:#010x} actual={actual:#010x}"),
        ));
    }
    let op = Operation::decode_at(&window[4..body_end], pos + 4).map_err(|e| relabel(e, file))?;
    Ok((op, pos + frame))
}

/// Walks every frame from the end of the header to exactly `end`, verifying each; `f` gets each
/// operation with its frame offset. Any damage in `[HEADER_LEN, end)` is an error.
pub fn walk_frames(bytes: &[u8], end: u64, file: &str, mut f: impl FnMut(u64, Operation) -> Result<()>) -> Result<()> {
    if (bytes.len() as u64) < end {
        return Err(corrupted(
            file,
            bytes.len() as u64,
            format!("file is shorter than its checkpoint: {} bytes, checkpoint offset {end}", bytes.len()),
        ));
    }
    let mut pos = HEADER_LEN;
    while pos < end {
        let (op, next) = decode_frame(bytes, pos, end, file)?;
        f(pos, op)?;
        pos = next;
    }
    Ok(())
}
