//! `fathom inspect PATH`: dump and check any file Fathom writes: header, footer, checksum and the
//! counts its decoder finds. Corruption is an error naming the file and offset.

use std::fmt::Write as _;
use std::path::Path;

use crate::engine::codec::{footer_checksum, header::hex, FOOTER_LEN};
use crate::engine::index::commit::{self, CommitPoint};
use crate::engine::segment::info::SegmentInfo;
use crate::engine::segment::FieldInfos;
use crate::engine::{translog, Error, Result};

/// Inspects one file and returns a human-readable report.
pub fn inspect(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.display().to_string(), "read", e))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let mut out = format!("file: {}\nlength: {}\n", path.display(), bytes.len());
    if name.ends_with(".tlog") || name.ends_with(".ckp") {
        out.push_str(&translog::check_file(&name, &bytes)?);
        out.push('\n');
        return Ok(out);
    }
    let stored = footer_checksum(&bytes, &name)?;
    let body = crate::engine::codec::check_footer(&bytes, &name)?;
    let _ = writeln!(out, "footer: {FOOTER_LEN} bytes, crc32 {stored:#010x} (verified)");
    if body.len() >= 5 {
        let n = body[4] as usize;
        if body.len() >= 5 + n + 20 {
            let codec = String::from_utf8_lossy(&body[5..5 + n]);
            let version = u32::from_le_bytes(body[5 + n..9 + n].try_into().expect("4 bytes"));
            let _ = writeln!(out, "codec: {codec}\nversion: {version}\nid: {}", hex(&body[9 + n..25 + n]));
        }
    }
    if commit::parse_generation(&name).is_some() {
        let cp = CommitPoint::decode_file(&bytes, &name)?;
        let _ = writeln!(out, "commit generation: {}\nversion: {}\nnext segment: {}", cp.generation, cp.version, cp.counter);
        for s in &cp.segments {
            let _ = writeln!(out, "segment {} id {} max_doc {} del_gen {} del_count {}", s.id.name, hex(&s.id.id), s.max_doc, s.del_gen, s.del_count);
        }
        for (k, v) in &cp.user_data {
            let _ = writeln!(out, "user_data {k} = {v}");
        }
    } else if name.ends_with(".si") {
        let si = SegmentInfo::decode_file(&bytes, &name)?;
        let _ = writeln!(out, "max_doc: {}", si.max_doc);
        for f in &si.files {
            let _ = writeln!(out, "file {} length {} crc32 {:#010x}", f.name, f.len, f.checksum);
        }
        for (k, v) in &si.diagnostics {
            let _ = writeln!(out, "diagnostic {k} = {v}");
        }
    } else if name.ends_with(".fnm") {
        let fi = FieldInfos::decode_file(&bytes, &name, None)?;
        for f in fi.iter() {
            let _ = writeln!(
                out,
                "field {} {:?} norms={} doc_values={:?} point_bytes={}",
                f.name, f.index, f.has_norms, f.doc_values, f.point_bytes
            );
        }
    }
    Ok(out)
}
