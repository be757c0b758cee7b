//! Helpers shared by the fuzz targets (`fuzz_targets/*.rs`).
//!
//! Every Fathom file ends with a CRC32 footer, so random bytes almost always fail the checksum
//! before any structural decoding happens. [`with_valid_footer`] rewrites the footer of an input
//! so that the fuzzer also reaches the parsers behind the checksum; [`fix_tlog_crcs`] does the
//! same for a translog generation (header CRC and per-frame CRCs, no footer).

use fathom::engine::codec::header::footer_bytes;
use fathom::engine::codec::FOOTER_LEN;
use fathom::engine::segment::{DocValuesKind, FieldInfos, IndexOptions, SegmentId};
use std::sync::Arc;

use fathom::engine::store::{write_file, Directory, RamDirectory};
use fathom::engine::translog::generation::{FRAME_OVERHEAD, HEADER_LEN as TLOG_HEADER_LEN};
use fathom::engine::translog::{self, Operation, RecoveryPolicy, Translog, TranslogConfig};

/// Upper bound on items (terms, docs, points) a target walks by itself, so that a file claiming
/// billions of entries cannot turn one run into a timeout of the *harness*. (The engine's own
/// whole-file checks are called without such a bound: their run time is what is being fuzzed.)
pub const WALK_LIMIT: usize = 20_000;

/// `bytes` with its last [`FOOTER_LEN`] bytes replaced by a footer whose CRC matches the body,
/// or `None` when the input is shorter than a footer or already has that exact footer.
pub fn with_valid_footer(bytes: &[u8]) -> Option<Vec<u8>> {
    let body_len = bytes.len().checked_sub(FOOTER_LEN)?;
    let body = &bytes[..body_len];
    let footer = footer_bytes(crc32fast::hash(body));
    if bytes[body_len..] == footer {
        return None;
    }
    let mut v = Vec::with_capacity(bytes.len());
    v.extend_from_slice(body);
    v.extend_from_slice(&footer);
    Some(v)
}

/// Calls `f` on `bytes`, then on `bytes` with a valid footer when that differs.
pub fn with_and_without_footer(bytes: &[u8], mut f: impl FnMut(&[u8])) {
    f(bytes);
    if let Some(fixed) = with_valid_footer(bytes) {
        f(&fixed);
    }
}

/// A copy of a translog generation image with its header CRC and every frame CRC recomputed
/// (frames are `len u32 | payload | crc32(len ‖ payload) u32`), walking frames while their
/// lengths fit. Lets the fuzzer reach operation decoding inside frames.
pub fn fix_tlog_crcs(bytes: &[u8]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    let h = TLOG_HEADER_LEN as usize;
    if v.len() < h {
        return v;
    }
    let crc = crc32fast::hash(&v[..h - 4]);
    v[h - 4..h].copy_from_slice(&crc.to_le_bytes());
    let mut pos = h;
    while let Some(len) = v.get(pos..pos + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize) {
        let end = pos + 4 + len;
        if end + 4 > v.len() || (len as u64) + FRAME_OVERHEAD > v.len() as u64 {
            break;
        }
        let crc = crc32fast::hash(&v[pos..end]);
        v[end..end + 4].copy_from_slice(&crc.to_le_bytes());
        pos = end + 4;
    }
    v
}

/// Takes a little-endian u16 from the front of `data`.
pub fn take_u16(data: &[u8]) -> Option<(u16, &[u8])> {
    let (h, rest) = data.split_first_chunk::<2>()?;
    Some((u16::from_le_bytes(*h), rest))
}

/// Splits `data` into three parts: two little-endian u16 lengths, then the first part, the
/// second, and the rest (lengths are clamped to what is there).
pub fn split3(data: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let (a, data) = take_u16(data)?;
    let (b, data) = take_u16(data)?;
    let (p1, data) = data.split_at((a as usize).min(data.len()));
    let (p2, p3) = data.split_at((b as usize).min(data.len()));
    Some((p1, p2, p3))
}

/// The 16-byte id of a file's common header (magic u32, codec length u8, codec, version u32, id),
/// or zeros when the header is too short to hold one. Used to open readers whose id check must
/// pass so that the fuzzer gets past it.
pub fn header_id(bytes: &[u8]) -> [u8; 16] {
    let mut id = [0u8; 16];
    if let Some(&n) = bytes.get(4) {
        let start = 5 + n as usize + 4;
        if let Some(src) = bytes.get(start..start + 16) {
            id.copy_from_slice(src);
        }
    }
    id
}

/// Segment `_0` with the id found in `bytes`' header.
pub fn segment_for(bytes: &[u8]) -> SegmentId {
    SegmentId { name: "_0".into(), id: header_id(bytes) }
}

/// Field infos of `n` fields `f0..`, all indexed with positions, offsets and norms (postings and
/// norms readers only check that a field is indexed / has norms).
pub fn indexed_infos(n: u32) -> FieldInfos {
    let mut f = FieldInfos::new();
    for i in 0..n {
        f.add_or_widen(&format!("f{i}"), IndexOptions::DocsFreqsPositionsOffsets, true, DocValuesKind::None, 0)
            .expect("distinct new field names are accepted");
    }
    f
}

/// Field infos whose field `i` has the doc-values kind `kinds[i]` and point width `widths[i]`.
pub fn column_infos(kinds: &[DocValuesKind], widths: &[u8]) -> FieldInfos {
    let mut f = FieldInfos::new();
    for i in 0..kinds.len().max(widths.len()) {
        let kind = kinds.get(i).copied().unwrap_or(DocValuesKind::None);
        let width = widths.get(i).copied().unwrap_or(0);
        f.add_or_widen(&format!("f{i}"), IndexOptions::None, false, kind, width)
            .expect("distinct new field names are accepted");
    }
    f
}

/// Doc-values kind from two bits.
pub fn kind_from_bits(b: u8) -> DocValuesKind {
    match b & 3 {
        0 => DocValuesKind::None,
        1 => DocValuesKind::SortedNumeric,
        2 => DocValuesKind::SortedSet,
        _ => DocValuesKind::Binary,
    }
}

/// Recovery (`Translog::open`) of a translog made of `ckp` as `translog.ckp` and `tlog` as
/// generation 1, with the uuid of the checkpoint's header and the largest primary term (so that
/// the primary-term checks never hide the rest). `None` when recovery refuses the files; when it
/// accepts them, the snapshot must read back and every operation has a valid seq_no.
pub fn recover_translog(ckp: &[u8], tlog: &[u8]) -> Option<Vec<Operation>> {
    let dir = Arc::new(RamDirectory::new());
    write_file(&*dir, translog::CHECKPOINT_FILE, ckp).expect("RAM directory accepts a new file");
    write_file(&*dir, &translog::generation_file(1), tlog).expect("RAM directory accepts a new file");
    let d: Arc<dyn Directory> = dir;
    let t = Translog::open(d, header_id(ckp), 1, u64::MAX, TranslogConfig::default(), RecoveryPolicy::Strict).ok()?;
    let ops = t.snapshot(0).expect("a translog that recovered can be read back");
    assert!(ops.iter().all(|op| op.seq_no() >= 0), "recovered operations have assigned seq_nos");
    let _ = t.stats();
    let _ = t.close();
    Some(ops)
}

/// `bytes` with the CRC of the transport frame at its start repaired (when its header declares
/// a length that fits), or `None` when there is no such frame or its CRC is already right.
pub fn fix_frame_crc(bytes: &[u8]) -> Option<Vec<u8>> {
    use fathom::transport::frame::{HEADER_LEN, TRAILER_LEN};
    if bytes.len() < HEADER_LEN {
        return None;
    }
    let action_len = u16::from_le_bytes([bytes[16], bytes[17]]) as usize;
    let body_len = u32::from_le_bytes([bytes[18], bytes[19], bytes[20], bytes[21]]) as usize;
    let total = HEADER_LEN.checked_add(action_len)?.checked_add(body_len)?.checked_add(TRAILER_LEN)?;
    if total > bytes.len() {
        return None;
    }
    let crc = crc32fast::hash(&bytes[..total - TRAILER_LEN]).to_le_bytes();
    if bytes[total - TRAILER_LEN..total] == crc {
        return None;
    }
    let mut out = bytes.to_vec();
    out[total - TRAILER_LEN..total].copy_from_slice(&crc);
    Some(out)
}
