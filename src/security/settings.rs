//! The `plugins.security.*` node settings (the security plugin's names, from its
//! `SSLConfigConstants` and `ConfigConstants`), read once at startup. Paths are relative to the
//! node's config directory, as the plugin resolves them.

use std::path::{Path, PathBuf};

use crate::node::NodeSettings;

/// `plugins.security.ssl.http.clientauth_mode`: whether the HTTP listener asks for client
/// certificates. The plugin's default is OPTIONAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    None,
    Optional,
    Require,
}

/// TLS material of one layer (HTTP or transport), paths resolved against the config directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// Trusted CAs for client certificates; required unless `clientauth_mode` is NONE.
    pub trusted_cas: Option<PathBuf>,
    pub client_auth: ClientAuth,
}

/// The security settings of a node. `None` from [`SecuritySettings::from_node`] means security is
/// disabled (the default): nothing here is consulted and the server runs as before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecuritySettings {
    /// HTTP TLS (`plugins.security.ssl.http.enabled`); `None` serves plain HTTP.
    pub http: Option<TlsFiles>,
    /// Transport TLS material (`plugins.security.ssl.transport.*`): checked at startup; the
    /// node-to-node TLS layer that uses it is not built yet (see README).
    pub transport: TlsFiles,
    pub enforce_hostname_verification: bool,
    /// `plugins.security.nodes_dn`, kept for transport TLS.
    pub nodes_dn: Vec<String>,
    /// `plugins.security.authcz.admin_dn`, kept for the authentication slice.
    pub admin_dn: Vec<String>,
}

fn parse_bool(settings: &NodeSettings, key: &str, default: bool) -> Result<bool, String> {
    match settings.get(key) {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => {
            Err(format!("Failed to parse value [{v}] as only [true] or [false] are allowed for setting [{key}]"))
        }
    }
}

fn path(settings: &NodeSettings, conf: &Path, key: &str) -> Option<PathBuf> {
    settings.get(key).filter(|v| !v.is_empty()).map(|v| conf.join(v))
}

fn required(settings: &NodeSettings, conf: &Path, key: &str) -> Result<PathBuf, String> {
    path(settings, conf, key).ok_or_else(|| format!("security is enabled but [{key}] is not set"))
}

/// A setting holding a list of DNs. The node settings store lists comma-joined, and a DN holds
/// commas itself, so a DN list is split where a new `CN=` starts (the demo's DNs all start with one).
fn dn_list(settings: &NodeSettings, key: &str) -> Vec<String> {
    let Some(v) = settings.get(key) else { return Vec::new() };
    let mut out: Vec<String> = Vec::new();
    for part in v.split(',') {
        let p = part.trim();
        if p.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if !p.to_ascii_uppercase().starts_with("CN=") => {
                last.push(',');
                last.push_str(p);
            }
            _ => out.push(p.to_string()),
        }
    }
    out
}

impl SecuritySettings {
    /// Reads the settings; `Ok(None)` when security is disabled (Fathom's default). With security
    /// on, transport TLS files are required as the plugin requires them, and HTTP TLS files when
    /// `plugins.security.ssl.http.enabled` is true.
    pub fn from_node(settings: &NodeSettings) -> Result<Option<SecuritySettings>, String> {
        if parse_bool(settings, "plugins.security.disabled", true)? {
            return Ok(None);
        }
        let conf = settings.conf_dir();
        let client_auth = match settings.get_or("plugins.security.ssl.http.clientauth_mode", "OPTIONAL") {
            m if m.eq_ignore_ascii_case("NONE") => ClientAuth::None,
            m if m.eq_ignore_ascii_case("OPTIONAL") => ClientAuth::Optional,
            m if m.eq_ignore_ascii_case("REQUIRE") => ClientAuth::Require,
            m => {
                return Err(format!(
                    "invalid value [{m}] for [plugins.security.ssl.http.clientauth_mode]: expected NONE, OPTIONAL or REQUIRE"
                ))
            }
        };
        let http = if parse_bool(settings, "plugins.security.ssl.http.enabled", false)? {
            let trusted_cas = path(settings, &conf, "plugins.security.ssl.http.pemtrustedcas_filepath");
            if trusted_cas.is_none() && client_auth != ClientAuth::None {
                return Err(
                    "[plugins.security.ssl.http.pemtrustedcas_filepath] must be set unless [plugins.security.ssl.http.clientauth_mode] is NONE"
                        .to_string(),
                );
            }
            Some(TlsFiles {
                cert: required(settings, &conf, "plugins.security.ssl.http.pemcert_filepath")?,
                key: required(settings, &conf, "plugins.security.ssl.http.pemkey_filepath")?,
                trusted_cas,
                client_auth,
            })
        } else {
            None
        };
        let transport = TlsFiles {
            cert: required(settings, &conf, "plugins.security.ssl.transport.pemcert_filepath")?,
            key: required(settings, &conf, "plugins.security.ssl.transport.pemkey_filepath")?,
            trusted_cas: Some(required(settings, &conf, "plugins.security.ssl.transport.pemtrustedcas_filepath")?),
            client_auth: ClientAuth::Require,
        };
        Ok(Some(SecuritySettings {
            http,
            transport,
            enforce_hostname_verification: parse_bool(
                settings,
                "plugins.security.ssl.transport.enforce_hostname_verification",
                true,
            )?,
            nodes_dn: dn_list(settings, "plugins.security.nodes_dn"),
            admin_dn: dn_list(settings, "plugins.security.authcz.admin_dn"),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(extra: &[(&str, &str)]) -> NodeSettings {
        let mut pairs = vec![
            ("plugins.security.disabled", "false"),
            ("plugins.security.ssl.transport.pemcert_filepath", "esnode.pem"),
            ("plugins.security.ssl.transport.pemkey_filepath", "esnode-key.pem"),
            ("plugins.security.ssl.transport.pemtrustedcas_filepath", "root-ca.pem"),
        ];
        pairs.extend_from_slice(extra);
        NodeSettings::from_pairs(&pairs).with_conf_dir(Path::new("/c"))
    }

    #[test]
    fn disabled_by_default() {
        assert_eq!(SecuritySettings::from_node(&NodeSettings::from_pairs(&[])), Ok(None));
        let s = NodeSettings::from_pairs(&[("plugins.security.disabled", "yes")]);
        assert!(SecuritySettings::from_node(&s).unwrap_err().contains("only [true] or [false]"));
    }

    #[test]
    fn enabled_reads_paths_relative_to_the_config_dir() {
        let s = SecuritySettings::from_node(&on(&[
            ("plugins.security.ssl.http.enabled", "true"),
            ("plugins.security.ssl.http.pemcert_filepath", "esnode.pem"),
            ("plugins.security.ssl.http.pemkey_filepath", "esnode-key.pem"),
            ("plugins.security.ssl.http.pemtrustedcas_filepath", "root-ca.pem"),
            ("plugins.security.ssl.http.clientauth_mode", "require"),
            ("plugins.security.authcz.admin_dn", "CN=kirk,OU=client,O=client,L=test,C=de,CN=other,O=x"),
        ]))
        .unwrap()
        .unwrap();
        let http = s.http.unwrap();
        assert_eq!(http.cert, Path::new("/c/esnode.pem"));
        assert_eq!(http.client_auth, ClientAuth::Require);
        assert_eq!(s.transport.trusted_cas.as_deref(), Some(Path::new("/c/root-ca.pem")));
        assert_eq!(s.admin_dn, vec!["CN=kirk,OU=client,O=client,L=test,C=de", "CN=other,O=x"]);
    }

    #[test]
    fn missing_files_are_clear_errors() {
        let e = SecuritySettings::from_node(&NodeSettings::from_pairs(&[("plugins.security.disabled", "false")]))
            .unwrap_err();
        assert!(e.contains("plugins.security.ssl.transport.pemcert_filepath"), "{e}");
        let e = SecuritySettings::from_node(&on(&[("plugins.security.ssl.http.enabled", "true")])).unwrap_err();
        assert!(e.contains("pemtrustedcas_filepath"), "{e}");
        let e = SecuritySettings::from_node(&on(&[
            ("plugins.security.ssl.http.enabled", "true"),
            ("plugins.security.ssl.http.clientauth_mode", "NONE"),
        ]))
        .unwrap_err();
        assert!(e.contains("plugins.security.ssl.http.pemcert_filepath"), "{e}");
        let e = SecuritySettings::from_node(&on(&[("plugins.security.ssl.http.clientauth_mode", "SOMETIMES")]))
            .unwrap_err();
        assert!(e.contains("NONE, OPTIONAL or REQUIRE"), "{e}");
    }
}
