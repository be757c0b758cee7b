//! The reference-counted file deleter: a file is deleted when no commit point, searcher, point in
//! time or in-flight merge references it any more.
//!
//! Every holder of files keeps a [`FileRefs`] guard: creating it increments the count of each
//! file, dropping it decrements them, and the file whose count reaches zero is deleted.
//!
//! Why a file is never deleted while in use, and never resurrected after deletion:
//!
//! 1. File names are never reused: segment names come from a counter stored in the commit point,
//!    live-docs and commit generations only grow. So once a count reaches zero, nobody can come to
//!    want that file again *unless they already hold a reference to something that holds it*.
//! 2. A new holder (a searcher, a PIT) takes its references from an existing holder (the writer's
//!    current segment list) *while that holder's guard is alive*, so the count it increments is
//!    already ≥ 1 and cannot be concurrently dropping to zero.
//! 3. The decision "count is zero → delete" is taken under the lock and the name is removed from
//!    the table in the same critical section; the unlink happens after the lock is released, and by
//!    (1) no one can incref that name in between.
//! 4. If an unlink fails (say, a transient I/O error), the name is remembered and retried by
//!    [`FileDeleter::retry_pending`]; a leftover file is harmless, a missing one is not.
//! 5. When the writer closes, the deleter stops deleting: the writer's own references go away
//!    with it, and searchers that outlive it keep their files. The next open deletes what its
//!    commit point does not reference.

use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::engine::store::Directory;
use crate::engine::sync::{lock, Arc, Mutex};
use crate::engine::{Error, Result};

#[derive(Debug, Default)]
struct Table {
    counts: HashMap<String, usize>,
    pending: HashSet<String>,
    /// Set when the owning writer closes: from then on nothing is deleted (dropping the writer
    /// releases every reference, which must not delete the index). The next open removes
    /// whatever its commit does not reference.
    closed: bool,
}

/// Reference counts of the files of one directory.
pub struct FileDeleter {
    dir: Arc<dyn Directory>,
    table: Mutex<Table>,
}

impl fmt::Debug for FileDeleter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = lock(&self.table);
        f.debug_struct("FileDeleter").field("files", &t.counts.len()).field("pending", &t.pending.len()).finish()
    }
}

impl FileDeleter {
    /// A deleter for `dir`.
    pub fn new(dir: Arc<dyn Directory>) -> Arc<FileDeleter> {
        Arc::new(FileDeleter { dir, table: Mutex::new(Table::default()) })
    }

    /// Takes references to `files`, returned as a guard.
    pub fn acquire(self: &Arc<Self>, files: Vec<String>) -> FileRefs {
        {
            let mut t = lock(&self.table);
            for f in &files {
                *t.counts.entry(f.clone()).or_insert(0) += 1;
            }
        }
        FileRefs { deleter: self.clone(), files }
    }

    /// The current count of `file` (0 when untracked).
    pub fn refcount(&self, file: &str) -> usize {
        lock(&self.table).counts.get(file).copied().unwrap_or(0)
    }

    fn release(&self, files: &[String]) {
        let mut to_delete = Vec::new();
        {
            let mut t = lock(&self.table);
            for f in files {
                let gone = match t.counts.get_mut(f) {
                    Some(c) => {
                        *c -= 1;
                        *c == 0
                    }
                    None => {
                        debug_assert!(false, "release of unreferenced file {f}");
                        false
                    }
                };
                if gone {
                    t.counts.remove(f);
                    if !t.closed {
                        to_delete.push(f.clone());
                    }
                }
            }
        }
        self.delete_all(to_delete);
    }

    fn delete_all(&self, names: Vec<String>) {
        for name in names {
            match self.dir.delete(&name) {
                Ok(()) | Err(Error::FileNotFound { .. }) => {}
                Err(e) => {
                    tracing::warn!(file = %name, error = %e, "could not delete unreferenced file; will retry");
                    lock(&self.table).pending.insert(name);
                }
            }
        }
    }

    /// Stops deleting files (rule 5 of the module docs); references may still be released.
    pub fn close(&self) {
        lock(&self.table).closed = true;
    }

    /// Retries deletions that failed earlier.
    pub fn retry_pending(&self) {
        let names: Vec<String> = {
            let mut guard = lock(&self.table);
            let t = &mut *guard;
            let counts = &t.counts;
            t.pending.drain().filter(|n| !counts.contains_key(n)).collect()
        };
        self.delete_all(names);
    }

    /// Deletes every file of the directory that nobody references and `keep` does not protect
    /// (leftovers of a crash: unfinished segments, superseded commits, pending commit files).
    pub fn delete_unreferenced(&self, keep: &dyn Fn(&str) -> bool) -> Result<Vec<String>> {
        let names = self.dir.list()?;
        let doomed: Vec<String> = {
            let t = lock(&self.table);
            names.into_iter().filter(|n| !t.counts.contains_key(n) && !keep(n)).collect()
        };
        for n in &doomed {
            match self.dir.delete(n) {
                Ok(()) | Err(Error::FileNotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(doomed)
    }
}

/// References to a set of files; dropping it releases them (and deletes those that reach zero).
pub struct FileRefs {
    deleter: Arc<FileDeleter>,
    files: Vec<String>,
}

impl FileRefs {
    /// The referenced files.
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// Another guard over the same files (rule 2 of the module docs: taken while this one lives).
    pub fn share(&self) -> FileRefs {
        self.deleter.acquire(self.files.clone())
    }
}

impl fmt::Debug for FileRefs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileRefs").field("files", &self.files).finish()
    }
}

impl Drop for FileRefs {
    fn drop(&mut self) {
        self.deleter.release(&self.files);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::engine::store::{write_file, RamDirectory};

    #[test]
    fn deletes_at_zero_only() {
        let ram = RamDirectory::new();
        write_file(&ram, "a", b"1").unwrap();
        write_file(&ram, "b", b"1").unwrap();
        write_file(&ram, "orphan", b"1").unwrap();
        let d = FileDeleter::new(Arc::new(ram.clone()));
        let r1 = d.acquire(vec!["a".into(), "b".into()]);
        let r2 = r1.share();
        let r3 = d.acquire(vec!["b".into()]);
        drop(r1);
        assert!(ram.exists("a") && ram.exists("b"));
        drop(r2);
        assert!(!ram.exists("a"));
        assert!(ram.exists("b"));
        assert_eq!(d.refcount("b"), 1);
        assert_eq!(d.delete_unreferenced(&|_| false).unwrap(), vec!["orphan".to_string()]);
        drop(r3);
        assert!(ram.list().unwrap().is_empty());
    }
}

#[cfg(loom)]
mod loom_tests {
    use super::*;
    use crate::engine::store::{write_file, RamDirectory};

    /// A searcher shares the writer's references while the writer drops its own concurrently:
    /// the file survives as long as either holds it and is deleted exactly once at the end.
    #[test]
    fn concurrent_share_and_release() {
        loom::model(|| {
            let ram = RamDirectory::new();
            write_file(&ram, "_0.si", b"x").unwrap();
            let d = FileDeleter::new(Arc::new(ram.clone()));
            let writer = d.acquire(vec!["_0.si".into()]);
            let searcher = writer.share();
            let t = loom::thread::spawn(move || {
                assert!(searcher.deleter.dir.exists("_0.si"));
                drop(searcher);
            });
            drop(writer);
            t.join().unwrap();
            assert!(!ram.exists("_0.si"));
            assert_eq!(d.refcount("_0.si"), 0);
        });
    }
}
