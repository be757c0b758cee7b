//! The file-system directory: buffered writes, fdatasync, directory fsync, mmap reads.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{mmap, Directory, FileBytes, FileWrite};
use crate::engine::{Error, Result};

/// Size of the write buffer of each file writer.
const WRITE_BUFFER: usize = 64 * 1024;

/// A directory on the file system.
#[derive(Debug, Clone)]
pub struct FsDirectory {
    path: PathBuf,
}

impl FsDirectory {
    /// Opens (creating it and its parents if needed) a directory.
    pub fn open(path: impl AsRef<Path>) -> Result<FsDirectory> {
        let path = path.as_ref().to_path_buf();
        fs::create_dir_all(&path).map_err(|e| Error::io(path.display().to_string(), "create_dir", e))?;
        Ok(FsDirectory { path })
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn full(&self, name: &str) -> Result<PathBuf> {
        if name.is_empty() || name.contains('/') || name.contains('\\') || name == "." || name == ".." {
            return Err(Error::InvalidArgument(format!("invalid file name [{name}]")));
        }
        Ok(self.path.join(name))
    }

    fn err(&self, name: &str, op: &'static str, e: io::Error) -> Error {
        if e.kind() == io::ErrorKind::NotFound {
            return Error::FileNotFound { file: self.path.join(name).display().to_string() };
        }
        if e.kind() == io::ErrorKind::AlreadyExists {
            return Error::FileExists { file: self.path.join(name).display().to_string() };
        }
        Error::io(self.path.join(name).display().to_string(), op, e)
    }
}

impl Directory for FsDirectory {
    fn create(&self, name: &str) -> Result<Box<dyn FileWrite>> {
        let path = self.full(name)?;
        let file =
            OpenOptions::new().write(true).create_new(true).open(&path).map_err(|e| self.err(name, "create", e))?;
        Ok(Box::new(FsFileWriter { name: name.to_string(), path, file, buf: Vec::with_capacity(WRITE_BUFFER), len: 0 }))
    }

    fn open(&self, name: &str) -> Result<FileBytes> {
        let path = self.full(name)?;
        let file = File::open(&path).map_err(|e| self.err(name, "open", e))?;
        // SAFETY: files in a Directory are write-once and never truncated or rewritten while
        // readers live (the contract of `Directory`, point 4); deletion only unlinks.
        unsafe { mmap::map_file(&file) }.map_err(|e| self.err(name, "mmap", e))
    }

    fn delete(&self, name: &str) -> Result<()> {
        fs::remove_file(self.full(name)?).map_err(|e| self.err(name, "delete", e))
    }

    fn rename(&self, from: &str, to: &str) -> Result<()> {
        fs::rename(self.full(from)?, self.full(to)?).map_err(|e| self.err(from, "rename", e))
    }

    fn sync_dir(&self) -> Result<()> {
        let dir = File::open(&self.path).map_err(|e| Error::io(self.path.display().to_string(), "open_dir", e))?;
        dir.sync_all().map_err(|e| Error::io(self.path.display().to_string(), "fsync_dir", e))
    }

    fn list(&self) -> Result<Vec<String>> {
        let mut names = Vec::new();
        let rd = fs::read_dir(&self.path).map_err(|e| Error::io(self.path.display().to_string(), "list", e))?;
        for entry in rd {
            let entry = entry.map_err(|e| Error::io(self.path.display().to_string(), "list", e))?;
            let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
            if let (true, Some(n)) = (is_file, entry.file_name().to_str()) {
                names.push(n.to_string());
            }
        }
        names.sort();
        Ok(names)
    }

    fn exists(&self, name: &str) -> bool {
        self.full(name).map(|p| p.is_file()).unwrap_or(false)
    }

    fn file_len(&self, name: &str) -> Result<u64> {
        let meta = fs::metadata(self.full(name)?).map_err(|e| self.err(name, "stat", e))?;
        Ok(meta.len())
    }
}

#[derive(Debug)]
struct FsFileWriter {
    name: String,
    path: PathBuf,
    file: File,
    buf: Vec<u8>,
    len: u64,
}

impl FsFileWriter {
    fn err(&self, op: &'static str, e: io::Error) -> Error {
        Error::io(self.path.display().to_string(), op, e)
    }
}

impl FileWrite for FsFileWriter {
    fn write_all(&mut self, data: &[u8]) -> Result<()> {
        self.len += data.len() as u64;
        if self.buf.len() + data.len() > WRITE_BUFFER {
            self.flush()?;
            if data.len() >= WRITE_BUFFER {
                return self.file.write_all(data).map_err(|e| self.err("write", e));
            }
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            let r = self.file.write_all(&self.buf);
            self.buf.clear();
            r.map_err(|e| self.err("write", e))?;
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.flush()?;
        self.file.sync_data().map_err(|e| self.err("fsync", e))
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for FsFileWriter {
    fn drop(&mut self) {
        // Best effort: a writer dropped without sync() promised nothing about durability, but
        // its bytes should still reach the OS so that readers in this process see them.
        let _ = self.flush();
    }
}
