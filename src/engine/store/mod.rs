//! store/: "give me the bytes of file X; make these bytes durable".
//!
//! A [`Directory`] is a flat namespace of write-once files. Three implementations:
//!
//! - [`FsDirectory`]: the file system; reads go through `memmap2` (the `unsafe` lives in
//!   [`mmap`] with its safety contract).
//! - [`RamDirectory`]: in memory, for tests and tools.
//! - [`FaultyDirectory`]: in memory, keeps a *durable* image apart from the *volatile* one and
//!   forgets everything not fsynced (file data and directory entries) on [`FaultyDirectory::crash`];
//!   it can also fail the N-th I/O call. Crash tests run the real engine on it.
//!
//! The durability contract every caller relies on (and which `FaultyDirectory` enforces):
//!
//! 1. Bytes written to a file are durable only after [`FileWrite::sync`] on that file.
//! 2. A created, renamed or deleted *name* is durable only after [`Directory::sync_dir`].
//! 3. [`Directory::rename`] replaces the target atomically: after a crash the name refers to either
//!    the old or the new file, never to a mix.
//! 4. Files are written once: after the writer is dropped, nobody modifies the file again. Readers
//!    (and memory maps) therefore never see a file change under them.

pub mod disk;
mod faulty;
mod fs;
pub mod mmap;
mod ram;

use std::fmt;

pub use faulty::{CrashMode, FaultyDirectory};
pub use fs::FsDirectory;
pub use ram::RamDirectory;

use super::Result;

/// The bytes of a whole file: a memory map or a heap buffer, cheaply cloneable and sliceable.
pub type FileBytes = bytes::Bytes;

/// A flat namespace of write-once files.
pub trait Directory: Send + Sync + fmt::Debug {
    /// Creates a new, empty file for writing. Fails with [`Error::FileExists`](super::Error) if
    /// the name is taken. The name is not durable until [`Directory::sync_dir`].
    fn create(&self, name: &str) -> Result<Box<dyn FileWrite>>;
    /// Returns the current bytes of a file (what a reader in this process sees, durable or not).
    fn open(&self, name: &str) -> Result<FileBytes>;
    /// Removes a name. Not durable until [`Directory::sync_dir`].
    fn delete(&self, name: &str) -> Result<()>;
    /// Atomically renames `from` to `to`, replacing `to` if it exists. Not durable until
    /// [`Directory::sync_dir`].
    fn rename(&self, from: &str, to: &str) -> Result<()>;
    /// Makes the directory entries (creates, renames, deletes) durable.
    fn sync_dir(&self) -> Result<()>;
    /// The names of all files, sorted.
    fn list(&self) -> Result<Vec<String>>;
    /// Whether a file of that name exists.
    fn exists(&self, name: &str) -> bool;
    /// The length of a file in bytes.
    fn file_len(&self, name: &str) -> Result<u64>;
}

/// An append-only writer of a new file.
pub trait FileWrite: Send + fmt::Debug {
    /// Appends bytes. They may sit in a buffer until [`FileWrite::flush`] or [`FileWrite::sync`].
    fn write_all(&mut self, buf: &[u8]) -> Result<()>;
    /// Hands buffered bytes to the operating system (visible to readers, not durable).
    fn flush(&mut self) -> Result<()>;
    /// Flushes and makes the file's bytes durable (fdatasync).
    fn sync(&mut self) -> Result<()>;
    /// Bytes written so far.
    fn len(&self) -> u64;
    /// Whether nothing was written yet.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The file's name.
    fn name(&self) -> &str;
}

/// Writes a whole small file in one go: create, write, fsync. The name still needs
/// [`Directory::sync_dir`] to be durable.
pub fn write_file(dir: &dyn Directory, name: &str, bytes: &[u8]) -> Result<()> {
    let mut w = dir.create(name)?;
    w.write_all(bytes)?;
    w.sync()
}

#[cfg(test)]
mod tests;
