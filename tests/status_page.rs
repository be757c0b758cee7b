//! The status page `GET /_fathom/` driven in headless Chromium through ChromeDriver (the W3C
//! WebDriver protocol over HTTP): what it shows must match the APIs it reads, it must refresh
//! itself, and its request console must send a request and show the answer.
//!
//! Needs Debian's `chromium` and `chromium-driver` (CI installs them; paths can be overridden
//! with `FATHOM_CHROMIUM` and `FATHOM_CHROMEDRIVER`). `FATHOM_SCREENSHOT=path.png` also saves
//! a screenshot of the page (the README's picture is made that way).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use common::http::{get, post, put, send, TestServer};
use serde_json::{json, Value};

struct Driver {
    child: Child,
    addr: SocketAddr,
    session: String,
}

/// One WebDriver request. ChromeDriver answers with `Content-Length` and keeps the connection
/// open whatever the request says, so the body is read by its length, not to the end.
fn wd(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Option<(u16, Value)> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).ok()?;
    s.write_all(body.as_bytes()).ok()?;
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let status: u16 = line.split(' ').nth(1)?.parse().ok()?;
    let mut len = 0usize;
    loop {
        line.clear();
        r.read_line(&mut line).ok()?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().ok()?;
            }
        }
    }
    let mut buf = vec![0; len];
    r.read_exact(&mut buf).ok()?;
    Some((status, serde_json::from_slice(&buf).unwrap_or(Value::Null)))
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = wd(self.addr, "DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn program(env: &str, default: &str) -> String {
    let p = std::env::var(env).unwrap_or_else(|_| default.to_string());
    assert!(
        std::path::Path::new(&p).exists(),
        "{p} is missing: install Debian's chromium and chromium-driver (or set {env})"
    );
    p
}

impl Driver {
    fn start() -> Driver {
        let driver = program("FATHOM_CHROMEDRIVER", "/usr/bin/chromedriver");
        let chromium = program("FATHOM_CHROMIUM", "/usr/bin/chromium");
        let port = common::cluster::free_port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        // Constructed first, so that a failure below still stops the driver.
        let mut d = Driver { child, addr, session: String::new() };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some((200, v)) = wd(addr, "GET", "/status", None) {
                if v["value"]["ready"] == json!(true) {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "chromedriver did not become ready");
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,900"]
            }
        }}});
        let (status, v) = wd(addr, "POST", "/session", Some(&caps)).expect("new session");
        assert_eq!(status, 200, "new session: {v}");
        d.session = v["value"]["sessionId"].as_str().expect("session id").to_string();
        d
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let body = if method == "GET" { None } else { Some(&body) };
        let (status, mut v) = wd(self.addr, method, &path, body).expect("chromedriver answers");
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].take()
    }

    fn script(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", json!({"script": script, "args": []}))
    }

    fn element(&self, css: &str) -> String {
        let v = self.call("POST", "/element", json!({"using": "css selector", "value": css}));
        // The W3C element reference: an object with one key, the web element identifier.
        v.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("element id").to_string()
    }

    /// Polls `script` until `ok` accepts its value (at most 30 s).
    fn wait_for(&self, what: &str, script: &str, ok: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.script(script);
            if ok(&v) {
                return v;
            }
            assert!(Instant::now() < deadline, "{what}: last seen {v}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

const ROWS: &str = "return [...document.querySelectorAll('#indices tbody tr')].map(r => ({
    index: r.dataset.index, docs: r.querySelector('.docs').textContent, status: r.querySelector('.status').textContent,
    pri: r.querySelector('.pri').textContent, rep: r.querySelector('.rep').textContent,
    shards: r.querySelectorAll('.shard').length, health: r.querySelector('.dot').className }));";

#[test]
fn the_status_page_shows_what_the_api_says_and_its_console_sends_requests() {
    let dir = tempfile::tempdir().unwrap();
    let s = TestServer::start(dir.path(), &[]);
    assert_eq!(put(s.addr, "/logs", r#"{"settings":{"number_of_shards":2,"number_of_replicas":0}}"#).status, 200);
    assert_eq!(put(s.addr, "/metrics", r#"{"settings":{"number_of_shards":1,"number_of_replicas":1}}"#).status, 200);
    let mut bulk = String::new();
    for i in 0..7 {
        bulk.push_str(&format!("{{\"index\":{{\"_index\":\"logs\",\"_id\":\"{i}\"}}}}\n{{\"n\":{i}}}\n"));
    }
    bulk.push_str("{\"index\":{\"_index\":\"metrics\"}}\n{\"v\":1}\n");
    let r =
        send(s.addr, "POST", "/_bulk?refresh=true", Some(bulk.as_bytes()), &[("Content-Type", "application/x-ndjson")]);
    assert_eq!(r.status, 200, "{}", r.text());

    let page = get(s.addr, "/_fathom/");
    assert_eq!(page.status, 200);
    assert_eq!(page.header("content-type"), Some("text/html; charset=UTF-8"));

    let d = Driver::start();
    d.call("POST", "/url", json!({"url": format!("http://{}/_fathom/", s.addr)}));

    // Health as the API reports it.
    let health = get(s.addr, "/_cluster/health").json();
    let shown = d.wait_for("health badge", "return document.getElementById('health-status').textContent", |v| {
        v.as_str().is_some_and(|s| s != "…")
    });
    assert_eq!(shown, health["status"]);
    let stat = |id: &str| d.script(&format!("return document.getElementById('{id}').textContent"));
    assert_eq!(stat("health-nodes"), json!(health["number_of_nodes"].to_string()));
    assert_eq!(stat("health-unassigned"), json!(health["unassigned_shards"].to_string()));
    assert_eq!(stat("health-active"), json!(health["active_shards"].to_string()));

    // Every index of `_cat/indices`, with its documents, status, shard counts and health.
    let rows = d.wait_for("index rows", ROWS, |v| v.as_array().is_some_and(|a| a.len() == 2));
    let cat = get(s.addr, "/_cat/indices?format=json&s=index").json();
    for (row, api) in rows.as_array().unwrap().iter().zip(cat.as_array().unwrap()) {
        assert_eq!(row["index"], api["index"]);
        assert_eq!(row["docs"], api["docs.count"], "{row}");
        assert_eq!(row["status"], api["status"]);
        assert_eq!(row["pri"], api["pri"]);
        assert_eq!(row["rep"], api["rep"]);
        let health = api["health"].as_str().unwrap();
        assert!(row["health"].as_str().unwrap().contains(health), "{row} vs {health}");
    }
    let cat_shards = get(s.addr, "/_cat/shards/logs?format=json").json();
    assert_eq!(rows[0]["shards"], json!(cat_shards.as_array().unwrap().len()));
    assert_eq!(rows[1]["shards"], json!(2), "metrics: a primary and its unassigned replica");

    // The node, by name, with figures the node measured.
    let nodes = get(s.addr, "/_nodes/stats/os,process,jvm,fs").json();
    let (id, n) = nodes["nodes"].as_object().unwrap().iter().next().unwrap();
    let row = d.wait_for(
        "node row",
        &format!("const r = document.querySelector('#nodes tr[data-node=\"{id}\"]'); return r ? [r.querySelector('.name').textContent, r.querySelector('.roles').textContent, r.querySelector('.disk').textContent] : null"),
        |v| v.is_array(),
    );
    assert_eq!(row[0], n["name"]);
    assert!(row[1].as_str().unwrap().contains("data"), "{row}");
    assert!(row[2].as_str().unwrap().contains("gb") || row[2].as_str().unwrap().contains("mb"), "{row}");

    // It refreshes itself: new documents show without a reload.
    let before = d.script("return Number(document.body.dataset.refreshes)").as_u64().unwrap();
    let r = post(s.addr, "/logs/_doc?refresh=true", r#"{"n":99}"#);
    assert_eq!(r.status, 201, "{}", r.text());
    d.wait_for("the new document", ROWS, |v| v[0]["docs"] == json!("8"));
    assert!(d.script("return Number(document.body.dataset.refreshes)").as_u64().unwrap() > before);

    // Running work shows with its action: a hot threads sample that takes four seconds.
    let addr = s.addr;
    let sampler = std::thread::spawn(move || get(addr, "/_nodes/hot_threads?interval=4s&snapshots=2").status);
    let shown = d.wait_for(
        "the running hot threads task",
        "return [...document.querySelectorAll('#tasks .task[data-task] b')].map(b => b.textContent)",
        |v| v.as_array().is_some_and(|a| a.iter().any(|t| t.as_str().is_some_and(|t| t.contains("hot_threads")))),
    );
    if let Ok(out) = std::env::var("FATHOM_SCREENSHOT") {
        let png = d.call("GET", "/screenshot", json!({}));
        std::fs::write(out, base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap()).unwrap();
    }
    let listed = get(s.addr, "/_tasks?actions=*hot_threads*&group_by=none").json();
    let running = listed["tasks"].as_array().expect("group_by=none lists an array");
    assert!(!running.is_empty() || sampler.is_finished(), "{listed} vs {shown}");
    assert_eq!(sampler.join().unwrap(), 200);

    // The console sends a request and shows the answer.
    let path = d.element("#console-path");
    d.call("POST", &format!("/element/{path}/clear"), json!({}));
    d.call("POST", &format!("/element/{path}/value"), json!({"text": "/logs/_count"}));
    let send_button = d.element("#console-send");
    d.call("POST", &format!("/element/{send_button}/click"), json!({}));
    let out = d.wait_for("console answer", "return document.getElementById('console-response').textContent", |v| {
        v.as_str().is_some_and(|s| !s.is_empty())
    });
    let answer: Value = serde_json::from_str(out.as_str().unwrap()).expect("the console shows JSON");
    assert_eq!(answer["count"], json!(8));
    assert!(stat("console-status").as_str().unwrap().starts_with("200"));

    // An error answer is shown with its status, not swallowed.
    d.call("POST", &format!("/element/{path}/clear"), json!({}));
    d.call("POST", &format!("/element/{path}/value"), json!({"text": "/no_such_index/_count"}));
    d.call("POST", &format!("/element/{send_button}/click"), json!({}));
    d.wait_for("error status", "return document.getElementById('console-status').textContent", |v| {
        v.as_str().is_some_and(|s| s.starts_with("404"))
    });
    let out = d.script("return document.getElementById('console-response').textContent");
    assert!(out.as_str().unwrap().contains("index_not_found_exception"), "{out}");

    // A screenshot that decodes as a PNG; saved where FATHOM_SCREENSHOT says.
    d.call("POST", &format!("/element/{path}/clear"), json!({}));
    d.call("POST", &format!("/element/{path}/value"), json!({"text": "/_cat/indices?v"}));
    d.call("POST", &format!("/element/{send_button}/click"), json!({}));
    d.wait_for("cat answer", "return document.getElementById('console-response').textContent", |v| {
        v.as_str().is_some_and(|s| s.contains("docs.count"))
    });
    let png = d.call("GET", "/screenshot", json!({}));
    let png = base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
}
