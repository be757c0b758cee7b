//! The binary response formats OpenSearch offers through `format=cbor` and `format=smile`:
//! CBOR (RFC 8949) and Jackson's Smile, encoded from the JSON body.

use serde_json::Value;

/// Encodes a JSON value as CBOR.
pub fn to_cbor(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    cbor(v, &mut out);
    out
}

fn cbor_head(major: u8, n: u64, out: &mut Vec<u8>) {
    let m = major << 5;
    if n < 24 {
        out.push(m | n as u8);
    } else if n < 0x100 {
        out.extend_from_slice(&[m | 24, n as u8]);
    } else if n < 0x1_0000 {
        out.push(m | 25);
        out.extend_from_slice(&(n as u16).to_be_bytes());
    } else if n < 0x1_0000_0000 {
        out.push(m | 26);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    } else {
        out.push(m | 27);
        out.extend_from_slice(&n.to_be_bytes());
    }
}

fn cbor(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0xf6),
        Value::Bool(false) => out.push(0xf4),
        Value::Bool(true) => out.push(0xf5),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                cbor_head(0, u, out);
            } else if let Some(i) = n.as_i64() {
                cbor_head(1, (-1 - i) as u64, out);
            } else {
                out.push(0xfb);
                out.extend_from_slice(&n.as_f64().unwrap_or(f64::NAN).to_be_bytes());
            }
        }
        Value::String(s) => {
            cbor_head(3, s.len() as u64, out);
            out.extend_from_slice(s.as_bytes());
        }
        Value::Array(a) => {
            cbor_head(4, a.len() as u64, out);
            for x in a {
                cbor(x, out);
            }
        }
        Value::Object(m) => {
            cbor_head(5, m.len() as u64, out);
            for (k, x) in m {
                cbor_head(3, k.len() as u64, out);
                out.extend_from_slice(k.as_bytes());
                cbor(x, out);
            }
        }
    }
}

/// Encodes a JSON value as Smile (header `:)\n`, version 0, no shared names or values).
pub fn to_smile(v: &Value) -> Vec<u8> {
    let mut out = vec![b':', b')', b'\n', 0x00];
    smile(v, &mut out);
    out
}

fn zigzag32(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

fn zigzag64(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Smile's VInt: 7-bit groups, most significant first; the last byte carries 6 bits and has its
/// high bit set.
fn smile_vint(v: u64, out: &mut Vec<u8>) {
    let last = (v & 0x3f) as u8 | 0x80;
    let mut rest = v >> 6;
    let mut groups = Vec::new();
    while rest > 0 {
        groups.push((rest & 0x7f) as u8);
        rest >>= 7;
    }
    out.extend(groups.iter().rev());
    out.push(last);
}

fn smile_string_value(s: &str, out: &mut Vec<u8>) {
    let len = s.len();
    let ascii = s.is_ascii();
    match (len, ascii) {
        (0, _) => out.push(0x20),
        (1..=32, true) => out.push(0x40 + (len - 1) as u8),
        (33..=64, true) => out.push(0x60 + (len - 33) as u8),
        (2..=33, false) => out.push(0x80 + (len - 2) as u8),
        (34..=65, false) => out.push(0xa0 + (len - 34) as u8),
        (_, true) => {
            out.push(0xe0);
            out.extend_from_slice(s.as_bytes());
            out.push(0xfc);
            return;
        }
        (_, false) => {
            out.push(0xe4);
            out.extend_from_slice(s.as_bytes());
            out.push(0xfc);
            return;
        }
    }
    out.extend_from_slice(s.as_bytes());
}

fn smile_key(k: &str, out: &mut Vec<u8>) {
    let len = k.len();
    match (len, k.is_ascii()) {
        (0, _) => out.push(0x20),
        (1..=64, true) => {
            out.push(0x80 + (len - 1) as u8);
            out.extend_from_slice(k.as_bytes());
        }
        (2..=57, false) => {
            out.push(0xc0 + (len - 2) as u8);
            out.extend_from_slice(k.as_bytes());
        }
        _ => {
            out.push(0x34);
            out.extend_from_slice(k.as_bytes());
            out.push(0xfc);
        }
    }
}

fn smile(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0x21),
        Value::Bool(false) => out.push(0x22),
        Value::Bool(true) => out.push(0x23),
        Value::Number(n) => match n.as_i64() {
            Some(i) if (-16..=15).contains(&i) => out.push(0xc0 + zigzag32(i as i32) as u8),
            Some(i) if i32::try_from(i).is_ok() => {
                out.push(0x24);
                smile_vint(zigzag32(i as i32) as u64, out);
            }
            Some(i) => {
                out.push(0x25);
                smile_vint(zigzag64(i), out);
            }
            None => {
                // Doubles (and u64 beyond i64, as doubles): 64 bits in 7-bit groups, 10 bytes.
                let bits = n.as_f64().unwrap_or(f64::NAN).to_bits();
                out.push(0x29);
                for i in (0..10).rev() {
                    out.push(((bits >> (i * 7)) & 0x7f) as u8);
                }
            }
        },
        Value::String(s) => smile_string_value(s, out),
        Value::Array(a) => {
            out.push(0xf8);
            for x in a {
                smile(x, out);
            }
            out.push(0xf9);
        }
        Value::Object(m) => {
            out.push(0xfa);
            for (k, x) in m {
                smile_key(k, out);
                smile(x, out);
            }
            out.push(0xfb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cbor_known_encodings() {
        // RFC 8949 Appendix A examples.
        assert_eq!(to_cbor(&json!(0)), [0x00]);
        assert_eq!(to_cbor(&json!(23)), [0x17]);
        assert_eq!(to_cbor(&json!(24)), [0x18, 0x18]);
        assert_eq!(to_cbor(&json!(1000)), [0x19, 0x03, 0xe8]);
        assert_eq!(to_cbor(&json!(-1)), [0x20]);
        assert_eq!(to_cbor(&json!(-1000)), [0x39, 0x03, 0xe7]);
        assert_eq!(to_cbor(&json!(1.1)), [0xfb, 0x3f, 0xf1, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a]);
        assert_eq!(to_cbor(&json!("a")), [0x61, 0x61]);
        assert_eq!(to_cbor(&json!([1, [2, 3]])), [0x82, 0x01, 0x82, 0x02, 0x03]);
        assert_eq!(to_cbor(&json!({"a": 1})), [0xa1, 0x61, 0x61, 0x01]);
        assert_eq!(to_cbor(&json!(null)), [0xf6]);
    }

    #[test]
    fn smile_known_encodings() {
        // Values from the Smile format specification.
        assert_eq!(to_smile(&json!(null))[4..], [0x21]);
        assert_eq!(to_smile(&json!(true))[4..], [0x23]);
        assert_eq!(to_smile(&json!(0))[4..], [0xc0]);
        assert_eq!(to_smile(&json!(-1))[4..], [0xc1]);
        assert_eq!(to_smile(&json!(15))[4..], [0xde]);
        // 100 → zigzag 200 = 0b11_001000: one 7-bit group [3] then last byte 0x80|0x08.
        assert_eq!(to_smile(&json!(100))[4..], [0x24, 0x03, 0x88]);
        assert_eq!(to_smile(&json!("abc"))[4..], [0x42, b'a', b'b', b'c']);
        assert_eq!(to_smile(&json!({"a": [1]}))[4..], [0xfa, 0x80, b'a', 0xf8, 0xc2, 0xf9, 0xfb]);
        assert_eq!(&to_smile(&json!(1))[..4], b":)\n\x00");
    }
}
