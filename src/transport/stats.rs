//! Transport counters, shaped for the `transport` section of `_nodes/stats`.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// A snapshot of the counters. The first six fields are OpenSearch's `_nodes/stats` transport
/// fields; the `compressed_*` counts are Fathom's own (frames whose payload was zstd-compressed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TransportStats {
    /// Inbound connections open now.
    pub server_open: u64,
    /// Outbound connections open now.
    pub total_outbound_connections: u64,
    pub rx_count: u64,
    pub rx_size_in_bytes: u64,
    pub tx_count: u64,
    pub tx_size_in_bytes: u64,
    pub compressed_rx_count: u64,
    pub compressed_tx_count: u64,
}

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub server_open: AtomicU64,
    pub outbound_open: AtomicU64,
    rx_count: AtomicU64,
    rx_bytes: AtomicU64,
    tx_count: AtomicU64,
    tx_bytes: AtomicU64,
    compressed_rx: AtomicU64,
    compressed_tx: AtomicU64,
}

impl Counters {
    pub fn received(&self, bytes: usize, compressed: bool) {
        self.rx_count.fetch_add(1, Ordering::Relaxed);
        self.rx_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        if compressed {
            self.compressed_rx.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn sent(&self, bytes: usize, compressed: bool) {
        self.tx_count.fetch_add(1, Ordering::Relaxed);
        self.tx_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        if compressed {
            self.compressed_tx.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn snapshot(&self) -> TransportStats {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        TransportStats {
            server_open: l(&self.server_open),
            total_outbound_connections: l(&self.outbound_open),
            rx_count: l(&self.rx_count),
            rx_size_in_bytes: l(&self.rx_bytes),
            tx_count: l(&self.tx_count),
            tx_size_in_bytes: l(&self.tx_bytes),
            compressed_rx_count: l(&self.compressed_rx),
            compressed_tx_count: l(&self.compressed_tx),
        }
    }
}
