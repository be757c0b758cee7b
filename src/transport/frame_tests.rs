use super::*;
use proptest::prelude::*;

fn frame(kind: FrameKind, id: u64, action: &str, payload: &[u8]) -> Frame {
    Frame { kind, request_id: id, action: action.into(), payload: Bytes::copy_from_slice(payload) }
}

fn enc(f: &Frame) -> Vec<u8> {
    encode(f, true).unwrap().bytes.to_vec()
}

fn with_crc(mut b: Vec<u8>) -> Vec<u8> {
    let n = b.len() - TRAILER_LEN;
    let crc = crc32fast::hash(&b[..n]);
    b[n..].copy_from_slice(&crc.to_le_bytes());
    b
}

#[test]
fn worked_example_bytes() {
    // The example of format/transport.md.
    let b = enc(&frame(FrameKind::Request, 7, "ping", b"{}"));
    let mut want = vec![0x46, 0x54, 0x52, 0x50, 1, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 4, 0, 2, 0, 0, 0];
    want.extend_from_slice(b"ping{}");
    assert_eq!(&b[..want.len()], &want[..]);
    assert_eq!(b.len(), HEADER_LEN + 6 + TRAILER_LEN);
    assert_eq!(u32_at(&b, b.len() - 4), crc32fast::hash(&want));
}

#[test]
fn round_trips_every_kind() {
    for f in [
        frame(FrameKind::Request, 1, "internal:a", b"abc"),
        frame(FrameKind::Response, u64::MAX, "", b""),
        frame(FrameKind::Error, 3, "", b"{\"type\":\"exception\"}"),
        frame(FrameKind::HandshakeRequest, 4, "", b"{}"),
        frame(FrameKind::HandshakeResponse, 5, "", b"{}"),
    ] {
        let b = enc(&f);
        assert_eq!(decode_exact(&b).unwrap(), f);
        match decode(&b).unwrap() {
            Decoded::Frame(g, used) => assert_eq!((g, used), (f, b.len())),
            Decoded::Need(n) => panic!("needs {n}"),
        }
    }
}

#[test]
fn large_payloads_compress_only_when_asked_and_useful() {
    let big = vec![b'x'; COMPRESS_THRESHOLD + 1];
    let f = frame(FrameKind::Response, 9, "", &big);
    let e = encode(&f, true).unwrap();
    assert!(e.compressed);
    assert!(e.bytes.len() < big.len() / 10);
    assert_eq!(decode_exact(&e.bytes).unwrap(), f);
    assert!(!encode(&f, false).unwrap().compressed);
    // At the threshold: not compressed.
    assert!(!encode(&frame(FrameKind::Response, 9, "", &big[1..]), true).unwrap().compressed);
    // Incompressible data stays raw.
    let mut x: u64 = 0x9E3779B97F4A7C15;
    let noise: Vec<u8> = (0..COMPRESS_THRESHOLD * 2)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let e = encode(&frame(FrameKind::Response, 1, "", &noise), true).unwrap();
    assert!(!e.compressed);
}

#[test]
fn every_truncation_is_rejected_or_needs_more() {
    let big = vec![b'y'; COMPRESS_THRESHOLD * 2];
    for f in [frame(FrameKind::Request, 2, "act", b"payload"), frame(FrameKind::Response, 2, "", &big)] {
        let b = enc(&f);
        for cut in 0..b.len() {
            match decode(&b[..cut]) {
                Ok(Decoded::Need(n)) => assert!(n > cut, "cut {cut} needs {n}"),
                other => panic!("cut {cut}: {other:?}"),
            }
            assert!(matches!(decode_exact(&b[..cut]), Err(FrameError::Truncated { .. })));
        }
        let mut longer = b.clone();
        longer.push(0);
        assert_eq!(decode_exact(&longer), Err(FrameError::TrailingBytes { extra: 1 }));
    }
}

#[test]
fn every_bit_flip_is_rejected() {
    let b = enc(&frame(FrameKind::Request, 0x0102030405060708, "internal:x", b"some payload"));
    for i in 0..b.len() {
        for bit in 0..8 {
            let mut c = b.clone();
            c[i] ^= 1 << bit;
            // A flip in a length field may make the frame look longer: then it needs more bytes.
            match decode(&c) {
                Err(_) | Ok(Decoded::Need(_)) => {}
                Ok(Decoded::Frame(..)) => panic!("flip of bit {bit} at byte {i} accepted"),
            }
        }
    }
}

#[test]
fn header_errors_are_named() {
    let b = enc(&frame(FrameKind::Request, 1, "a", b"p"));
    let mut c = b.clone();
    c[0] = b'G';
    assert!(matches!(decode(&c[..4]), Err(FrameError::BadMagic { .. })), "magic checked on 4 bytes");
    let mut c = b.clone();
    c[4] = 2;
    assert_eq!(decode(&c).unwrap_err(), FrameError::UnsupportedVersion { found: 2 });
    c[4] = 0;
    assert_eq!(decode(&c).unwrap_err(), FrameError::UnsupportedVersion { found: 0 });
    for flags in [FLAG_ERROR, 0x10, 0x80, FLAG_HANDSHAKE | FLAG_ERROR] {
        let mut c = b.clone();
        c[5] = flags;
        assert_eq!(decode(&c).unwrap_err(), FrameError::BadFlags { flags });
    }
    let mut c = b.clone();
    c[6] = 1;
    assert_eq!(decode(&c).unwrap_err(), FrameError::BadReserved { found: 1 });
    // A body length over the maximum is rejected from the header alone.
    let mut c = b[..HEADER_LEN].to_vec();
    c[18..22].copy_from_slice(&(MAX_PAYLOAD as u32 + 1).to_le_bytes());
    assert!(matches!(decode(&c), Err(FrameError::TooLarge { .. })));
    let mut c = b[..HEADER_LEN].to_vec();
    c[16..18].copy_from_slice(&(MAX_ACTION_LEN as u16 + 1).to_le_bytes());
    assert!(matches!(decode(&c), Err(FrameError::BadAction(_))));
}

#[test]
fn action_rules_hold_both_ways() {
    assert!(encode(&frame(FrameKind::Request, 1, "", b""), false).is_err());
    assert!(encode(&frame(FrameKind::Response, 1, "x", b""), false).is_err());
    assert!(encode(&frame(FrameKind::Request, 1, &"a".repeat(MAX_ACTION_LEN + 1), b""), false).is_err());
    // A response carrying an action (CRC repaired) and a request without one are rejected.
    let mut b = enc(&frame(FrameKind::Request, 1, "ab", b""));
    b[5] = FLAG_RESPONSE;
    assert!(matches!(decode_exact(&with_crc(b)), Err(FrameError::BadAction(_))));
    // Invalid UTF-8 in the action.
    let mut b = enc(&frame(FrameKind::Request, 1, "ab", b""));
    b[HEADER_LEN] = 0xff;
    assert!(matches!(decode_exact(&with_crc(b)), Err(FrameError::BadAction(_))));
}

#[test]
fn bad_compressed_bodies_are_rejected() {
    let big = vec![b'z'; COMPRESS_THRESHOLD * 3];
    let b = enc(&frame(FrameKind::Response, 1, "", &big));
    assert_eq!(b[5] & FLAG_COMPRESSED, FLAG_COMPRESSED);
    // Declared length too small, too large, over the maximum.
    for raw in [big.len() as u32 - 1, big.len() as u32 + 1, MAX_PAYLOAD as u32 + 1, 0] {
        let mut c = b.clone();
        c[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&raw.to_le_bytes());
        let err = decode_exact(&with_crc(c)).unwrap_err();
        assert!(matches!(err, FrameError::Compression(_) | FrameError::TooLarge { .. }), "{raw}: {err}");
    }
    // Garbage zstd data; a body shorter than its length prefix.
    let mut c = b.clone();
    c[HEADER_LEN + 4] ^= 0xff;
    assert!(matches!(decode_exact(&with_crc(c)), Err(FrameError::Compression(_))));
    let mut raw = enc(&frame(FrameKind::Response, 1, "", b"ab"));
    raw[5] |= FLAG_COMPRESSED;
    assert!(matches!(decode_exact(&with_crc(raw)), Err(FrameError::Compression(_))));
}

fn kind_strategy() -> impl Strategy<Value = FrameKind> {
    prop_oneof![
        Just(FrameKind::Request),
        Just(FrameKind::Response),
        Just(FrameKind::Error),
        Just(FrameKind::HandshakeRequest),
        Just(FrameKind::HandshakeResponse),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn prop_round_trip(kind in kind_strategy(), id in any::<u64>(), action in "[a-z:/_\\[\\]]{1,40}",
                       payload in proptest::collection::vec(any::<u8>(), 0..2000), rep in 0usize..80,
                       compress in any::<bool>()) {
        let action = if kind == FrameKind::Request { action } else { String::new() };
        // Repeating the payload crosses the compression threshold with compressible bytes.
        let payload: Vec<u8> = payload.iter().copied().cycle().take(payload.len() * rep.max(1)).collect();
        let f = Frame { kind, request_id: id, action, payload: Bytes::from(payload) };
        let b = encode(&f, compress).unwrap().bytes;
        prop_assert_eq!(decode_exact(&b).unwrap(), f.clone());
        // Two frames back to back decode one at a time.
        let mut two = b.to_vec();
        two.extend_from_slice(&b);
        match decode(&two).unwrap() {
            Decoded::Frame(g, used) => { prop_assert_eq!(g, f); prop_assert_eq!(used, b.len()); }
            Decoded::Need(_) => prop_assert!(false, "two frames need more"),
        }
    }

    #[test]
    fn prop_any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode(&bytes);
        let _ = decode_exact(&bytes);
        // With a valid magic and version so the later checks are reached.
        let mut b = bytes.clone();
        if b.len() >= 5 {
            b[..4].copy_from_slice(&MAGIC.to_le_bytes());
            b[4] = PROTOCOL_VERSION;
            let _ = decode(&b);
            if b.len() >= HEADER_LEN + TRAILER_LEN {
                let _ = decode_exact(&with_crc(b));
            }
        }
    }

    #[test]
    fn prop_corruption_is_rejected(payload in proptest::collection::vec(any::<u8>(), 0..500), at in any::<usize>(),
                                   xor in 1u8..=255) {
        let b = enc(&Frame { kind: FrameKind::Request, request_id: 42, action: "a:b".into(), payload: Bytes::from(payload) });
        let mut c = b.clone();
        let i = at % c.len();
        c[i] ^= xor;
        prop_assert!(!matches!(decode(&c), Ok(Decoded::Frame(..))));
    }
}

#[cfg(feature = "server")]
#[test]
fn a_parent_task_rides_after_the_action_name() {
    let f = frame(FrameKind::Request, 3, "indices:data/read/search[phase/query+fetch]\0node-a:42", b"{}");
    let back = decode_exact(&enc(&f)).unwrap();
    let (action, parent) = crate::transport::service::split_action(&back.action);
    assert_eq!(action, "indices:data/read/search[phase/query+fetch]");
    assert_eq!(parent, Some("node-a:42"));
    assert_eq!(crate::transport::service::split_action("ping"), ("ping", None));
}
