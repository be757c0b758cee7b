//! The corruption marker of a shard copy (`format/corruption-marker.md`): when a shard fails to
//! open because a file is corrupt, the node still starts (the index is red, its other shards and
//! every other index serve), and a marker in the shard's folder keeps that copy failed across
//! restarts until the operator acts (restores the index, or deletes the marker after repairing
//! the files), as OpenSearch's `corrupted_*` store marker does. The same marker is written when
//! the running shard meets damaged bytes (see [`crate::shard::failure`] and the failure listener
//! in [`super::indices`]).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::engine::Error;

/// The marker's name in the shard folder (`{path.data}/nodes/0/indices/{uuid}/{shard}/`).
pub const MARKER: &str = "corrupted";

fn path(shard_dir: &Path) -> PathBuf {
    shard_dir.join(MARKER)
}

/// Whether an open error means damaged bytes (as opposed to an I/O failure that may pass).
pub fn is_corruption(e: &Error) -> bool {
    matches!(
        e,
        Error::Corrupt { .. }
            | Error::ChecksumMismatch { .. }
            | Error::TranslogCorrupted { .. }
            | Error::FormatTooOld { .. }
            | Error::FormatTooNew { .. }
    )
}

/// The recorded reason when the shard copy is marked corrupted. The marker's text is only
/// shown to people: any readable content (even empty or not UTF-8) marks the copy.
pub fn marked(shard_dir: &Path) -> Option<String> {
    let p = path(shard_dir);
    if !p.exists() {
        return None;
    }
    let text = fs::read(&p).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let reason = text.lines().find_map(|l| l.strip_prefix("reason: ")).unwrap_or("marked corrupted").to_string();
    Some(format!("shard copy is marked corrupted ({}): {reason}", p.display()))
}

/// Writes the marker (write, fsync, fsync the folder), so the copy stays failed after a restart.
pub fn mark(shard_dir: &Path, reason: &str) -> std::io::Result<()> {
    // The folder exists (its files were just read); never re-create a deleted shard's folder.
    let p = path(shard_dir);
    let mut f = fs::File::create(&p)?;
    let millis = crate::clock::now_millis();
    let one_line = reason.replace(['\n', '\r'], " ");
    write!(f, "fathom corruption marker v1\ntime: {millis}\nreason: {one_line}\n")?;
    f.sync_all()?;
    fs::File::open(shard_dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_survives_and_carries_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(marked(dir.path()), None);
        mark(dir.path(), "checksum failed\nin _0.doc").unwrap();
        let r = marked(dir.path()).expect("marked");
        assert!(r.contains("checksum failed in _0.doc"), "{r}");
        // Any content marks the copy: the marker is a fact, its text a note.
        fs::write(dir.path().join(MARKER), [0xff, 0x00]).unwrap();
        assert!(marked(dir.path()).is_some());
    }

    #[test]
    fn only_damaged_bytes_are_corruption() {
        assert!(is_corruption(&Error::corrupt("_0.doc", 3, "bad")));
        assert!(!is_corruption(&Error::io("_0.doc", "read", std::io::Error::other("disk"))));
        assert!(!is_corruption(&Error::Closed("x".into())));
    }
}
