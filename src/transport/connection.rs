//! One TCP connection to a peer: a reader task that decodes frames and dispatches them, a writer
//! task that owns the socket's write half, and the requests waiting for their responses.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use super::error::{decode_os_error, encode_os_error, no_handler, TransportError};
use super::faults::{Direction, Verdict};
use super::frame::{self, Decoded, Frame, FrameKind, FLAG_COMPRESSED};
use super::handshake::{HandshakeInfo, RemoteNode};
use super::{Inbound, Shared};
use crate::error::{ErrorKind, OsError};

/// How long an accepted connection may take to send its handshake.
pub const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(30);
/// Frames queued for the writer before senders wait.
const WRITE_QUEUE: usize = 1024;
/// Largest read-buffer growth at once (a frame's declared length is not trusted for more).
const READ_CHUNK: usize = 4 * 1024 * 1024;

type Pending = oneshot::Sender<Result<Frame, TransportError>>;

enum Out {
    Frame(Bytes),
    /// Close the connection once everything queued before has been written.
    Close(String),
}

#[derive(Debug)]
pub(crate) struct Connection {
    pub id: u64,
    /// The socket's peer address (the dialed address for outbound connections).
    pub peer: SocketAddr,
    pub outbound: bool,
    remote: OnceLock<RemoteNode>,
    tx: mpsc::Sender<Out>,
    pending: Mutex<(bool, HashMap<u64, Pending>)>,
    closed: AtomicBool,
    tasks: Mutex<Vec<AbortHandle>>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Out::Frame(b) => write!(f, "Frame({} bytes)", b.len()),
            Out::Close(r) => write!(f, "Close({r})"),
        }
    }
}

impl Connection {
    /// Starts the reader and writer tasks of a connected socket.
    pub fn spawn(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr, outbound: bool) -> Arc<Connection> {
        let _ = stream.set_nodelay(true);
        let (rd, wr) = stream.into_split();
        Connection::spawn_halves(shared, rd, wr, peer, outbound)
    }

    /// [`Connection::spawn`] over an established TLS stream (transport TLS, security on).
    pub fn spawn_tls<S>(shared: Arc<Shared>, stream: S, peer: SocketAddr, outbound: bool) -> Arc<Connection>
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
    {
        let (rd, wr) = tokio::io::split(stream);
        Connection::spawn_halves(shared, rd, wr, peer, outbound)
    }

    fn spawn_halves<R, W>(shared: Arc<Shared>, rd: R, mut wr: W, peer: SocketAddr, outbound: bool) -> Arc<Connection>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, mut rx) = mpsc::channel::<Out>(WRITE_QUEUE);
        let id = shared.next_conn_id();
        let conn = Arc::new(Connection {
            id,
            peer,
            outbound,
            remote: OnceLock::new(),
            tx,
            pending: Mutex::new((false, HashMap::new())),
            closed: AtomicBool::new(false),
            tasks: Mutex::new(Vec::new()),
            shared: shared.clone(),
        });
        let counter = if outbound { &shared.counters.outbound_open } else { &shared.counters.server_open };
        counter.fetch_add(1, Ordering::Relaxed);
        shared.track(&conn);
        let c = conn.clone();
        let writer = tokio::spawn(async move {
            while let Some(out) = rx.recv().await {
                match out {
                    Out::Frame(b) => {
                        if let Err(e) = wr.write_all(&b).await {
                            c.close(&format!("write failed: {e}"));
                            return;
                        }
                    }
                    Out::Close(reason) => {
                        let _ = wr.shutdown().await;
                        c.close(&reason);
                        return;
                    }
                }
            }
        });
        let c = conn.clone();
        let reader = tokio::spawn(c.read_loop(rd));
        let mut tasks = vec![writer.abort_handle(), reader.abort_handle()];
        if !outbound {
            let c = conn.clone();
            let deadline = tokio::spawn(async move {
                tokio::time::sleep(HANDSHAKE_DEADLINE).await;
                if c.remote().is_none() {
                    c.close("no handshake within the handshake deadline");
                }
            });
            tasks.push(deadline.abort_handle());
        }
        conn.tasks.lock().unwrap_or_else(|e| e.into_inner()).extend(tasks);
        if conn.is_closed() {
            // Closed before the handles were stored: stop the tasks now.
            conn.abort_tasks();
        }
        conn
    }

    pub fn remote(&self) -> Option<&RemoteNode> {
        self.remote.get()
    }

    pub fn set_remote(&self, node: RemoteNode) {
        let _ = self.remote.set(node);
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Registers a pending request; fails when the connection is already closed.
    pub fn register(
        &self,
        request_id: u64,
    ) -> Result<oneshot::Receiver<Result<Frame, TransportError>>, TransportError> {
        let (tx, rx) = oneshot::channel();
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if p.0 {
            return Err(TransportError::Disconnected { addr: self.peer });
        }
        p.1.insert(request_id, tx);
        Ok(rx)
    }

    pub fn unregister(&self, request_id: u64) {
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).1.remove(&request_id);
    }

    /// The fault verdict for a message to or from this connection's peer.
    fn verdict(&self, dir: Direction) -> Verdict {
        let remote = self.remote();
        let mut addrs = vec![self.peer];
        if let Some(r) = remote {
            addrs.push(r.address);
        }
        self.shared.faults.verdict(remote.map(|r| r.node_id.as_str()), &addrs, dir)
    }

    /// Sends a frame, subject to the outbound fault rules (a dropped frame is not an error: its
    /// request times out).
    pub async fn deliver(&self, frame: Frame) -> Result<(), TransportError> {
        match self.verdict(Direction::Outbound) {
            Verdict::Drop => return Ok(()),
            Verdict::DelayBy(d) => tokio::time::sleep(d).await,
            Verdict::Deliver => {}
        }
        self.send(frame).await
    }

    async fn send(&self, frame: Frame) -> Result<(), TransportError> {
        let encoded = match frame::encode(&frame, self.shared.config.compress) {
            Ok(e) => e,
            Err(e) if frame.kind == FrameKind::Response => {
                let err = OsError::internal(format!("failed to serialize response: {e}"));
                let f = Frame { kind: FrameKind::Error, payload: encode_os_error(&err).into(), ..frame };
                frame::encode(&f, false).map_err(|e| TransportError::Remote(OsError::internal(e.to_string())))?
            }
            Err(e) => {
                return Err(TransportError::Remote(
                    OsError::illegal(format!("cannot send [{}]: {e}", frame.action)).status(400),
                ))
            }
        };
        let len = encoded.bytes.len();
        self.tx.send(Out::Frame(encoded.bytes)).await.map_err(|_| TransportError::Disconnected { addr: self.peer })?;
        self.shared.counters.sent(len, encoded.compressed);
        Ok(())
    }

    /// Closes after the frames queued so far are written.
    fn close_after_flush(&self, reason: String) {
        if self.tx.try_send(Out::Close(reason.clone())).is_err() {
            self.close(&reason);
        }
    }

    /// Closes the connection now: fails every pending request with `Disconnected` and stops the
    /// tasks (dropping the socket). Idempotent.
    pub fn close(&self, reason: &str) {
        let drained: Vec<Pending> = {
            let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            if p.0 {
                return;
            }
            p.0 = true;
            p.1.drain().map(|(_, s)| s).collect()
        };
        self.closed.store(true, Ordering::Release);
        tracing::debug!(peer = %self.peer, outbound = self.outbound, "transport connection closed: {reason}");
        for s in drained {
            let _ = s.send(Err(TransportError::Disconnected { addr: self.peer }));
        }
        let counter =
            if self.outbound { &self.shared.counters.outbound_open } else { &self.shared.counters.server_open };
        counter.fetch_sub(1, Ordering::Relaxed);
        self.shared.untrack(self.id);
        self.abort_tasks();
    }

    fn abort_tasks(&self) {
        for t in self.tasks.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
            t.abort();
        }
    }

    async fn read_loop<R: tokio::io::AsyncRead + Unpin>(self: Arc<Self>, mut rd: R) {
        let mut buf = BytesMut::with_capacity(16 * 1024);
        loop {
            match frame::decode(&buf) {
                Ok(Decoded::Frame(f, used)) => {
                    self.shared.counters.received(used, buf[5] & FLAG_COMPRESSED != 0);
                    buf.advance(used);
                    self.on_frame(f);
                }
                Ok(Decoded::Need(n)) => {
                    let want = n.saturating_sub(buf.len()).clamp(8 * 1024, READ_CHUNK);
                    buf.reserve(want);
                    match rd.read_buf(&mut buf).await {
                        Ok(0) if buf.is_empty() => return self.close("closed by the peer"),
                        Ok(0) => {
                            let reason = format!("closed by the peer inside a frame ({} of {n} bytes)", buf.len());
                            tracing::warn!(peer = %self.peer, "transport connection: {reason}");
                            return self.close(&reason);
                        }
                        Ok(_) => {}
                        Err(e) => return self.close(&format!("read failed: {e}")),
                    }
                }
                Err(e) => {
                    tracing::warn!(peer = %self.peer, "closing transport connection on a bad frame: {e}");
                    return self.close(&format!("bad frame: {e}"));
                }
            }
        }
    }

    fn on_frame(self: &Arc<Self>, f: Frame) {
        match f.kind {
            FrameKind::HandshakeRequest => return self.on_handshake(f),
            FrameKind::Request if self.remote().is_none() => {
                tracing::warn!(peer = %self.peer, action = %f.action, "request before the handshake");
                return self.close("request before the handshake");
            }
            _ => {}
        }
        if f.kind == FrameKind::HandshakeResponse && self.handshake_reply_dropped(&f) {
            return;
        }
        if self.verdict(Direction::Inbound) == Verdict::Drop {
            return;
        }
        match f.kind {
            FrameKind::Request => {
                let conn = self.clone();
                tokio::spawn(async move { conn.serve(f).await });
            }
            FrameKind::Response | FrameKind::Error | FrameKind::HandshakeResponse => {
                let waiter = self.pending.lock().unwrap_or_else(|e| e.into_inner()).1.remove(&f.request_id);
                match waiter {
                    Some(w) => {
                        let _ = w.send(Ok(f));
                    }
                    None => tracing::debug!(peer = %self.peer, id = f.request_id, "response to no pending request"),
                }
            }
            FrameKind::HandshakeRequest => {}
        }
    }

    /// Whether a partition drops this handshake answer: the node it names is only known from
    /// its payload (so a partitioned node cannot even connect).
    fn handshake_reply_dropped(&self, f: &Frame) -> bool {
        let Ok(info) = HandshakeInfo::decode(&f.payload) else { return false };
        let addrs = [self.peer, info.node.address];
        self.shared.faults.verdict(Some(&info.node.node_id), &addrs, Direction::Inbound) == Verdict::Drop
    }

    /// The accepting side of the handshake: answers with this node's identity whatever the
    /// peer is, so the peer can report the mismatch, then closes if the peer cannot join.
    fn on_handshake(self: &Arc<Self>, f: Frame) {
        let info = match HandshakeInfo::decode(&f.payload) {
            Ok(i) => i,
            Err(e) => {
                tracing::warn!(peer = %self.peer, "closing transport connection: {e}");
                return self.close(&e);
            }
        };
        let addrs = [self.peer, info.node.address];
        if self.shared.faults.verdict(Some(&info.node.node_id), &addrs, Direction::Inbound) == Verdict::Drop {
            return;
        }
        let verdict = info.check(&self.shared.local.cluster_name);
        if verdict.is_ok() {
            self.set_remote(info.node.clone());
        }
        let conn = self.clone();
        let reply = Frame {
            kind: FrameKind::HandshakeResponse,
            request_id: f.request_id,
            action: String::new(),
            payload: HandshakeInfo::local(&self.shared.local).encode().into(),
        };
        tokio::spawn(async move {
            let out = conn.shared.faults.verdict(Some(&info.node.node_id), &addrs, Direction::Outbound);
            match out {
                Verdict::Drop => return,
                Verdict::DelayBy(d) => tokio::time::sleep(d).await,
                Verdict::Deliver => {}
            }
            let _ = conn.send(reply).await;
            if let Err(reason) = verdict {
                tracing::warn!(peer = %conn.peer, "rejecting transport handshake: {reason}");
                conn.close_after_flush(format!("handshake rejected: {reason}"));
            }
        });
    }

    /// Runs the handler of an inbound request in its own task (a panic becomes an error answer)
    /// and sends the answer.
    async fn serve(self: Arc<Self>, f: Frame) {
        let (action, parent) = super::service::split_action(&f.action);
        let (action, parent) = (action.to_string(), parent.map(str::to_string));
        let handler = self.shared.handler(&action);
        let result = match (handler, self.remote()) {
            (Some(h), Some(from)) => {
                let inbound =
                    Inbound { action: action.clone(), parent_task: parent, payload: f.payload, from: from.clone() };
                match tokio::spawn(async move { h(inbound).await }).await {
                    Ok(r) => r,
                    Err(e) => {
                        Err(OsError::internal(format!("handler for action [{}] failed: {}", action, panic_message(e))))
                    }
                }
            }
            _ => Err(no_handler(&action)),
        };
        let reply = match result {
            Ok(payload) => {
                Frame { kind: FrameKind::Response, request_id: f.request_id, action: String::new(), payload }
            }
            Err(e) => Frame {
                kind: FrameKind::Error,
                request_id: f.request_id,
                action: String::new(),
                payload: encode_os_error(&e).into(),
            },
        };
        let _ = self.deliver(reply).await;
    }
}

fn panic_message(e: tokio::task::JoinError) -> String {
    if !e.is_panic() {
        return "cancelled".into();
    }
    let p = e.into_panic();
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

/// The caller's view of an answer frame.
pub(crate) fn answer(f: Frame, action: &str) -> Result<Bytes, TransportError> {
    match f.kind {
        FrameKind::Response => Ok(f.payload),
        FrameKind::Error => match decode_os_error(&f.payload) {
            Ok(e) if e.kind == ErrorKind::ActionNotFoundTransport => {
                Err(TransportError::NoHandler { action: action.to_string() })
            }
            Ok(e) => Err(TransportError::Remote(e)),
            Err(why) => Err(TransportError::Remote(OsError::internal(why))),
        },
        k => {
            Err(TransportError::Remote(OsError::internal(format!("unexpected [{k:?}] frame in answer to [{action}]"))))
        }
    }
}
