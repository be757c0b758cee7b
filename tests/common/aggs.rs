//! Helpers shared by the aggregation tests (tests/http_aggs*.rs).

#![allow(dead_code)]

use serde_json::Value;

use super::http::{post, TestServer};

/// A small deterministic generator (no test depends on an outside seed).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A search that must succeed: its response body.
pub fn search(s: &TestServer, index: &str, body: Value) -> Value {
    let r = post(s.addr, &format!("/{index}/_search"), &body.to_string());
    assert_eq!(r.status, 200, "{}", r.text());
    r.json()
}

/// Equal up to floating-point summation order.
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}
