//! `SecurityService`: the security configuration a node currently enforces. Readers take an
//! `Arc` snapshot (`current`) so a reload never changes a configuration under a running request.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::{SecurityConfig, DIR};

/// Holds the current configuration; `reload` swaps in a new one (after the security index changed).
#[derive(Debug)]
pub struct SecurityService {
    current: RwLock<Arc<SecurityConfig>>,
    dir: PathBuf,
}

impl SecurityService {
    /// Bootstraps from the files of `$conf/opensearch-security`, refusing a broken configuration.
    pub fn from_conf_dir(conf_dir: &Path) -> Result<SecurityService, String> {
        let dir = conf_dir.join(DIR);
        let config = SecurityConfig::load_dir(&dir)?;
        Ok(SecurityService { current: RwLock::new(Arc::new(config)), dir })
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
    }
}
