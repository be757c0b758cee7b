//! The node-to-node transport over real loopback sockets: requests, concurrency, errors,
//! timeouts, handshakes, compression, reconnects and every fault kind.
#![cfg(feature = "server")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use fathom::error::{ErrorKind, OsError};
use fathom::transport::{FaultTarget, Transport, TransportConfig, TransportError, COMPRESS_THRESHOLD};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const T: Duration = Duration::from_secs(10);

fn config(cluster: &str, id: &str, port: &str) -> TransportConfig {
    TransportConfig {
        cluster_name: cluster.into(),
        node_id: id.into(),
        node_name: format!("name-{id}"),
        host: "127.0.0.1".into(),
        port_spec: port.into(),
        compress: true,
        tls: None,
    }
}

async fn node(cluster: &str, id: &str) -> Arc<Transport> {
    let t = Transport::bind(config(cluster, id, "0")).await.unwrap();
    t.register_fn("echo", |req| async move {
        let mut out = format!("{}:", req.from.node_id).into_bytes();
        out.extend_from_slice(&req.payload);
        Ok(Bytes::from(out))
    });
    t
}

/// Polls `cond` every 10 ms for at most 5 s.
async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    for _ in 0..500 {
        if cond() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_response_and_handshake_identities() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let remote = a.handshake(b.local_address(), T).await.unwrap();
    assert_eq!(&remote, b.local_node());
    assert_eq!((remote.version.as_str(), remote.cluster_name.as_str()), ("3.3.0", "c"));
    let got = a.request(b.local_address(), "echo", Bytes::from_static(b"hi"), T).await.unwrap();
    assert_eq!(&got[..], b"a:hi", "the handler sees the caller's identity");
    // Requests go both ways (each direction has its own connection).
    let got = b.request(a.local_address(), "echo", Bytes::new(), T).await.unwrap();
    assert_eq!(&got[..], b"b:");
    let (sa, sb) = (a.stats(), b.stats());
    assert_eq!((sa.total_outbound_connections, sa.server_open), (1, 1));
    assert_eq!((sb.total_outbound_connections, sb.server_open), (1, 1));
    assert!(sa.tx_count >= 3 && sa.rx_count >= 3, "{sa:?}");
    assert!(sa.tx_size_in_bytes > 0 && sa.rx_size_in_bytes > 0);
    // An explicit disconnect; the next request reconnects.
    assert!(a.is_connected(b.local_address()));
    a.disconnect(b.local_address());
    assert!(!a.is_connected(b.local_address()));
    eventually("b sees the disconnect", || b.stats().server_open == 0).await;
    assert_eq!(&a.request(b.local_address(), "echo", Bytes::new(), T).await.unwrap()[..], b"a:");
    assert!(a.is_connected(b.local_address()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_requests_in_flight_on_one_connection() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (f, p) = (in_flight.clone(), peak.clone());
    b.register_fn("slow_echo", move |req| {
        let (f, p) = (f.clone(), p.clone());
        async move {
            let now = f.fetch_add(1, Ordering::SeqCst) + 1;
            p.fetch_max(now, Ordering::SeqCst);
            // Answers come back out of order: later requests sleep less.
            let n: u64 = std::str::from_utf8(&req.payload).unwrap().parse().unwrap();
            tokio::time::sleep(Duration::from_millis(200 - n % 100)).await;
            f.fetch_sub(1, Ordering::SeqCst);
            Ok(req.payload)
        }
    });
    let addr = b.local_address();
    let tasks: Vec<_> = (0..500u64)
        .map(|i| {
            let a = a.clone();
            tokio::spawn(async move { (i, a.request(addr, "slow_echo", Bytes::from(i.to_string()), T).await) })
        })
        .collect();
    for t in tasks {
        let (i, r) = t.await.unwrap();
        assert_eq!(r.unwrap(), Bytes::from(i.to_string()));
    }
    assert!(peak.load(Ordering::SeqCst) >= 100, "peak in flight {}", peak.load(Ordering::SeqCst));
    assert_eq!(a.stats().total_outbound_connections, 1, "one multiplexed connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_errors_no_handler_and_panics() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let addr = b.local_address();
    b.register_fn("fails", |_| async { Err(OsError::index_not_found("logs").caused_by(OsError::illegal("why"))) });
    b.register_fn("panics", |_| async { panic!("handler bug") });
    match a.request(addr, "fails", Bytes::new(), T).await {
        Err(TransportError::Remote(e)) => {
            assert_eq!(e, OsError::index_not_found("logs").caused_by(OsError::illegal("why")));
        }
        other => panic!("{other:?}"),
    }
    let err = a.request(addr, "missing", Bytes::new(), T).await.unwrap_err();
    assert_eq!(err, TransportError::NoHandler { action: "missing".into() });
    let os = OsError::from(err);
    assert_eq!((os.kind, os.reason.as_str()), (ErrorKind::ActionNotFoundTransport, "No handler for action [missing]"));
    match a.request(addr, "panics", Bytes::new(), T).await {
        Err(TransportError::Remote(e)) => {
            assert_eq!(e.kind, ErrorKind::Exception);
            assert!(e.reason.contains("handler bug"), "{}", e.reason);
        }
        other => panic!("{other:?}"),
    }
    // The connection survived the panic.
    assert_eq!(&a.request(addr, "echo", Bytes::from_static(b"x"), T).await.unwrap()[..], b"a:x");
    assert_eq!(a.stats().total_outbound_connections, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeouts_and_connect_failures() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let addr = b.local_address();
    b.register_fn("sleepy", |_| async {
        tokio::time::sleep(Duration::from_secs(3)).await;
        Ok(Bytes::new())
    });
    let start = Instant::now();
    let err = a.request(addr, "sleepy", Bytes::new(), Duration::from_millis(300)).await.unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(2));
    let TransportError::Timeout { ref action, after, ref node, request_id, .. } = err else { panic!("{err:?}") };
    assert_eq!((action.as_str(), after, node.as_str()), ("sleepy", Duration::from_millis(300), "name-b"));
    let os = OsError::from(err.clone());
    assert_eq!(os.kind, ErrorKind::ReceiveTimeoutTransport);
    assert_eq!(os.reason, format!("[name-b][{addr}][sleepy] request_id [{request_id}] timed out after [300ms]"));
    // The late answer is discarded; the connection keeps working.
    assert!(a.request(addr, "echo", Bytes::new(), T).await.is_ok());
    // Nothing listens on a closed port.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    match a.request(closed, "echo", Bytes::new(), T).await {
        Err(e @ TransportError::Connect { .. }) => {
            let os = OsError::from(e);
            assert_eq!(os.kind, ErrorKind::ConnectTransport);
            assert!(os.reason.starts_with(&format!("[{closed}] connect_exception")), "{}", os.reason);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_name_mismatch_fails_the_handshake_both_ways() {
    let (a, b) = (node("a", "a").await, node("b", "b").await);
    let err = a.handshake(b.local_address(), T).await.unwrap_err();
    assert_eq!(
        err,
        TransportError::Handshake {
            addr: b.local_address(),
            reason: "remote cluster name [b] does not match local cluster name [a]".into()
        }
    );
    let os = OsError::from(err);
    assert_eq!(os.kind, ErrorKind::IllegalState);
    assert_eq!(
        os.reason,
        format!(
            "handshake with [{}] failed: remote cluster name [b] does not match local cluster name [a]",
            b.local_address()
        )
    );
    assert!(matches!(
        a.request(b.local_address(), "echo", Bytes::new(), T).await,
        Err(TransportError::Handshake { .. })
    ));
    // Neither side keeps the connection.
    eventually("connections closed", || a.stats().total_outbound_connections == 0 && b.stats().server_open == 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payloads_over_the_threshold_travel_compressed() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let big: Vec<u8> = (0..COMPRESS_THRESHOLD * 3).map(|i| b"abcdefgh"[i % 8]).collect();
    let got = a.request(b.local_address(), "echo", Bytes::from(big.clone()), T).await.unwrap();
    assert_eq!(&got[2..], &big[..]);
    let (sa, sb) = (a.stats(), b.stats());
    assert_eq!((sa.compressed_tx_count, sa.compressed_rx_count), (1, 1), "{sa:?}");
    assert_eq!((sb.compressed_tx_count, sb.compressed_rx_count), (1, 1), "{sb:?}");
    assert!(sa.tx_size_in_bytes < big.len() as u64 / 10, "{sa:?}");
    // Small payloads, and any payload with transport.compress off, go raw.
    let mut cfg = config("c", "raw", "0");
    cfg.compress = false;
    let raw = Transport::bind(cfg).await.unwrap();
    raw.register_fn("echo", |req| async move { Ok(req.payload) });
    a.request(b.local_address(), "echo", Bytes::from_static(b"small"), T).await.unwrap();
    assert_eq!(a.stats().compressed_tx_count, 1);
    let got = b.request(raw.local_address(), "echo", Bytes::from(big.clone()), T).await.unwrap();
    assert_eq!(got.len(), big.len());
    assert_eq!(raw.stats().compressed_tx_count, 0);
    assert!(raw.stats().tx_size_in_bytes > big.len() as u64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnects_after_the_peer_restarts_and_pending_requests_fail_promptly() {
    let a = node("c", "a").await;
    let b = node("c", "b").await;
    let addr = b.local_address();
    b.register_fn("hang", |_| async {
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(Bytes::new())
    });
    assert!(a.request(addr, "echo", Bytes::new(), T).await.is_ok());
    let pending = {
        let a = a.clone();
        tokio::spawn(async move { a.request(addr, "hang", Bytes::new(), Duration::from_secs(20)).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let start = Instant::now();
    b.close().await;
    drop(b);
    assert_eq!(pending.await.unwrap(), Err(TransportError::Disconnected { addr }));
    assert!(start.elapsed() < Duration::from_secs(2), "failed promptly");
    eventually("outbound connection dropped", || a.stats().total_outbound_connections == 0).await;
    assert!(matches!(a.request(addr, "echo", Bytes::new(), T).await, Err(TransportError::Connect { .. })));
    // The peer comes back on the same port as another node.
    let b2 = Transport::bind(config("c", "b2", &addr.port().to_string())).await.unwrap();
    b2.register_fn("echo", |req| async move { Ok(req.payload) });
    assert_eq!(b2.local_address(), addr);
    assert_eq!(a.request(addr, "echo", Bytes::from_static(b"again"), T).await.unwrap(), Bytes::from_static(b"again"));
    assert_eq!(a.handshake(addr, T).await.unwrap().node_id, "b2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_fails_requests_and_stops_accepting() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let addr = b.local_address();
    a.request(addr, "echo", Bytes::new(), T).await.unwrap();
    a.close().await;
    assert!(matches!(a.request(addr, "echo", Bytes::new(), T).await, Err(TransportError::Connect { .. })));
    eventually("b sees the close", || b.stats().server_open == 0).await;
    let a_addr = a.local_address();
    assert!(matches!(b.request(a_addr, "echo", Bytes::new(), T).await, Err(TransportError::Connect { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_fault_times_out_until_cleared() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let addr = b.local_address();
    a.handshake(addr, T).await.unwrap();
    b.handshake(a.local_address(), T).await.unwrap();
    a.faults().drop_all(FaultTarget::Node("b".into())).unwrap();
    let err = a.request(addr, "echo", Bytes::new(), Duration::from_millis(200)).await.unwrap_err();
    assert!(matches!(err, TransportError::Timeout { .. }), "{err:?}");
    assert!(a.faults().dropped_count() >= 1);
    // Drop is one-way: b's requests still reach a, but a's answers to b are dropped.
    let seen = Arc::new(AtomicUsize::new(0));
    let s = seen.clone();
    a.register_fn("count", move |_| {
        s.fetch_add(1, Ordering::SeqCst);
        async { Ok(Bytes::new()) }
    });
    let err = b.request(a.local_address(), "count", Bytes::new(), Duration::from_millis(200)).await.unwrap_err();
    assert!(matches!(err, TransportError::Timeout { .. }), "{err:?}");
    assert_eq!(seen.load(Ordering::SeqCst), 1, "the request arrived");
    // Dropping b's answers to a also times a out.
    a.faults().clear(&FaultTarget::Node("b".into()));
    b.faults().drop_all(FaultTarget::Address(a.local_address())).unwrap();
    let err = a.request(addr, "echo", Bytes::new(), Duration::from_millis(200)).await.unwrap_err();
    assert!(matches!(err, TransportError::Timeout { .. }), "{err:?}");
    b.faults().clear_all();
    assert!(a.request(addr, "echo", Bytes::new(), T).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delay_fault_slows_each_message() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let addr = b.local_address();
    a.handshake(addr, T).await.unwrap();
    a.faults().delay(FaultTarget::Address(addr), Duration::from_millis(300)).unwrap();
    let start = Instant::now();
    a.request(addr, "echo", Bytes::new(), T).await.unwrap();
    assert!(start.elapsed() >= Duration::from_millis(300));
    let err = a.request(addr, "echo", Bytes::new(), Duration::from_millis(100)).await.unwrap_err();
    assert!(matches!(err, TransportError::Timeout { .. }), "{err:?}");
    a.faults().clear_all();
    let start = Instant::now();
    a.request(addr, "echo", Bytes::new(), T).await.unwrap();
    assert!(start.elapsed() < Duration::from_millis(300));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partition_cuts_one_process_off_in_both_directions() {
    let (a, b, c) = (node("c", "a").await, node("c", "b").await, node("c", "c").await);
    let (addr_a, addr_b) = (a.local_address(), b.local_address());
    a.request(addr_b, "echo", Bytes::new(), T).await.unwrap();
    // Only b holds the rule: b drops what it receives from a and what it sends to a.
    b.faults().partition(FaultTarget::Node("a".into())).unwrap();
    let short = Duration::from_millis(200);
    assert!(matches!(a.request(addr_b, "echo", Bytes::new(), short).await, Err(TransportError::Timeout { .. })));
    // b's new connection to a: the handshake itself is dropped, so connecting times out.
    assert!(matches!(b.request(addr_a, "echo", Bytes::new(), short).await, Err(TransportError::Connect { .. })));
    // Others are unaffected.
    assert!(c.request(addr_b, "echo", Bytes::new(), T).await.is_ok());
    assert!(b.request(c.local_address(), "echo", Bytes::new(), T).await.is_ok());
    b.faults().clear(&FaultTarget::Node("a".into()));
    assert_eq!(&a.request(addr_b, "echo", Bytes::new(), T).await.unwrap()[..], b"a:");
    assert_eq!(&b.request(addr_a, "echo", Bytes::new(), T).await.unwrap()[..], b"b:");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_bytes_close_only_their_connection() {
    let (a, b) = (node("c", "a").await, node("c", "b").await);
    let addr = b.local_address();
    a.request(addr, "echo", Bytes::new(), T).await.unwrap();
    for garbage in [
        &b"GET / HTTP/1.1\r\n\r\n"[..],
        &[0x46, 0x54, 0x52, 0x50, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ] {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(garbage).await.unwrap();
        let mut buf = [0u8; 16];
        let n = tokio::time::timeout(T, s.read(&mut buf)).await.unwrap().unwrap_or(0);
        assert_eq!(n, 0, "the server closed the connection");
    }
    // A request frame before any handshake is refused the same way.
    let frame = fathom::transport::frame::encode(
        &fathom::transport::frame::Frame {
            kind: fathom::transport::frame::FrameKind::Request,
            request_id: 1,
            action: "echo".into(),
            payload: Bytes::new(),
        },
        false,
    )
    .unwrap();
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(&frame.bytes).await.unwrap();
    let mut buf = [0u8; 16];
    assert_eq!(tokio::time::timeout(T, s.read(&mut buf)).await.unwrap().unwrap_or(0), 0);
    // The established connection is untouched.
    assert!(a.request(addr, "echo", Bytes::new(), T).await.is_ok());
    eventually("bad connections closed", || b.stats().server_open == 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binds_the_first_free_port_of_a_range() {
    let a = Transport::bind(config("c", "a", "0")).await.unwrap();
    let p = a.local_address().port();
    let spec = format!("{p}-{}", p.saturating_add(20));
    let b = Transport::bind(config("c", "b", &spec)).await.unwrap();
    assert_ne!(b.local_address().port(), p);
    let err = Transport::bind(config("c", "x", &p.to_string())).await.unwrap_err();
    assert_eq!(err.kind, ErrorKind::BindTransport);
    assert!(Transport::bind(config("c", "x", "nine")).await.is_err());
    assert!(Transport::bind(config("c", "x", "9400-9300")).await.is_err());
}
