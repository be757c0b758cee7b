use super::*;
use crate::engine::store::{Directory, RamDirectory};
use crate::engine::Error;
use proptest::prelude::*;

#[test]
fn header_and_footer_round_trip() {
    let dir = RamDirectory::new();
    let id = [7u8; 16];
    let mut out = IndexOutput::create(&dir, "f", "test", 3, &id).unwrap();
    out.put_vu64(300).unwrap();
    out.put_bytes(b"abc").unwrap();
    let (len, crc) = out.finish().unwrap();
    let bytes = dir.open("f").unwrap();
    assert_eq!(bytes.len() as u64, len);
    let h = check_header(&bytes, "f", "test", 1, 3, Some(&id)).unwrap();
    assert_eq!(h.version, 3);
    assert_eq!(footer_checksum(&bytes, "f").unwrap(), crc);
    let body = check_footer(&bytes, "f").unwrap();
    let mut r = ByteReader::new(&body[h.len..]);
    assert_eq!(r.vu64().unwrap(), 300);
    assert_eq!(r.bytes().unwrap(), b"abc");
    assert!(r.is_empty());
}

#[test]
fn header_errors_name_file_and_cause() {
    let mut h = Vec::new();
    write_header(&mut h, "test", 2, &[0; 16]);
    assert!(matches!(check_header(&h, "f", "test", 3, 4, None), Err(Error::FormatTooOld { version: 2, .. })));
    assert!(matches!(check_header(&h, "f", "test", 0, 1, None), Err(Error::FormatTooNew { version: 2, .. })));
    let e = check_header(&h, "f", "other", 0, 9, None).unwrap_err();
    assert!(e.to_string().contains("codec mismatch") && e.to_string().contains("[f]"), "{e}");
    let e = check_header(&h, "f", "test", 0, 9, Some(&[1; 16])).unwrap_err();
    assert!(e.to_string().contains("id mismatch"), "{e}");
    let e = check_header(&h[..5], "f", "test", 0, 9, None).unwrap_err();
    assert!(e.is_corruption(), "{e}");
}

#[test]
fn every_byte_flip_and_truncation_is_detected() {
    let dir = RamDirectory::new();
    let mut out = IndexOutput::create(&dir, "f", "test", 1, &[1; 16]).unwrap();
    out.put(b"some payload bytes").unwrap();
    out.finish().unwrap();
    let good = dir.open("f").unwrap().to_vec();
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x40;
        let e = check_footer(&bad, "f").unwrap_err();
        assert!(e.is_corruption(), "flip at {i}: {e}");
        assert_eq!(e.file(), Some("f"));
    }
    for n in 0..good.len() {
        assert!(check_footer(&good[..n], "f").is_err(), "truncated to {n}");
    }
}

proptest! {
    #[test]
    fn varints_round_trip(v in any::<u64>(), s in any::<i64>()) {
        let mut b = Vec::new();
        put_vu64(&mut b, v);
        put_vu64(&mut b, zigzag(s));
        let mut r = ByteReader::new(&b);
        prop_assert_eq!(r.vu64().unwrap(), v);
        prop_assert_eq!(r.vi64().unwrap(), s);
    }

    #[test]
    fn varint_decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
        let mut r = ByteReader::new(&bytes);
        while r.vu64().is_ok() {}
    }

    #[test]
    fn bitpack32_round_trips(values in proptest::collection::vec(any::<u32>(), 0..300), bits in 0u8..=32) {
        let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
        let values: Vec<u32> = values.iter().map(|v| v & mask).collect();
        let mut packed = Vec::new();
        bitpack::pack32(&values, bits, &mut packed);
        prop_assert_eq!(packed.len(), bitpack::packed_len(values.len(), bits));
        let mut out = vec![0u32; values.len()];
        let used = bitpack::unpack32(&packed, bits, &mut out).unwrap();
        prop_assert_eq!(used, packed.len());
        prop_assert_eq!(out, values);
    }

    #[test]
    fn bitpack64_random_access(values in proptest::collection::vec(any::<u64>(), 0..100), bits in 0u8..=64) {
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let values: Vec<u64> = values.iter().map(|v| v & mask).collect();
        let mut packed = Vec::new();
        bitpack::pack64(&values, bits, &mut packed);
        for (i, v) in values.iter().enumerate() {
            prop_assert_eq!(bitpack::get64(&packed, bits, i).unwrap(), *v);
        }
    }
}
