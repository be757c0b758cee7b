//! `SecurityService`: the security configuration a node currently enforces. Readers take an
//! `Arc` snapshot (`current`) so a reload never changes a configuration under a running request.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::{SecurityConfig, DIR};

/// Holds the current configuration; `reload` swaps in a new one (after the security index changed).
#[derive(Debug)]
pub struct SecurityService {
    current: RwLock<Arc<SecurityConfig>>,
    dir: PathBuf,
    /// Set once the configuration came from the security index (not only the files).
    from_index: AtomicBool,
    /// Bumped by every reload (caches keyed on the configuration compare it).
    generation: AtomicU64,
}

impl SecurityService {
    /// Bootstraps from the files of `$conf/opensearch-security`, refusing a broken configuration.
    pub fn from_conf_dir(conf_dir: &Path) -> Result<SecurityService, String> {
        let dir = conf_dir.join(DIR);
        let config = SecurityConfig::load_dir(&dir)?;
        Ok(SecurityService::new(config, dir))
    }

    /// A service holding `config` (bootstrapped from `dir`).
    pub fn new(config: SecurityConfig, dir: PathBuf) -> SecurityService {
        SecurityService {
            current: RwLock::new(Arc::new(config)),
            dir,
            from_index: AtomicBool::new(false),
            generation: AtomicU64::new(0),
        }
    }

    /// The directory the bootstrap files were read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The configuration in force now.
    pub fn current(&self) -> Arc<SecurityConfig> {
        match self.current.read() {
            Ok(g) => Arc::clone(&g),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    /// Replaces the configuration in force (a reload from the security index).
    pub fn reload(&self, config: SecurityConfig) {
        let mut g = match self.current.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        *g = Arc::new(config);
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// [`SecurityService::reload`] with a configuration read from the security index.
    pub fn reload_from_index(&self, config: SecurityConfig) {
        self.reload(config);
        self.from_index.store(true, Ordering::SeqCst);
    }

    /// Whether the configuration in force was read from the security index.
    pub fn loaded_from_index(&self) -> bool {
        self.from_index.load(Ordering::SeqCst)
    }

    /// How many reloads happened since start.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }
}
