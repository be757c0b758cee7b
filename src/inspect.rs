//! `fathom inspect PATH`: dump and check any file Fathom writes: header, footer, checksum and the
//! counts its decoder finds. Corruption is an error naming the file and offset.

use std::fmt::Write as _;
use std::path::Path;

use crate::engine::codec::{footer_checksum, header::hex, FOOTER_LEN};
use crate::engine::index::commit::{self, CommitPoint};
use crate::engine::segment::info::SegmentInfo;
use crate::engine::segment::{doc_values, live_docs, norms, points, postings, stored, FieldInfos};
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
        let _ = writeln!(
            out,
            "commit generation: {}\nversion: {}\nnext segment: {}",
            cp.generation, cp.version, cp.counter
        );
        for s in &cp.segments {
            let _ = writeln!(
                out,
                "segment {} id {} max_doc {} del_gen {} del_count {}",
                s.id.name,
                hex(&s.id.id),
                s.max_doc,
                s.del_gen,
                s.del_count
            );
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
    } else if let Some(report) = component(path, &name, &bytes)? {
        out.push_str(&report);
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

/// The segment a component file belongs to (`_3.tim` → `_3`, `_3_1.liv` → `_3`).
fn segment_of(name: &str) -> &str {
    let stem = name.split('.').next().unwrap_or(name);
    match (name.ends_with(".liv"), stem.rfind('_')) {
        (true, Some(i)) if i > 0 => &stem[..i],
        _ => stem,
    }
}

/// `max_doc` from the segment's `.si` next to the file.
fn max_doc_beside(path: &Path, name: &str) -> Result<u32> {
    let si = path.with_file_name(format!("{}.si", segment_of(name)));
    let si_name = si.display().to_string();
    let bytes = std::fs::read(&si).map_err(|e| Error::io(&si_name, "read (needed for max_doc)", e))?;
    Ok(SegmentInfo::decode_file(&bytes, &si_name)?.max_doc)
}

/// Walks a segment data file with its component's checker; `None` for other files.
fn component(path: &Path, name: &str, bytes: &[u8]) -> Result<Option<String>> {
    let ext = name.rsplit('.').next().unwrap_or_default();
    let report = match ext {
        "tim" | "doc" | "pos" => {
            let read = |e: &str| {
                let p = path.with_file_name(format!("{}.{e}", segment_of(name)));
                std::fs::read(&p).map_err(|err| Error::io(p.display().to_string(), "read", err))
            };
            let s = postings::check_files(&read("tim")?, &read("doc")?, &read("pos")?).map_err(|e| e.in_file(name))?;
            format!("postings (with the segment's .tim/.doc/.pos): {s:?}\n")
        }
        "nvd" => format!(
            "norms for field numbers {:?}\n",
            norms::check_file(bytes, max_doc_beside(path, name)?).map_err(|e| e.in_file(name))?
        ),
        "dvd" => format!(
            "doc values: {:?}\n",
            doc_values::check_file(bytes, max_doc_beside(path, name)?).map_err(|e| e.in_file(name))?
        ),
        "fdt" => format!(
            "stored fields: {:?}\n",
            stored::check_file(bytes, max_doc_beside(path, name)?).map_err(|e| e.in_file(name))?
        ),
        "pts" => format!(
            "points: {:?}\n",
            points::check_file(bytes, max_doc_beside(path, name)?).map_err(|e| e.in_file(name))?
        ),
        "liv" => {
            let max_doc = max_doc_beside(path, name).unwrap_or(u32::MAX);
            format!("live docs: {:?}\n", live_docs::check_file(bytes, max_doc).map_err(|e| e.in_file(name))?)
        }
        _ => return Ok(None),
    };
    Ok(Some(report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_names_of_component_files() {
        assert_eq!(segment_of("_3.tim"), "_3");
        assert_eq!(segment_of("_3_1.liv"), "_3");
        assert_eq!(segment_of("_a1_z.liv"), "_a1");
    }

    #[test]
    fn inspects_every_file_of_a_shard() {
        use crate::engine::store::{Directory, FsDirectory};
        use crate::shard::engine::{default_config, no_fields_parser};
        use crate::shard::{IndexOp, ShardEngine};
        let tmp = tempfile::tempdir().unwrap();
        let index: std::sync::Arc<dyn Directory> =
            std::sync::Arc::new(FsDirectory::open(tmp.path().join("index")).unwrap());
        let tl: std::sync::Arc<dyn Directory> =
            std::sync::Arc::new(FsDirectory::open(tmp.path().join("translog")).unwrap());
        let engine = ShardEngine::open(index, tl, default_config(no_fields_parser())).unwrap();
        for i in 0..5 {
            engine.index(IndexOp { id: format!("{i}"), source: b"{}".to_vec(), ..Default::default() }).unwrap();
        }
        engine.delete("1", Default::default()).unwrap();
        engine.flush().unwrap();
        drop(engine);
        let mut seen = 0;
        for sub in ["index", "translog"] {
            for e in std::fs::read_dir(tmp.path().join(sub)).unwrap() {
                let p = e.unwrap().path();
                let report = inspect(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                assert!(report.contains("length:"), "{report}");
                seen += 1;
            }
        }
        assert!(seen >= 10);
        // A damaged file is reported with its name.
        let dvd = std::fs::read_dir(tmp.path().join("index"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "dvd"))
            .unwrap();
        let mut b = std::fs::read(&dvd).unwrap();
        let mid = b.len() / 2;
        b[mid] ^= 0xff;
        std::fs::write(&dvd, b).unwrap();
        let e = inspect(&dvd).unwrap_err().to_string();
        assert!(e.contains(".dvd"), "{e}");
    }
}
