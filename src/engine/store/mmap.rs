//! The one place where Fathom uses `unsafe`: memory-mapping files for reading.

use std::fs::File;
use std::io;

use memmap2::Mmap;

use super::FileBytes;

/// Maps a whole file read-only and wraps the map as [`FileBytes`].
///
/// # Safety
///
/// The caller promises that, for as long as any clone or slice of the returned bytes lives,
/// the file's contents are not modified and the file is not truncated, by this process or any
/// other. Fathom keeps this promise by construction: every file in a [`Directory`](super::Directory)
/// is written once and closed before it is opened for reading, and files are only ever
/// deleted (unlinking keeps the mapped pages alive), never rewritten in place. The data directory
/// is Fathom's own; another process editing it breaks the promise (as it would for Lucene).
pub unsafe fn map_file(file: &File) -> io::Result<FileBytes> {
    let len = file.metadata()?.len();
    if len == 0 {
        // mmap(2) rejects empty mappings; an empty file is an empty slice.
        return Ok(FileBytes::new());
    }
    // SAFETY: forwarded from this function's contract (write-once files, never truncated).
    let map = unsafe { Mmap::map(file)? };
    Ok(FileBytes::from_owner(map))
}
