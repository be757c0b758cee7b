//! `fathom setup-security`: the equivalent of the security plugin's demo installer
//! (`install_demo_configuration.sh`). It writes into the node's config directory a root CA
//! (`root-ca.pem`), a node certificate (`esnode.pem`, `esnode-key.pem`) and an admin client
//! certificate (`kirk.pem`, `kirk-key.pem`) with the plugin's demo DNs, and appends the
//! `plugins.security.*` settings to `fathom.yml`. As the plugin, it quits without touching
//! anything when `fathom.yml` is already configured for security. Unlike the plugin, whose demo
//! certificates are fixed files shipped in its jar, the certificates are generated here (rcgen,
//! ECDSA P-256), so every installation has its own CA; the CA key is not kept (the plugin ships
//! none either).

use std::path::Path;

use super::{config, password};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose, SanType,
};

/// The demo root CA's subject. The plugin's is `...,O=Example Com Inc.,DC=example,DC=com`; rcgen
/// keeps one value per attribute type, so the generated CA has the one `DC=example`.
pub const ROOT_CA_DN: &str = "CN=Example Com Inc. Root CA,OU=Example Com Inc. Root CA,O=Example Com Inc.,DC=example";
/// The demo node certificate's subject.
pub const NODE_DN: &str = "CN=node-0.example.com,OU=node,O=node,L=test,DC=de";
/// The demo admin certificate's subject (`plugins.security.authcz.admin_dn`).
pub const ADMIN_DN: &str = "CN=kirk,OU=client,O=client,L=test,C=de";

const BEGIN: &str = "######## Start OpenSearch Security Demo Configuration ########";
const END: &str = "######## End OpenSearch Security Demo Configuration ########";

/// A DN from its RFC 4514 string (most specific first, as OpenSearch prints them); the
/// attributes are encoded in the reverse order, root first. Values must not hold commas, and
/// an attribute type given twice keeps its last value (rcgen holds one per type).
pub fn dn(rfc4514: &str) -> DistinguishedName {
    let mut d = DistinguishedName::new();
    for part in rfc4514.split(',').rev() {
        let Some((k, v)) = part.split_once('=') else { continue };
        let t = match k.trim() {
            "CN" => DnType::CommonName,
            "OU" => DnType::OrganizationalUnitName,
            "O" => DnType::OrganizationName,
            "L" => DnType::LocalityName,
            "C" => DnType::CountryName,
            "ST" => DnType::StateOrProvinceName,
            "DC" => DnType::CustomDnType(vec![0, 9, 2342, 19200300, 100, 1, 25]),
            _ => continue,
        };
        d.push(t, v.trim());
    }
    d
}

/// The current year (UTC), for validity periods.
fn this_year() -> i32 {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    1970 + (secs / 31_556_952) as i32
}

/// A certificate authority that can issue certificates.
pub struct Ca {
    pub cert: rcgen::Certificate,
    pub key: KeyPair,
}

impl std::fmt::Debug for Ca {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Ca")
    }
}

/// A generated certificate and its key, PEM-encoded.
#[derive(Debug)]
pub struct Issued {
    pub cert_pem: String,
    pub key_pem: String,
}

impl Ca {
    /// A self-signed CA with subject `subject`, valid from last year for ten years.
    pub fn generate(subject: &str) -> Result<Ca, rcgen::Error> {
        let key = KeyPair::generate()?;
        let mut p = CertificateParams::default();
        p.distinguished_name = dn(subject);
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        p.not_before = rcgen::date_time_ymd(this_year() - 1, 1, 1);
        p.not_after = rcgen::date_time_ymd(this_year() + 10, 1, 1);
        let cert = p.self_signed(&key)?;
        Ok(Ca { cert, key })
    }

    /// A leaf certificate for `subject` with DNS/IP subject alternative names, usable as TLS
    /// server and client (transport TLS uses the node certificate both ways). `not_after_year`
    /// sets the expiry (a past year gives an expired certificate, for tests).
    pub fn issue(&self, subject: &str, sans: &[&str], not_after_year: Option<i32>) -> Result<Issued, rcgen::Error> {
        let key = KeyPair::generate()?;
        let mut p = CertificateParams::default();
        p.distinguished_name = dn(subject);
        for s in sans {
            p.subject_alt_names.push(match s.parse::<std::net::IpAddr>() {
                Ok(ip) => SanType::IpAddress(ip),
                Err(_) => SanType::DnsName((*s).try_into()?),
            });
        }
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth, ExtendedKeyUsagePurpose::ClientAuth];
        let end = not_after_year.unwrap_or(this_year() + 10);
        p.not_before = rcgen::date_time_ymd(end.min(this_year()) - 2, 1, 1);
        p.not_after = rcgen::date_time_ymd(end, 1, 1);
        let cert = p.signed_by(&key, &self.cert, &self.key)?;
        Ok(Issued { cert_pem: cert.pem(), key_pem: key.serialize_pem() })
    }
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    std::fs::write(dir.join(name), text).map_err(|e| format!("cannot write [{}]: {e}", dir.join(name).display()))
}

/// Writes the demo CA, node and admin certificates into `dir`.
pub fn write_certificates(dir: &Path) -> Result<(), String> {
    let err = |e: rcgen::Error| format!("certificate generation failed: {e}");
    let ca = Ca::generate(ROOT_CA_DN).map_err(err)?;
    let node = ca.issue(NODE_DN, &["node-0.example.com", "localhost", "127.0.0.1", "::1"], None).map_err(err)?;
    let admin = ca.issue(ADMIN_DN, &[], None).map_err(err)?;
    write(dir, "root-ca.pem", &ca.cert.pem())?;
    write(dir, "esnode.pem", &node.cert_pem)?;
    write(dir, "esnode-key.pem", &node.key_pem)?;
    write(dir, "kirk.pem", &admin.cert_pem)?;
    write(dir, "kirk-key.pem", &admin.key_pem)?;
    Ok(())
}

/// The settings block appended to `fathom.yml` (the plugin's demo lines Fathom reads).
pub fn settings_block() -> String {
    format!(
        "\n{BEGIN}\n# WARNING: revise all the lines below before you go into production\n\
plugins.security.disabled: false\n\
plugins.security.ssl.transport.pemcert_filepath: esnode.pem\n\
plugins.security.ssl.transport.pemkey_filepath: esnode-key.pem\n\
plugins.security.ssl.transport.pemtrustedcas_filepath: root-ca.pem\n\
plugins.security.ssl.transport.enforce_hostname_verification: false\n\
plugins.security.ssl.http.enabled: true\n\
plugins.security.ssl.http.pemcert_filepath: esnode.pem\n\
plugins.security.ssl.http.pemkey_filepath: esnode-key.pem\n\
plugins.security.ssl.http.pemtrustedcas_filepath: root-ca.pem\n\
plugins.security.authcz.admin_dn:\n  - '{ADMIN_DN}'\n\
plugins.security.nodes_dn:\n  - '{NODE_DN}'\n\
plugins.security.allow_default_init_securityindex: true\n\
plugins.security.restapi.roles_enabled:\n  - all_access\n  - security_rest_api_access\n\
{END}\n"
    )
}

/// What `setup-security` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Installed,
    /// `fathom.yml` already held security settings: nothing was written.
    AlreadyConfigured,
}

/// The environment variable holding the initial `admin` password.
pub const ADMIN_PASSWORD_ENV: &str = "OPENSEARCH_INITIAL_ADMIN_PASSWORD";

/// The `admin` hash in the plugin's demo `internal_users.yml` (bcrypt of `admin`), replaced.
const DEMO_ADMIN_HASH: &str = "$2a$12$VcCDgh2NDk07JGN0rjGbM.Ad41qVR/YFJcgHp0UGns5JDymv..TOG";

/// Why `setup-security` failed.
#[derive(Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The initial admin password is missing or refused: the plugin prints this to standard
    /// output and exits with -1 (255).
    Password(String),
    /// Anything else (files, certificates).
    Other(String),
}

/// The plugin's refusal message for `password` (`SecuritySettingsConfigurer.updateAdminPassword`).
pub fn check_admin_password(password: Option<&str>) -> Result<&str, SetupError> {
    let password = match password {
        Some(p) if !p.is_empty() => p,
        _ => {
            return Err(SetupError::Password(format!(
                "No custom admin password found. Please provide a password via the environment variable {ADMIN_PASSWORD_ENV}."
            )))
        }
    };
    password::validate("admin", password).map_err(|e| {
        SetupError::Password(format!(
            "Password {password} failed validation: \"{}\". Please re-try with a minimum {} character password and must contain at least one uppercase letter, one lowercase letter, one digit, and one special character that is strong. Password strength can be tested here: https://lowe.github.io/tryzxcvbn",
            e.message(),
            password::MIN_LENGTH
        ))
    })?;
    Ok(password)
}

/// Writes the plugin's demo `opensearch-security/*.yml` into `dir`, the `admin` hash replaced by
/// bcrypt(`admin_password`). Files already there are left as they are (as the plugin, which
/// only updates an `admin` hash that is still the default one).
pub fn write_security_files(dir: &Path, admin_password: &str) -> Result<(), String> {
    let sec = dir.join(config::DIR);
    std::fs::create_dir_all(&sec).map_err(|e| format!("cannot create [{}]: {e}", sec.display()))?;
    for (name, text) in config::DEMO_FILES {
        if sec.join(name).exists() {
            continue;
        }
        let text = if name == "internal_users.yml" {
            text.replace(DEMO_ADMIN_HASH, &password::hash(admin_password)?)
        } else {
            text.to_string()
        };
        write(&sec, name, &text)?;
    }
    Ok(())
}

/// Installs the demo configuration into config directory `dir` (created if missing), with the
/// initial `admin` password (`OPENSEARCH_INITIAL_ADMIN_PASSWORD`) checked before anything is written.
pub fn setup(dir: &Path, admin_password: Option<&str>) -> Result<Outcome, SetupError> {
    std::fs::create_dir_all(dir).map_err(|e| SetupError::Other(format!("cannot create [{}]: {e}", dir.display())))?;
    let yml = dir.join("fathom.yml");
    let existing = match std::fs::read_to_string(&yml) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(SetupError::Other(format!("cannot read [{}]: {e}", yml.display()))),
    };
    if existing.contains("plugins.security") {
        return Ok(Outcome::AlreadyConfigured);
    }
    let password = check_admin_password(admin_password)?;
    write_security_files(dir, password).map_err(SetupError::Other)?;
    write_certificates(dir).map_err(SetupError::Other)?;
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&settings_block());
    write(dir, "fathom.yml", &text).map_err(SetupError::Other)?;
    Ok(Outcome::Installed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::NodeSettings;
    use crate::security::SecuritySettings;

    #[test]
    fn setup_writes_certificates_and_settings_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("fathom.yml"), "cluster.name: demo").unwrap();
        assert_eq!(setup(dir.path(), Some(GOOD)).unwrap(), Outcome::Installed);
        for f in ["root-ca.pem", "esnode.pem", "esnode-key.pem", "kirk.pem", "kirk-key.pem"] {
            assert!(dir.path().join(f).exists(), "{f}");
        }
        let settings = NodeSettings::load(Some(dir.path()), &[]).unwrap();
        assert_eq!(settings.get("cluster.name"), Some("demo"));
        let sec = SecuritySettings::from_node(&settings).unwrap().unwrap();
        assert_eq!(sec.admin_dn, vec![ADMIN_DN]);
        assert_eq!(sec.nodes_dn, vec![NODE_DN]);
        assert!(!sec.enforce_hostname_verification);
        assert_eq!(sec.http.unwrap().cert, dir.path().join("esnode.pem"));
        // The security files, with the admin hash of the given password; they load.
        let cfg = config::SecurityConfig::load_dir(&dir.path().join(config::DIR)).unwrap();
        let hash = &cfg.internal_users.entries["admin"].hash;
        assert!(hash.starts_with("$2y$12$"), "{hash}");
        assert!(password::verify(GOOD, hash));
        assert!(!password::verify("admin", hash));
        // A second run changes nothing.
        let before = std::fs::read(dir.path().join("root-ca.pem")).unwrap();
        assert_eq!(setup(dir.path(), None).unwrap(), Outcome::AlreadyConfigured);
        assert_eq!(std::fs::read(dir.path().join("root-ca.pem")).unwrap(), before);
    }

    const GOOD: &str = "myStrongPassword123!";

    #[test]
    fn missing_or_weak_password_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let err = setup(dir.path(), None).unwrap_err();
        assert_eq!(
            err,
            SetupError::Password(
                "No custom admin password found. Please provide a password via the environment variable OPENSEARCH_INITIAL_ADMIN_PASSWORD.".into()
            )
        );
        let SetupError::Password(msg) = setup(dir.path(), Some("admin")).unwrap_err() else {
            panic!("not a password error")
        };
        assert!(
            msg.starts_with(
                "Password admin failed validation: \"Password is too short\". Please re-try with a minimum 8 character"
            ),
            "{msg}"
        );
        assert!(!dir.path().join("fathom.yml").exists());
        assert!(!dir.path().join(config::DIR).exists());
    }

    #[test]
    fn dn_encodes_root_first() {
        let d = dn(NODE_DN);
        let types: Vec<_> = d.iter().map(|(t, _)| t.clone()).collect();
        assert_eq!(types.first(), Some(&DnType::CustomDnType(vec![0, 9, 2342, 19200300, 100, 1, 25])));
        assert_eq!(types.last(), Some(&DnType::CommonName));
    }
}
