//! `fathom inspect PATH`: dump and check a segment file, commit point or translog file.
//! (Grows with each file type.)

use std::path::Path;

use crate::engine::codec::{footer_checksum, header::hex, FOOTER_LEN};
use crate::engine::{Error, Result};

/// Inspects one file and returns a human-readable report. Corruption is reported as an error that
/// names the file and offset.
pub fn inspect(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.display().to_string(), "read", e))?;
    let name = path.display().to_string();
    let mut out = String::new();
    out.push_str(&format!("file: {name}\nlength: {}\n", bytes.len()));
    let stored = footer_checksum(&bytes, &name)?;
    let body = crate::engine::codec::check_footer(&bytes, &name)?;
    out.push_str(&format!("footer: {FOOTER_LEN} bytes, crc32 {stored:#010x} (verified)\n"));
    if body.len() >= 5 {
        let n = body[4] as usize;
        if body.len() >= 5 + n + 20 {
            let codec = String::from_utf8_lossy(&body[5..5 + n]);
            let version = u32::from_le_bytes(body[5 + n..9 + n].try_into().expect("4 bytes"));
            out.push_str(&format!("codec: {codec}\nversion: {version}\nid: {}\n", hex(&body[9 + n..25 + n])));
        }
    }
    Ok(out)
}
