//! How full the file system holding a path is (`statvfs`): what `_cluster/allocation/explain`
//! with `include_disk_info` reports as the node's disk usage.

use std::path::Path;

/// Bytes of a file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskUsage {
    pub total: u64,
    /// Free for anyone (root included).
    pub free: u64,
    /// Free for this process's user.
    pub available: u64,
}

/// The usage of the file system holding `path`.
pub fn usage(path: &Path) -> std::io::Result<DiskUsage> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated path and `s` a valid out-parameter for the call.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut s) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let block = s.f_frsize as u64;
    Ok(DiskUsage {
        total: (s.f_blocks as u64).saturating_mul(block),
        free: (s.f_bfree as u64).saturating_mul(block),
        available: (s.f_bavail as u64).saturating_mul(block),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_temp_dir_has_a_size() {
        let d = tempfile::tempdir().unwrap();
        let u = usage(d.path()).unwrap();
        assert!(u.total > 0 && u.free <= u.total && u.available <= u.free, "{u:?}");
        assert!(usage(&d.path().join("missing")).is_err());
    }
}
