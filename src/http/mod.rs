//! http/: the REST layer (feature `server`): a hyper 1.x server, the route table, request
//! parsing, rendering and OpenSearch's error bodies.
//!
//! | file | holds |
//! |---|---|
//! | `server.rs` | accept loop, body limits, gzip, dispatch to thread pools, response rendering |
//! | `security_gate.rs` | security on: authentication before, authorization of the route's action on the pool |
//! | `router.rs` | the route table, 405s, unknown-parameter rejection |
//! | `request.rs` | the request handlers see, typed parameter accessors |
//! | `render.rs` | JSON/YAML rendering, `filter_path` |
//! | `error_trace.rs` | `stack_trace` fields for `error_trace=true` |
//! | `binary_formats.rs` | `format=cbor` and `format=smile` |
//! | `cat.rs` | the CAT table renderer |
//! | `handlers/` | one file per API group |

pub(crate) mod binary_formats;
pub(crate) mod cat;
pub(crate) mod error_trace;
pub(crate) mod handlers;
pub(crate) mod render;
pub(crate) mod request;
pub(crate) mod router;
pub(crate) mod security_gate;
pub(crate) mod server;

use std::net::SocketAddr;
use std::sync::Arc;

use crate::node::{is_loopback, Node, NodeSettings};

/// Binds the HTTP port: `http.port` (a number or a range `9200-9299`), first free port.
pub async fn bind(settings: &NodeSettings) -> Result<tokio::net::TcpListener, String> {
    let host = settings.get_or("network.host", "127.0.0.1");
    let host = if host == "localhost" || host == "_local_" { "127.0.0.1" } else { host };
    let spec = settings.get_or("http.port", "9200-9299");
    let (lo, hi) = match spec.split_once('-') {
        Some((a, b)) => (
            a.trim().parse::<u16>().map_err(|_| format!("invalid http.port [{spec}]"))?,
            b.trim().parse::<u16>().map_err(|_| format!("invalid http.port [{spec}]"))?,
        ),
        None => {
            let p = spec.trim().parse::<u16>().map_err(|_| format!("invalid http.port [{spec}]"))?;
            (p, p)
        }
    };
    let mut last = String::new();
    for port in lo..=hi.max(lo) {
        let addr: SocketAddr =
            format!("{}:{port}", if host.contains(':') { format!("[{host}]") } else { host.to_string() })
                .parse()
                .map_err(|e| format!("invalid network.host [{host}]: {e}"))?;
        match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => return Ok(l),
            Err(e) => last = format!("{addr}: {e}"),
        }
    }
    Err(format!("failed to bind the HTTP port in range [{spec}]: {last}"))
}

/// Refuses to start on a non-loopback address unless security is on with HTTP TLS (node-to-node
/// transport is then mutual TLS too): without security Fathom serves only on loopback.
/// With security on every request is authenticated and authorized (`security_gate.rs`).
/// Every route of the REST table as (method, path pattern, action name): for the tests that
/// go through every endpoint (the security matrix) and for tools.
pub fn route_table() -> Vec<(&'static str, &'static str, &'static str)> {
    handlers::router().routes().iter().map(|r| (r.method.name(), r.pattern, r.action)).collect()
}

pub fn check_bind_address(settings: &NodeSettings) -> Result<(), String> {
    let host = settings.get_or("network.host", "127.0.0.1");
    if !is_loopback(host) {
        if settings.get("plugins.security.disabled") == Some("false") {
            if settings.get("plugins.security.ssl.http.enabled") == Some("true") {
                return Ok(());
            }
            return Err(format!(
                "refusing to bind to [{host}]: security is enabled but [plugins.security.ssl.http.enabled] is not true, so Fathom serves only on loopback (127.0.0.1). Enable HTTP TLS or set network.host to 127.0.0.1."
            ));
        }
        return Err(format!(
            "refusing to bind to [{host}]: security is not enabled, so Fathom serves only on loopback (127.0.0.1). Remove network.host or set it to 127.0.0.1."
        ));
    }
    Ok(())
}

/// The TLS acceptor of the HTTP listener when security is on with `ssl.http.enabled`; `None`
/// (plain HTTP) otherwise. Bad security settings or unreadable certificates stop the start.
fn tls_acceptor(settings: &NodeSettings) -> Result<Option<Arc<rustls::ServerConfig>>, String> {
    let Some(security) = crate::security::SecuritySettings::from_node(settings)? else { return Ok(None) };
    // The transport certificates are checked before the node opens its data.
    crate::security::node_tls::node_tls(&security)?;
    match &security.http {
        Some(http) => Ok(Some(crate::security::tls::http_server_config(http)?)),
        None => Ok(None),
    }
}

/// With security on, the configuration bootstrapped from `$conf/opensearch-security/*.yml`,
/// checked before the node opens its data: a broken file stops the start, naming file and key.
fn security_service(settings: &NodeSettings) -> Result<Option<Arc<crate::security::config::SecurityService>>, String> {
    if crate::security::SecuritySettings::from_node(settings)?.is_none() {
        return Ok(None);
    }
    let conf = settings.conf_dir();
    if !conf.join(crate::security::config::DIR).is_dir() {
        // As the plugin without its configuration: the node runs, security not initialized.
        tracing::warn!(dir = %conf.join(crate::security::config::DIR).display(), "no security configuration directory: security not initialized");
        return Ok(None);
    }
    let svc = crate::security::config::SecurityService::from_conf_dir(&conf)
        .map_err(|e| format!("security configuration: {e}"))?;
    tracing::info!(dir = %svc.dir().display(), users = svc.current().internal_users.entries.len(), "security configuration loaded");
    Ok(Some(Arc::new(svc)))
}

/// A started server: the node, its address, and a handle to stop it.
#[derive(Debug)]
pub struct Running {
    pub node: Arc<Node>,
    pub addr: SocketAddr,
    /// The listener speaks TLS (security on with `plugins.security.ssl.http.enabled`).
    pub https: bool,
    /// The node's transport and coordination.
    pub cluster: crate::node::cluster_start::ClusterLink,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// Stops accepting connections, then shuts the node down (flushes every shard).
    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
        self.cluster.coordinator.shutdown().await;
        self.cluster.transport.close().await;
        let node = self.node.clone();
        let _ = tokio::task::spawn_blocking(move || node.shutdown()).await;
    }
}

/// Starts a node and its HTTP server on the current tokio runtime.
pub async fn start(settings: NodeSettings) -> Result<Running, String> {
    check_bind_address(&settings)?;
    let tls = tls_acceptor(&settings)?;
    let security = security_service(&settings)?;
    let authn = security_gate::authenticator(&settings)?;
    let listener = bind(&settings).await?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let s2 = settings.clone();
    let node = tokio::task::spawn_blocking(move || Node::start_with(s2, addr.to_string(), false))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    if let Some(svc) = security {
        let _ = node.security.set(svc);
    }
    let cluster = crate::node::cluster_start::start(&node).await.map_err(|e| e.reason.clone())?;
    crate::node::security_sync::start_loader(&node)?;
    let https = tls.is_some();
    let server = Arc::new(server::Server { node: node.clone(), router: handlers::router(), tls, authn });
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server::serve(server, listener, async move {
        let _ = rx.await;
    }));
    tracing::info!(address = %addr, "started");
    Ok(Running { node, addr, https, cluster, stop: Some(tx), task: Some(task) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_loopback_bind_is_refused() {
        let s = NodeSettings::from_pairs(&[("network.host", "0.0.0.0")]);
        let e = check_bind_address(&s).unwrap_err();
        assert!(e.contains("security is not enabled"), "{e}");
        assert!(check_bind_address(&NodeSettings::from_pairs(&[("network.host", "127.0.0.1")])).is_ok());
        assert!(check_bind_address(&NodeSettings::from_pairs(&[])).is_ok());
        // Security on opens other addresses only with HTTP TLS.
        let s = NodeSettings::from_pairs(&[("network.host", "0.0.0.0"), ("plugins.security.disabled", "false")]);
        let e = check_bind_address(&s).unwrap_err();
        assert!(e.contains("plugins.security.ssl.http.enabled"), "{e}");
        let s = NodeSettings::from_pairs(&[
            ("network.host", "0.0.0.0"),
            ("plugins.security.disabled", "false"),
            ("plugins.security.ssl.http.enabled", "true"),
        ]);
        assert!(check_bind_address(&s).is_ok());
    }

    #[test]
    fn ports_bind_in_range() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let a = bind(&NodeSettings::from_pairs(&[("http.port", "0")])).await.unwrap();
            let port = a.local_addr().unwrap().port();
            // The taken port is skipped: a range starting at it binds the next free one.
            let spec = format!("{port}-{}", port.saturating_add(20));
            let b = bind(&NodeSettings::from_pairs(&[("http.port", spec.as_str())])).await.unwrap();
            assert_ne!(b.local_addr().unwrap().port(), port);
            assert!(bind(&NodeSettings::from_pairs(&[("http.port", "x")])).await.is_err());
        });
    }
}
