//! The hyper server: accepts connections (HTTP/1.1 keep-alive), reads bodies within
//! `http.max_content_length` (413 beyond), decodes gzip bodies, routes, checks parameters, runs
//! the handler on its thread pool (never on a tokio worker), and renders the response (pretty,
//! filter_path, YAML, gzip when the client accepts it).

use std::convert::Infallible;
use std::io::{Read, Write};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Request, Response, StatusCode};
use serde_json::json;

use super::render::{filter_path, to_yaml, Body, RestResponse};
use super::request::{parse_query, percent_decode, Method, RestRequest};
use super::router::{check_params, Match, Pool, Router};
use super::security_gate;
use crate::error::{ErrorKind, OsError};
use crate::node::Node;

/// Shared state of the server.
#[derive(Debug)]
pub struct Server {
    pub node: Arc<Node>,
    pub router: Router,
    /// HTTPS: every accepted connection does a TLS handshake first (security on). `None`
    /// serves plain HTTP, exactly as without security.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// Authentication and authorization of every request (security on); `None` when off.
    pub authn: Option<Arc<crate::security::authn::Authenticator>>,
}

/// Serves connections from `listener` until `shutdown` resolves.
pub async fn serve(
    server: Arc<Server>,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let (stream, remote) = match accepted {
                    Ok(s) => s,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let server = server.clone();
                let open = server.node.cluster.counters.http_connection();
                tokio::spawn(async move {
                    let _open = open;
                    match server.tls.clone() {
                        None => serve_connection(server, stream, None, remote).await,
                        Some(tls) => match tokio_rustls::TlsAcceptor::from(tls).accept(stream).await {
                            Ok(stream) => {
                                // The client certificate rustls verified (OPTIONAL/REQUIRE modes).
                                let dn = stream.get_ref().1.peer_certificates()
                                    .and_then(|chain| chain.first())
                                    .and_then(|leaf| crate::security::dn::subject_dn(leaf))
                                    .map(Arc::<str>::from);
                                serve_connection(server, stream, dn, remote).await
                            }
                            Err(e) => tracing::debug!(error = %e, "TLS handshake failed"),
                        },
                    }
                });
            }
        }
    }
}

/// Serves HTTP/1.1 with keep-alive on one accepted connection (plain TCP or TLS; `peer_dn` is
/// the subject of the client certificate a TLS connection presented; `remote` the client).
async fn serve_connection<I>(server: Arc<Server>, stream: I, peer_dn: Option<Arc<str>>, remote: std::net::SocketAddr)
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let io = hyper_util::rt::TokioIo::new(stream);
    let svc = hyper::service::service_fn(move |req| {
        let server = server.clone();
        let peer_dn = peer_dn.clone();
        async move { Ok::<_, Infallible>(handle(server, req, peer_dn, Some(remote)).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new().keep_alive(true).serve_connection(io, svc).await;
}

/// The response format (`format=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Yaml,
    Cbor,
    Smile,
}

fn error_response(e: &OsError, head: bool) -> RestResponse {
    if head {
        RestResponse::status(e.status)
    } else {
        RestResponse::json(e.status, e.to_body())
    }
}

async fn handle(
    server: Arc<Server>,
    req: Request<Incoming>,
    tls_peer_dn: Option<Arc<str>>,
    remote: Option<std::net::SocketAddr>,
) -> Response<Full<Bytes>> {
    let (parts, body) = req.into_parts();
    let path = parts.uri.path().to_string();
    let params = parse_query(parts.uri.query().unwrap_or(""));
    let accept_gzip =
        parts.headers.get("accept-encoding").and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("gzip"));
    let pretty = params.get("pretty").is_some_and(|v| v != "false");
    let error_trace = params.get("error_trace").is_some_and(|v| v != "false");
    let filter = params.get("filter_path").cloned();
    let format = match params.get("format").map(String::as_str) {
        Some("yaml") => Format::Yaml,
        Some("cbor") => Format::Cbor,
        Some("smile") => Format::Smile,
        _ => Format::Json,
    };
    let Some(method) = Method::parse(parts.method.as_str()) else {
        return finish(
            RestResponse::json(
                405,
                json!({"error": format!("Incorrect HTTP method for uri [{path}] and method [{}]", parts.method), "status": 405}),
            ),
            false,
            pretty,
            None,
            Format::Json,
            false,
        );
    };
    let head = method == Method::Head;
    let max = server.node.max_content_length;
    if let Some(len) =
        parts.headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok())
    {
        if len > max {
            return finish(RestResponse::status(413), head, pretty, None, Format::Json, false);
        }
    }
    let bytes = match Limited::new(body, max).collect().await {
        Ok(c) => c.to_bytes(),
        Err(e) => {
            if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
                return finish(RestResponse::status(413), head, pretty, None, Format::Json, false);
            }
            return finish(
                error_response(&OsError::new(ErrorKind::Io, format!("failed to read the request body: {e}")), head),
                head,
                pretty,
                None,
                Format::Json,
                false,
            );
        }
    };
    // The body is held under the `in_flight_requests` circuit breaker while it is handled.
    let in_flight = server.node.cluster.breakers().reserve(
        crate::cluster::breakers::Kind::InFlight,
        bytes.len() as u64,
        "<http_request>",
    );
    let _in_flight = match in_flight {
        Ok(r) => r,
        Err(e) => return finish(error_response(&e, head), head, pretty, None, Format::Json, false),
    };
    let gzipped = parts
        .headers
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("gzip"));
    let bytes = if gzipped {
        let mut out = Vec::new();
        let mut dec = flate2::read::GzDecoder::new(&bytes[..]).take(max as u64 + 1);
        if let Err(e) = dec.read_to_end(&mut out) {
            let err = OsError::new(ErrorKind::Parse, format!("failed to decompress the gzip request body: {e}"));
            return finish(error_response(&err, head), head, pretty, None, Format::Json, false);
        }
        if out.len() > max {
            return finish(RestResponse::status(413), head, pretty, None, Format::Json, false);
        }
        Bytes::from(out)
    } else {
        bytes
    };
    // `source` parameter: the body passed in the URL (GET with a body for clients that can't).
    let bytes = match params.get("source") {
        Some(s) if bytes.is_empty() => Bytes::from(s.clone().into_bytes()),
        _ => bytes,
    };
    let (route, path_params) = match server.router.find(method, &path) {
        Match::Found(r, p) => (r.clone(), p),
        Match::WrongMethod(mut allowed) => {
            allowed.sort_by_key(|m| m.name());
            let list = allowed.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ");
            let body = json!({"error": format!("Incorrect HTTP method for uri [{}] and method [{}], allowed: [{list}]", percent_decode(&path, false), method.name()), "status": 405});
            return finish(RestResponse::json(405, body), head, pretty, None, Format::Json, false);
        }
        Match::NotFound => {
            let body = json!({"error": format!("no handler found for uri [{path}] and method [{}]", method.name())});
            return finish(RestResponse::json(400, body), head, pretty, None, Format::Json, false);
        }
    };
    // Security on: who is asking (401/503 answered here, before the request is a task).
    let user = match &server.authn {
        Some(authn) if !security_gate::skips_authentication(method, &path) => {
            match security_gate::authenticate(&server.node, authn, &parts.headers, &params, tls_peer_dn.clone(), remote)
                .await
            {
                Ok(u) => Some(u),
                Err(reply) => {
                    let mut resp = RestResponse::text(reply.body);
                    resp.status = reply.status;
                    if reply.challenge {
                        resp.headers.push(("WWW-Authenticate".into(), "Basic realm=\"OpenSearch Security\"".into()));
                    }
                    return finish(resp, head, false, None, Format::Json, false);
                }
            }
        }
        _ => None,
    };
    let mut rest = RestRequest { method, path: path.clone(), path_params, params, body: bytes, tls_peer_dn, user };
    // Security off: parameters are checked here as always. Security on: after authorization
    // (on the pool), as the plugin's filter runs before the handler consumes its parameters.
    if server.authn.is_none() {
        if let Err(e) = check_params(&route, &rest) {
            return finish(error_response(&e, head), head, pretty, filter.as_deref(), format, false);
        }
    }
    tracing::debug!(method = method.name(), path = %path, action = route.action, client_dn = rest.tls_peer_dn.as_deref(), "request");
    let node = server.node.clone();
    node.usage.count(route.action);
    let pool = match route.pool {
        Pool::Write => &node.pools.write,
        Pool::Search => &node.pools.search,
        Pool::Get => &node.pools.get,
        Pool::Management => &node.pools.management,
        Pool::Refresh => &node.pools.refresh,
        Pool::Flush => &node.pools.flush,
        Pool::ForceMerge => &node.pools.force_merge,
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    let handler = route.handler;
    let authn = server.authn.clone();
    let node2 = node.clone();
    // The request is a task (`_tasks`) until its answer is rendered; `X-Opaque-Id` is its header.
    let opaque = parts.headers.get("x-opaque-id").and_then(|v| v.to_str().ok()).map(str::to_string);
    let task_guard = node.tasks.register(crate::tasks::TaskSpec {
        action: std::borrow::Cow::Borrowed(route.action),
        parent: None,
        cancellable: crate::tasks::cancellable(route.action),
        headers: opaque.iter().map(|o| ("X-Opaque-Id".to_string(), o.clone())).collect(),
        description: String::new(),
    });
    let task = task_guard.task.clone();
    // The task lives as long as its work on the pool (a dropped request's work still shows).
    let working_task = task.clone();
    // A client that goes away before its answer cancels the request's task, as OpenSearch's
    // `RestCancellableNodeClient` cancels a search whose HTTP channel closed.
    let mut on_disconnect = CancelOnDrop(Some((node.clone(), task.id)));
    let submitted = pool.execute(move || {
        let working = working_task.enter();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(authn) = &authn {
                security_gate::authorize(&node2, authn, &route, &mut rest)?;
                check_params(&route, &rest)?;
            }
            handler(&node2, &rest)
        }));
        let r = r.unwrap_or_else(|_| Err(OsError::internal("the handler panicked")));
        drop(working);
        drop(task_guard);
        let _ = tx.send(r);
    });
    let result = match submitted {
        Err(e) => Err(e),
        Ok(()) => rx.await.unwrap_or_else(|_| Err(OsError::internal("the handler was dropped"))),
    };
    // `refresh=wait_for`: the shards' next refresh, waited for on a blocking thread, not on the
    // pool that ran the write (a wait lasts up to a refresh interval).
    let result = match result {
        Ok(mut resp) if !resp.deferred.refresh_waits.is_empty() => {
            let waits = std::mem::take(&mut resp.deferred.refresh_waits);
            let waited =
                tokio::task::spawn_blocking(move || waits.iter().try_for_each(|s| s.wait_for_refresh().map(|_| ())))
                    .await;
            match waited {
                Ok(Ok(())) => Ok(resp),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(OsError::internal("the refresh wait was dropped")),
            }
        }
        other => other,
    };
    // A cancelled task answers its cancellation, whatever its work made of the stop.
    let result = match task.cancel_reason() {
        Some(reason) => Err(crate::tasks::cancelled_error(&reason)),
        None => result,
    };
    on_disconnect.0 = None;
    let mut resp = match result {
        Ok(r) => r,
        Err(e) => error_response(&e, head),
    };
    if let Some(o) = opaque {
        resp.headers.push(("X-Opaque-Id".into(), o));
    }
    if error_trace && !head {
        resp.json_body();
        if let super::render::Body::Json(v) = &mut resp.body {
            super::error_trace::add_stack_traces(v);
        }
    }
    for w in std::mem::take(&mut resp.deferred.warnings) {
        let escaped = w.replace('\\', "\\\\").replace('"', "\\\"");
        resp.headers.push((
            "Warning".into(),
            format!("299 OpenSearch-3.3.0-{} \"{escaped}\"", crate::action::cluster_info::BUILD_HASH),
        ));
    }
    finish(resp, head, pretty, filter.as_deref(), format, accept_gzip)
}

/// Cancels its task and the task's children when dropped before disarmed (the request's
/// future dropped mid-way).
struct CancelOnDrop(Option<(Arc<Node>, u64)>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some((node, id)) = self.0.take() else { return };
        let reason = "channel closed";
        let cancelled = node.tasks.cancel(&crate::tasks::Filter { id: Some(id), ..Default::default() }, reason);
        if !cancelled.is_empty() {
            // Its children on other nodes: banned from a pool thread (the ban waits for the nodes).
            let parent = crate::tasks::TaskId { node: node.tasks.node_id().to_string(), id };
            let n = node.clone();
            let _ = node
                .pools
                .generic
                .execute(move || crate::action::tasks::ban_on_other_nodes(&n.cluster, &parent, reason));
        }
    }
}

fn finish(
    mut resp: RestResponse,
    head: bool,
    pretty: bool,
    filter: Option<&str>,
    format: Format,
    gzip: bool,
) -> Response<Full<Bytes>> {
    let generic = pretty || filter.is_some_and(|f| !f.is_empty()) || format != Format::Json;
    if generic {
        resp.json_body();
    }
    let RestResponse { status, headers, body, raw_json, .. } = resp;
    let (bytes, ctype) = match body {
        Body::Empty if raw_json.is_some() => (raw_json.unwrap_or_default(), "application/json; charset=UTF-8"),
        Body::Empty => (Vec::new(), "application/json; charset=UTF-8"),
        Body::Text(t) => (t.into_bytes(), "text/plain; charset=UTF-8"),
        Body::Html(page) => (page.as_bytes().to_vec(), "text/html; charset=UTF-8"),
        Body::Json(v) => {
            let v = match filter {
                Some(f) if !f.is_empty() => filter_path(&v, f),
                _ => v,
            };
            if format == Format::Yaml {
                (to_yaml(&v).into_bytes(), "application/yaml")
            } else if format == Format::Cbor {
                (super::binary_formats::to_cbor(&v), "application/cbor")
            } else if format == Format::Smile {
                (super::binary_formats::to_smile(&v), "application/smile")
            } else if pretty {
                let mut s = serde_json::to_vec_pretty(&v).unwrap_or_default();
                s.push(b'\n');
                (s, "application/json; charset=UTF-8")
            } else {
                let mut out = Vec::with_capacity(2048);
                let _ = serde_json::to_writer(&mut out, &v);
                (out, "application/json; charset=UTF-8")
            }
        }
    };
    let mut builder =
        Response::builder().status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
    builder = builder.header(CONTENT_TYPE, HeaderValue::from_static(ctype));
    for (k, v) in &headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    let (body, len) = if gzip && bytes.len() > 256 {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let compressed = enc.write_all(&bytes).and_then(|_| enc.finish());
        match compressed {
            Ok(c) => {
                builder = builder.header(CONTENT_ENCODING, "gzip");
                let n = c.len();
                (c, n)
            }
            Err(_) => {
                let n = bytes.len();
                (bytes, n)
            }
        }
    } else {
        let n = bytes.len();
        (bytes, n)
    };
    builder = builder.header(CONTENT_LENGTH, len);
    let body = if head { Full::new(Bytes::new()) } else { Full::new(Bytes::from(body)) };
    builder.body(body).unwrap_or_else(|_| Response::new(Full::new(Bytes::new())))
}
