//! TLS with rustls (ring provider): PEM certificates and keys from disk, and the server
//! configuration of the HTTPS listener (client certificates NONE/OPTIONAL/REQUIRE, verified
//! against the trusted CAs). Every failure is a startup error naming the file, never a panic.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};

use super::settings::{ClientAuth, TlsFiles};

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificates of a PEM file (at least one).
pub fn load_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| format!("cannot read certificates from [{}]: {e}", path.display()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("invalid PEM certificate in [{}]: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!("no certificate found in [{}]", path.display()));
    }
    Ok(certs)
}

/// The private key of a PEM file (PKCS#8, PKCS#1 or SEC1).
pub fn load_key(path: &Path) -> Result<PrivateKeyDer<'static>, String> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| format!("cannot read a private key from [{}]: {e}", path.display()))
}

/// A root store of the CAs in a PEM file.
pub fn load_roots(path: &Path) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    for c in load_certs(path)? {
        roots.add(c).map_err(|e| format!("invalid CA certificate in [{}]: {e}", path.display()))?;
    }
    Ok(roots)
}

/// The rustls configuration of the HTTPS listener (HTTP/1.1 by ALPN).
pub fn http_server_config(tls: &TlsFiles) -> Result<Arc<ServerConfig>, String> {
    let certs = load_certs(&tls.cert)?;
    let key = load_key(&tls.key)?;
    let builder = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup failed: {e}"))?;
    let builder = match (tls.client_auth, &tls.trusted_cas) {
        (ClientAuth::None, _) | (_, None) => builder.with_no_client_auth(),
        (mode, Some(cas)) => {
            let roots = Arc::new(load_roots(cas)?);
            let v = WebPkiClientVerifier::builder_with_provider(roots, provider());
            let v = if mode == ClientAuth::Optional { v.allow_unauthenticated() } else { v };
            builder.with_client_cert_verifier(v.build().map_err(|e| format!("TLS setup failed: {e}"))?)
        }
    };
    let mut config = builder.with_single_cert(certs, key).map_err(|e| {
        format!(
            "the certificate [{}] and key [{}] do not form a valid pair: {e}",
            tls.cert.display(),
            tls.key.display()
        )
    })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::demo;

    #[test]
    fn loads_the_demo_certificates() {
        let dir = tempfile::tempdir().unwrap();
        demo::write_certificates(dir.path()).unwrap();
        let tls = TlsFiles {
            cert: dir.path().join("esnode.pem"),
            key: dir.path().join("esnode-key.pem"),
            trusted_cas: Some(dir.path().join("root-ca.pem")),
            client_auth: ClientAuth::Require,
        };
        assert!(http_server_config(&tls).is_ok());
        // A key that is not the certificate's is refused with both files named.
        let bad = TlsFiles { key: dir.path().join("kirk-key.pem"), ..tls.clone() };
        let e = http_server_config(&bad).unwrap_err();
        assert!(e.contains("kirk-key.pem"), "{e}");
        let missing = TlsFiles { cert: dir.path().join("nope.pem"), ..tls.clone() };
        assert!(http_server_config(&missing).unwrap_err().contains("nope.pem"));
        std::fs::write(dir.path().join("garbage.pem"), "not pem").unwrap();
        let garbage = TlsFiles { trusted_cas: Some(dir.path().join("garbage.pem")), ..tls };
        assert!(http_server_config(&garbage).unwrap_err().contains("garbage.pem"));
    }
}
