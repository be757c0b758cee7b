//! Auto-generated document ids, laid out as OpenSearch's `TimeBasedUUIDGenerator`: 15 bytes
//! (sequence, timestamp and a per-process "MAC" address interleaved so that ids made close in
//! time share prefixes) as 20 URL-safe base64 characters. One allocation per id.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

use base64::Engine;

/// A process's random stand-in for a MAC address, and the sequence's random start.
fn seed() -> &'static ([u8; 6], u32) {
    static SEED: OnceLock<([u8; 6], u32)> = OnceLock::new();
    SEED.get_or_init(|| {
        let r = crate::engine::segment::random_id();
        let mut mac = [0u8; 6];
        mac.copy_from_slice(&r[..6]);
        (mac, u32::from_le_bytes([r[6], r[7], r[8], r[9]]))
    })
}

static SEQUENCE: AtomicU32 = AtomicU32::new(0);
static LAST_TIMESTAMP: AtomicU64 = AtomicU64::new(0);

/// The 15 id bytes for `sequence` (24 bits used) and `timestamp` (ms) with `mac`.
fn layout(sequence: u32, timestamp: u64, mac: &[u8; 6]) -> [u8; 15] {
    let s = sequence.to_le_bytes();
    let t = timestamp.to_le_bytes();
    [s[0], s[2], t[2], t[3], t[4], t[5], mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], t[1], s[1], t[0]]
}

/// A new document id: 20 URL-safe base64 characters, unique within the process and (with a
/// random "MAC") across processes.
pub fn generate_id() -> String {
    let (mac, start) = seed();
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed).wrapping_add(*start) & 0x00ff_ffff;
    let now = crate::clock::now_millis() as u64;
    // Never backwards; a wrapped sequence moves time on by a millisecond so ids stay unique.
    let bump = u64::from(sequence == 0);
    let prev = LAST_TIMESTAMP
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| Some(last.max(now) + bump))
        .unwrap_or(0);
    let timestamp = prev.max(now) + bump;
    let mut out = String::with_capacity(20);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode_string(layout(sequence, timestamp, mac), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_20_url_safe_chars_and_unique() {
        let ids: std::collections::HashSet<String> = (0..20_000).map(|_| generate_id()).collect();
        assert_eq!(ids.len(), 20_000);
        assert!(ids
            .iter()
            .all(|id| id.len() == 20 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')));
    }

    #[test]
    fn layout_matches_opensearch_byte_order() {
        let mac = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5];
        let b = layout(0x0003_0201, 0x0000_0605_0403_0201, &mac);
        assert_eq!(b, [0x01, 0x03, 0x03, 0x04, 0x05, 0x06, 0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0x02, 0x02, 0x01]);
    }
}
