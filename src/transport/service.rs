//! The transport service: binding, accepting, outbound connections, requests, handlers.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use bytes::Bytes;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::connection::{answer, Connection};
use super::error::TransportError;
use super::faults::Faults;
use super::frame::{Frame, FrameKind};
use super::handshake::{HandshakeInfo, RemoteNode, NODE_VERSION};
use super::stats::{Counters, TransportStats};
use crate::error::{ErrorKind, OsError};

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A request handler: gets the request, answers with the response payload or an error (which
/// reaches the caller as [`TransportError::Remote`]).
pub type Handler = Arc<dyn Fn(Inbound) -> BoxFuture<'static, Result<Bytes, OsError>> + Send + Sync>;

/// Wraps an async fn or closure as a [`Handler`].
pub fn handler<F, Fut>(f: F) -> Handler
where
    F: Fn(Inbound) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Bytes, OsError>> + Send + 'static,
{
    Arc::new(move |req| Box::pin(f(req)))
}

/// Separates a request frame's action name from the sender's parent task id.
pub const PARENT_SEPARATOR: char = '\0';

/// A request frame's action field split into the action name and the parent task id.
pub fn split_action(field: &str) -> (&str, Option<&str>) {
    match field.split_once(PARENT_SEPARATOR) {
        Some((a, p)) => (a, Some(p)),
        None => (field, None),
    }
}

/// A request as its handler sees it.
#[derive(Debug, Clone)]
pub struct Inbound {
    pub action: String,
    /// The sender's task this request is a child of (`node:id`), when it named one.
    pub parent_task: Option<String>,
    pub payload: Bytes,
    /// The sender, as its handshake described it.
    pub from: RemoteNode,
}

/// How a transport binds and identifies itself.
#[derive(Debug, Clone)]
pub struct TransportConfig {
    pub cluster_name: String,
    pub node_id: String,
    pub node_name: String,
    /// The address to bind (loopback unless security is on).
    pub host: String,
    /// `transport.port`: a port (`9300`), a range (`9300-9399`, the first free one is taken) or
    /// `0` (ephemeral).
    pub port_spec: String,
    /// `transport.compress`: zstd for payloads over [`super::COMPRESS_THRESHOLD`].
    pub compress: bool,
    /// Mutual TLS under the frames (security on): `None` is plain TCP.
    pub tls: Option<TransportTls>,
}

/// The rustls configurations of transport TLS (built by `security::node_tls`, which checks the
/// peer's certificate against the CA and `plugins.security.nodes_dn`).
#[derive(Clone)]
pub struct TransportTls {
    pub acceptor: tokio_rustls::TlsAcceptor,
    pub connector: tokio_rustls::TlsConnector,
}

impl std::fmt::Debug for TransportTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TransportTls")
    }
}

/// How long an inbound connection has to finish its TLS handshake.
const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            cluster_name: "fathom".into(),
            node_id: String::new(),
            node_name: String::new(),
            host: "127.0.0.1".into(),
            port_spec: "9300-9399".into(),
            compress: true,
            tls: None,
        }
    }
}

/// What the connections share with the service.
pub(crate) struct Shared {
    pub config: TransportConfig,
    pub local: RemoteNode,
    pub faults: Faults,
    pub counters: Counters,
    handlers: RwLock<HashMap<String, Handler>>,
    conns: Mutex<HashMap<u64, Arc<Connection>>>,
    next_conn: AtomicU64,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("local", &self.local).finish_non_exhaustive()
    }
}

impl Shared {
    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }
    pub fn track(&self, c: &Arc<Connection>) {
        self.conns.lock().unwrap_or_else(|e| e.into_inner()).insert(c.id, c.clone());
    }
    pub fn untrack(&self, id: u64) {
        self.conns.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }
    pub fn handler(&self, action: &str) -> Option<Handler> {
        self.handlers.read().unwrap_or_else(|e| e.into_inner()).get(action).cloned()
    }
}

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Connection>>>>;

/// The node's transport. Share it as `Arc<Transport>`.
pub struct Transport {
    shared: Arc<Shared>,
    outbound: Mutex<HashMap<SocketAddr, Slot>>,
    accept: Mutex<Option<JoinHandle<()>>>,
    next_request: AtomicU64,
    closed: AtomicBool,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport").field("local", &self.shared.local).finish_non_exhaustive()
    }
}

/// Parses `transport.port`: `9300`, `9300-9399` or `0`.
pub fn parse_port_spec(spec: &str) -> Result<(u16, u16), OsError> {
    let bad = || OsError::illegal(format!("Failed to parse port range [{spec}] for transport.port"));
    let (lo, hi) = match spec.split_once('-') {
        Some((a, b)) => (a.trim().parse::<u16>().map_err(|_| bad())?, b.trim().parse::<u16>().map_err(|_| bad())?),
        None => {
            let p = spec.trim().parse::<u16>().map_err(|_| bad())?;
            (p, p)
        }
    };
    if hi < lo {
        return Err(bad());
    }
    Ok((lo, hi))
}

/// Guard that closes a connection whose handshake did not finish (cancelled or failed).
struct CloseUnlessKept(Option<Arc<Connection>>);

impl Drop for CloseUnlessKept {
    fn drop(&mut self) {
        if let Some(c) = self.0.take() {
            c.close("handshake did not complete");
        }
    }
}

impl Transport {
    /// Binds the first free port of `port_spec` on `host` and starts accepting connections.
    pub async fn bind(cfg: TransportConfig) -> Result<Arc<Transport>, OsError> {
        let (lo, hi) = parse_port_spec(&cfg.port_spec)?;
        let host = if cfg.host == "localhost" || cfg.host == "_local_" { "127.0.0.1" } else { cfg.host.as_str() };
        let ip: std::net::IpAddr = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|e| OsError::illegal(format!("invalid transport host [{host}]: {e}")))?;
        let mut last = String::new();
        let mut listener = None;
        for port in lo..=hi {
            match TcpListener::bind(SocketAddr::new(ip, port)).await {
                Ok(l) => {
                    listener = Some(l);
                    break;
                }
                Err(e) => last = e.to_string(),
            }
        }
        let listener = listener.ok_or_else(|| {
            OsError::new(ErrorKind::BindTransport, format!("Failed to bind to {host}:[{}]", cfg.port_spec))
                .caused_by(OsError::new(ErrorKind::Io, last))
        })?;
        let address = listener.local_addr().map_err(|e| OsError::new(ErrorKind::Io, e.to_string()))?;
        let local = RemoteNode {
            node_id: cfg.node_id.clone(),
            node_name: cfg.node_name.clone(),
            cluster_name: cfg.cluster_name.clone(),
            version: NODE_VERSION.into(),
            address,
        };
        let shared = Arc::new(Shared {
            config: cfg,
            local,
            faults: Faults::default(),
            counters: Counters::default(),
            handlers: RwLock::new(HashMap::new()),
            conns: Mutex::new(HashMap::new()),
            next_conn: AtomicU64::new(1),
        });
        let s = shared.clone();
        let accept = tokio::spawn(async move {
            loop {
                match listener.accept().await {
                    Ok((stream, peer)) => match s.config.tls.clone() {
                        None => {
                            Connection::spawn(s.clone(), stream, peer, false);
                        }
                        Some(tls) => {
                            let s = s.clone();
                            tokio::spawn(async move {
                                let _ = stream.set_nodelay(true);
                                match tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, tls.acceptor.accept(stream)).await {
                                    Ok(Ok(stream)) => {
                                        Connection::spawn_tls(s, stream, peer, false);
                                    }
                                    Ok(Err(e)) => tracing::warn!(%peer, error = %e, "transport TLS handshake refused"),
                                    Err(_) => tracing::warn!(%peer, "transport TLS handshake timed out"),
                                }
                            });
                        }
                    },
                    Err(e) => {
                        // Out of descriptors and the like: wait a little instead of spinning.
                        tracing::warn!("transport accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            }
        });
        Ok(Arc::new(Transport {
            shared,
            outbound: Mutex::new(HashMap::new()),
            accept: Mutex::new(Some(accept)),
            next_request: AtomicU64::new(1),
            closed: AtomicBool::new(false),
        }))
    }

    /// The bound address.
    pub fn local_address(&self) -> SocketAddr {
        self.shared.local.address
    }

    /// This node as its handshakes describe it.
    pub fn local_node(&self) -> &RemoteNode {
        &self.shared.local
    }

    /// Registers (or replaces) the handler of `action`.
    pub fn register(&self, action: &str, handler: Handler) {
        self.shared.handlers.write().unwrap_or_else(|e| e.into_inner()).insert(action.to_string(), handler);
    }

    /// Registers an async fn or closure as the handler of `action`.
    pub fn register_fn<F, Fut>(&self, action: &str, f: F)
    where
        F: Fn(Inbound) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Bytes, OsError>> + Send + 'static,
    {
        self.register(action, handler(f));
    }

    /// The fault-injection rules of this transport.
    pub fn faults(&self) -> &Faults {
        &self.shared.faults
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> TransportStats {
        self.shared.counters.snapshot()
    }

    /// Connects to `addr` if needed and returns the node there.
    pub async fn handshake(&self, addr: SocketAddr, timeout: Duration) -> Result<RemoteNode, TransportError> {
        let deadline = Instant::now() + timeout;
        let conn = self.connection(addr, deadline, timeout).await?;
        conn.remote().cloned().ok_or(TransportError::Disconnected { addr })
    }

    /// Sends `payload` to `action` on the node at `addr` and waits up to `timeout` (connecting
    /// included) for the answer.
    pub async fn request(
        &self,
        addr: SocketAddr,
        action: &str,
        payload: Bytes,
        timeout: Duration,
    ) -> Result<Bytes, TransportError> {
        self.request_as_child(addr, action, None, payload, timeout).await
    }

    /// [`Transport::request`] on behalf of the sender's task `parent` (`node:id`): the frame's
    /// action field carries it after a NUL (`action\0node:id`, see `format/transport.md`), so
    /// the receiver's task for the request points at it.
    pub async fn request_as_child(
        &self,
        addr: SocketAddr,
        action: &str,
        parent: Option<&str>,
        payload: Bytes,
        timeout: Duration,
    ) -> Result<Bytes, TransportError> {
        let deadline = Instant::now() + timeout;
        let conn = self.connection(addr, deadline, timeout).await?;
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let rx = conn.register(id)?;
        let wire_action = match parent {
            Some(p) => format!("{action}{PARENT_SEPARATOR}{p}"),
            None => action.to_string(),
        };
        let frame = Frame { kind: FrameKind::Request, request_id: id, action: wire_action, payload };
        let exchange = async {
            conn.deliver(frame).await?;
            rx.await.map_err(|_| TransportError::Disconnected { addr })?
        };
        match tokio::time::timeout_at(deadline, exchange).await {
            Ok(Ok(f)) => answer(f, action),
            Ok(Err(e)) => {
                conn.unregister(id);
                Err(e)
            }
            Err(_) => {
                conn.unregister(id);
                Err(TransportError::Timeout {
                    action: action.to_string(),
                    addr,
                    after: timeout,
                    node: conn.remote().map(|r| r.node_name.clone()).unwrap_or_default(),
                    request_id: id,
                })
            }
        }
    }

    /// The open connection to `addr`, or a new one (connect and handshake) before `deadline`.
    async fn connection(
        &self,
        addr: SocketAddr,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Arc<Connection>, TransportError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(TransportError::Connect { addr, reason: "transport is closed".into() });
        }
        let slot = self.outbound.lock().unwrap_or_else(|e| e.into_inner()).entry(addr).or_default().clone();
        let open = async {
            let mut g = slot.lock().await;
            if let Some(c) = g.as_ref().filter(|c| !c.is_closed()) {
                return Ok(c.clone());
            }
            let c = self.connect(addr).await?;
            *g = Some(c.clone());
            Ok(c)
        };
        match tokio::time::timeout_at(deadline, open).await {
            Ok(r) => r,
            Err(_) => {
                Err(TransportError::Connect { addr, reason: format!("connect_timeout[{}ms]", timeout.as_millis()) })
            }
        }
    }

    async fn connect(&self, addr: SocketAddr) -> Result<Arc<Connection>, TransportError> {
        let stream = TcpStream::connect(addr)
            .await
            .map_err(|e| TransportError::Connect { addr, reason: format!("connect_exception: {e}") })?;
        if self.closed.load(Ordering::Acquire) {
            return Err(TransportError::Connect { addr, reason: "transport is closed".into() });
        }
        let conn = match &self.shared.config.tls {
            None => Connection::spawn(self.shared.clone(), stream, addr, true),
            Some(tls) => {
                let _ = stream.set_nodelay(true);
                let name = rustls::pki_types::ServerName::IpAddress(addr.ip().into());
                let stream = tls.connector.connect(name, stream).await.map_err(|e| TransportError::Connect {
                    addr,
                    reason: format!("connect_exception: TLS handshake failed: {e}"),
                })?;
                Connection::spawn_tls(self.shared.clone(), stream, addr, true)
            }
        };
        let mut guard = CloseUnlessKept(Some(conn.clone()));
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let rx = conn.register(id)?;
        let hello = Frame {
            kind: FrameKind::HandshakeRequest,
            request_id: id,
            action: String::new(),
            payload: HandshakeInfo::local(&self.shared.local).encode().into(),
        };
        conn.deliver(hello).await?;
        let closed = || TransportError::Connect { addr, reason: "handshake failed: connection closed".into() };
        let reply = rx.await.map_err(|_| closed())?.map_err(|_| closed())?;
        if reply.kind != FrameKind::HandshakeResponse {
            return Err(TransportError::Handshake { addr, reason: format!("unexpected [{:?}] frame", reply.kind) });
        }
        let info =
            HandshakeInfo::decode(&reply.payload).map_err(|reason| TransportError::Handshake { addr, reason })?;
        info.check(&self.shared.local.cluster_name).map_err(|reason| TransportError::Handshake { addr, reason })?;
        conn.set_remote(info.node);
        guard.0 = None;
        Ok(conn)
    }

    /// Whether an open, handshaken outbound connection to `addr` exists.
    pub fn is_connected(&self, addr: SocketAddr) -> bool {
        let slot = self.outbound.lock().unwrap_or_else(|e| e.into_inner()).get(&addr).cloned();
        let conn = slot.and_then(|s| s.try_lock().ok().and_then(|g| g.clone()));
        conn.is_some_and(|c| !c.is_closed() && c.remote().is_some())
    }

    /// Closes the outbound connection to `addr` (its pending requests fail with
    /// `Disconnected`); the next request reconnects.
    pub fn disconnect(&self, addr: SocketAddr) {
        let slot = self.outbound.lock().unwrap_or_else(|e| e.into_inner()).remove(&addr);
        if let Some(c) = slot.and_then(|s| s.try_lock().ok().and_then(|g| g.clone())) {
            c.close("disconnected by this node");
        }
    }

    /// Whether [`Transport::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Stops accepting, closes every connection and fails the pending requests (`Disconnected`).
    pub async fn close(&self) {
        let accept = self.shutdown();
        if let Some(h) = accept {
            let _ = h.await;
        }
    }

    fn shutdown(&self) -> Option<JoinHandle<()>> {
        self.closed.store(true, Ordering::Release);
        let accept = self.accept.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = &accept {
            h.abort();
        }
        let conns: Vec<Arc<Connection>> =
            self.shared.conns.lock().unwrap_or_else(|e| e.into_inner()).values().cloned().collect();
        for c in conns {
            c.close("transport closed");
        }
        self.outbound.lock().unwrap_or_else(|e| e.into_inner()).clear();
        accept
    }
}

impl Drop for Transport {
    fn drop(&mut self) {
        self.shutdown();
    }
}
