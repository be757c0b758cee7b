//! Codec primitives: `ByteReader` driven by the input as a little program of reads, the common
//! header and footer checks, and bit unpacking with arbitrary widths (plus pack/unpack round
//! trips at the widths that are legal).
#![no_main]

use fathom::engine::codec::bitpack::{self, BLOCK};
use fathom::engine::codec::{check_footer, check_header, footer_checksum, ByteReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else { return };
    match sel % 4 {
        0 => reader_program(rest),
        1 => headers(rest),
        2 => unpack(rest),
        _ => round_trip(rest),
    }
});

/// Each step takes an opcode from the front of the input and applies it to a reader over the
/// rest; the reader's position never exceeds its buffer, whatever the result.
fn reader_program(data: &[u8]) {
    let split = data.len().min(16);
    let (ops, buf) = data.split_at(split);
    let mut r = ByteReader::at(buf, 1000);
    for &op in ops {
        let before = r.pos();
        let ok = match op % 16 {
            0 => r.u8().is_ok(),
            1 => r.u16().is_ok(),
            2 => r.u32().is_ok(),
            3 => r.u64().is_ok(),
            4 => r.i64().is_ok(),
            5 => r.vu64().is_ok(),
            6 => r.vu32().is_ok(),
            7 => r.vi64().is_ok(),
            8 => r.len((op as usize) << 2).is_ok(),
            9 => r.bytes().is_ok(),
            10 => r.string().is_ok(),
            11 => r.take(op as usize >> 4).is_ok(),
            12 => r.skip(op as usize >> 4).is_ok(),
            13 => r.seek(op as usize >> 3).is_ok(),
            14 => {
                let _ = (r.rest(), r.offset(), r.is_empty(), r.error("probe"));
                true
            }
            _ => r.len(r.remaining()).is_ok(),
        };
        assert!(r.pos() <= buf.len(), "reader position past its buffer");
        assert_eq!(r.remaining(), buf.len() - r.pos());
        assert_eq!(r.offset(), 1000 + r.pos() as u64);
        if !ok {
            // A failed read never moves the reader backwards.
            assert!(r.pos() >= before || op % 16 == 13);
        }
    }
}

fn headers(data: &[u8]) {
    for codec in ["FathomTerms", "FathomCheckpoint", "", "x"] {
        if let Ok(h) = check_header(data, "f", codec, 0, u32::MAX, None) {
            assert!(h.len <= data.len(), "header length within the input");
            let _ = check_header(data, "f", codec, 1, 1, Some(&h.id));
        }
    }
    let _ = footer_checksum(data, "f");
    if let Ok(body) = check_footer(data, "f") {
        assert_eq!(body.len() + fathom::engine::codec::FOOTER_LEN, data.len());
    }
    if let Some(fixed) = fathom_fuzz::with_valid_footer(data) {
        check_footer(&fixed, "f").expect("a repaired footer verifies");
    }
}

fn unpack(data: &[u8]) {
    let Some((&[bits, n], input)) = data.split_first_chunk::<2>() else { return };
    let mut out = vec![0u32; n as usize % (BLOCK + 1)];
    if let Ok(used) = bitpack::unpack32(input, bits, &mut out) {
        assert!(used <= input.len());
        if bits < 32 {
            assert!(out.iter().all(|&v| (v as u64) < (1u64 << bits)), "values fit in {bits} bits");
        }
    }
    for i in 0..(n as usize) {
        let _ = bitpack::get64(input, bits, i);
    }
}

fn round_trip(data: &[u8]) {
    let Some((&bits, rest)) = data.split_first() else { return };
    let bits32 = bits % 33;
    let mask32 = if bits32 == 32 { u32::MAX } else { (1u32 << bits32) - 1 };
    let values: Vec<u32> =
        rest.chunks_exact(4).take(BLOCK).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) & mask32).collect();
    let mut packed = Vec::new();
    bitpack::pack32(&values, bits32, &mut packed);
    assert_eq!(packed.len(), bitpack::packed_len(values.len(), bits32));
    let mut out = vec![0u32; values.len()];
    bitpack::unpack32(&packed, bits32, &mut out).expect("packed bytes unpack");
    assert_eq!(out, values, "pack32/unpack32 round trip at {bits32} bits");

    let bits64 = bits % 65;
    let mask64 = if bits64 == 64 { u64::MAX } else { (1u64 << bits64) - 1 };
    let values: Vec<u64> =
        rest.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunk")) & mask64).collect();
    let mut packed = Vec::new();
    bitpack::pack64(&values, bits64, &mut packed);
    for (i, &v) in values.iter().enumerate() {
        assert_eq!(
            bitpack::get64(&packed, bits64, i).expect("index within packed values"),
            v,
            "pack64/get64 at {bits64} bits"
        );
    }
    let mut vbuf = Vec::new();
    for &v in &values {
        fathom::engine::codec::put_vu64(&mut vbuf, v);
        fathom::engine::codec::put_vu64(&mut vbuf, fathom::engine::codec::zigzag(v as i64));
    }
    let mut r = ByteReader::new(&vbuf);
    for &v in &values {
        assert_eq!(r.vu64().expect("written varint reads"), v);
        assert_eq!(r.vi64().expect("written zigzag varint reads"), v as i64);
    }
    assert!(r.is_empty());
}
