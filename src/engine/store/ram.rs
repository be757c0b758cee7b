//! An in-memory directory: every write is immediately "durable" (there is nothing to lose).

use std::collections::BTreeMap;

use super::{Directory, FileBytes, FileWrite};
use crate::engine::sync::{lock, Arc, Mutex};
use crate::engine::{Error, Result};

type Shared = Arc<Mutex<BTreeMap<String, Arc<Mutex<Vec<u8>>>>>>;

/// A directory held in memory.
#[derive(Debug, Clone, Default)]
pub struct RamDirectory {
    files: Shared,
}

impl RamDirectory {
    /// An empty directory.
    pub fn new() -> RamDirectory {
        RamDirectory::default()
    }

    fn get(&self, name: &str) -> Result<Arc<Mutex<Vec<u8>>>> {
        lock(&self.files).get(name).cloned().ok_or_else(|| Error::FileNotFound { file: name.to_string() })
    }

    /// Replaces a file's bytes (tests that corrupt files use this).
    pub fn overwrite(&self, name: &str, bytes: Vec<u8>) {
        lock(&self.files).insert(name.to_string(), Arc::new(Mutex::new(bytes)));
    }
}

impl Directory for RamDirectory {
    fn create(&self, name: &str) -> Result<Box<dyn FileWrite>> {
        let mut files = lock(&self.files);
        if files.contains_key(name) {
            return Err(Error::FileExists { file: name.to_string() });
        }
        let data = Arc::new(Mutex::new(Vec::new()));
        files.insert(name.to_string(), data.clone());
        Ok(Box::new(RamFileWriter { name: name.to_string(), data, len: 0 }))
    }

    fn open(&self, name: &str) -> Result<FileBytes> {
        let f = self.get(name)?;
        let bytes = lock(&f).clone();
        Ok(FileBytes::from(bytes))
    }

    fn delete(&self, name: &str) -> Result<()> {
        lock(&self.files).remove(name).map(|_| ()).ok_or_else(|| Error::FileNotFound { file: name.to_string() })
    }

    fn rename(&self, from: &str, to: &str) -> Result<()> {
        let mut files = lock(&self.files);
        let f = files.remove(from).ok_or_else(|| Error::FileNotFound { file: from.to_string() })?;
        files.insert(to.to_string(), f);
        Ok(())
    }

    fn sync_dir(&self) -> Result<()> {
        Ok(())
    }

    fn list(&self) -> Result<Vec<String>> {
        Ok(lock(&self.files).keys().cloned().collect())
    }

    fn exists(&self, name: &str) -> bool {
        lock(&self.files).contains_key(name)
    }

    fn file_len(&self, name: &str) -> Result<u64> {
        let f = self.get(name)?;
        let len = lock(&f).len() as u64;
        Ok(len)
    }
}

#[derive(Debug)]
struct RamFileWriter {
    name: String,
    data: Arc<Mutex<Vec<u8>>>,
    len: u64,
}

impl FileWrite for RamFileWriter {
    fn write_all(&mut self, buf: &[u8]) -> Result<()> {
        lock(&self.data).extend_from_slice(buf);
        self.len += buf.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn name(&self) -> &str {
        &self.name
    }
}
