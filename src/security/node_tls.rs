//! Transport TLS between nodes (mutual): each node presents its node certificate
//! (`plugins.security.ssl.transport.pemcert_filepath`) both as server and as client; the peer's
//! chain must verify against `pemtrustedcas_filepath`, and its subject DN must match one of
//! `plugins.security.nodes_dn` (when set; the plugin also accepts certificates carrying its node
//! OID, which Fathom's certificates do not: without `nodes_dn` every certificate of the CA is a
//! node). The host name is checked only with `enforce_hostname_verification: true` (the demo
//! turns it off). Refusals are logged with the peer's DN.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::server::WebPkiClientVerifier;
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, DistinguishedName, ServerConfig, SignatureScheme};

use super::dn;
use super::settings::SecuritySettings;
use super::tls::{load_certs, load_key, load_roots};

/// The rustls configurations of a node's transport: accepting and dialling.
#[derive(Debug, Clone)]
pub struct NodeTls {
    pub server: Arc<ServerConfig>,
    pub client: Arc<ClientConfig>,
}

/// Whether `cert`'s subject is one of the node DNs (any certificate when none are configured).
fn check_node(nodes_dn: &[String], cert: &CertificateDer<'_>) -> Result<(), rustls::Error> {
    if nodes_dn.is_empty() {
        return Ok(());
    }
    let subject = dn::subject_dn(cert);
    match &subject {
        Some(s) if nodes_dn.iter().any(|p| dn::matches(p, s)) => Ok(()),
        _ => {
            let shown = subject.as_deref().unwrap_or("<unreadable subject>");
            tracing::warn!(
                dn = shown,
                "transport connection refused: the certificate's DN is not in plugins.security.nodes_dn"
            );
            Err(rustls::Error::General(format!("[{shown}] is not a node DN (plugins.security.nodes_dn)")))
        }
    }
}

#[derive(Debug)]
struct NodeClientVerifier {
    inner: Arc<dyn ClientCertVerifier>,
    nodes_dn: Vec<String>,
}

impl ClientCertVerifier for NodeClientVerifier {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.inner.verify_client_cert(end_entity, intermediates, now)?;
        check_node(&self.nodes_dn, end_entity)?;
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

#[derive(Debug)]
struct NodeServerVerifier {
    inner: Arc<WebPkiServerVerifier>,
    nodes_dn: Vec<String>,
    enforce_hostname: bool,
}

impl ServerCertVerifier for NodeServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Ok(_) => {}
            // The chain verified before the name was checked.
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.enforce_hostname => {}
            Err(e) => return Err(e),
        }
        check_node(&self.nodes_dn, end_entity)?;
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// Both transport configurations from the security settings; errors name the file at fault.
pub fn node_tls(sec: &SecuritySettings) -> Result<NodeTls, String> {
    let t = &sec.transport;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs = load_certs(&t.cert)?;
    let key = load_key(&t.key)?;
    let cas = t.trusted_cas.as_ref().ok_or("[plugins.security.ssl.transport.pemtrustedcas_filepath] is not set")?;
    let roots = Arc::new(load_roots(cas)?);
    let setup = |e: &dyn std::fmt::Display| format!("transport TLS setup failed: {e}");
    let pair = |e: rustls::Error| {
        format!("the certificate [{}] and key [{}] do not form a valid pair: {e}", t.cert.display(), t.key.display())
    };
    let inner =
        WebPkiClientVerifier::builder_with_provider(roots.clone(), provider.clone()).build().map_err(|e| setup(&e))?;
    let server = ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| setup(&e))?
        .with_client_cert_verifier(Arc::new(NodeClientVerifier { inner, nodes_dn: sec.nodes_dn.clone() }))
        .with_single_cert(certs.clone(), key.clone_key())
        .map_err(pair)?;
    let inner = WebPkiServerVerifier::builder_with_provider(roots, provider.clone()).build().map_err(|e| setup(&e))?;
    let client = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| setup(&e))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(NodeServerVerifier {
            inner,
            nodes_dn: sec.nodes_dn.clone(),
            enforce_hostname: sec.enforce_hostname_verification,
        }))
        .with_client_auth_cert(certs, key)
        .map_err(pair)?;
    Ok(NodeTls { server: Arc::new(server), client: Arc::new(client) })
}
