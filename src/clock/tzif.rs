//! The TZif binary format of the tz database (RFC 8536, versions 1 to 4): a header, a 32-bit data
//! block, and for version 2 and later a 64-bit data block followed by a POSIX TZ footer string
//! for instants after the last transition. Every count and index is checked: a damaged or
//! truncated file is an error, never a panic.

/// The parts of a TZif file a zone needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Tzif {
    /// UT offsets in seconds of the local time types; type 0 applies before the first transition.
    pub offsets: Vec<i32>,
    /// Transition times (seconds since the epoch, strictly increasing) with the index of the
    /// local time type in effect from each.
    pub transitions: Vec<(i64, usize)>,
    /// The POSIX TZ string of the footer (version 2+), empty when the file has none.
    pub footer: String,
    /// Whether the file counts leap seconds (the `right/` zones), which java.time never does.
    pub leap_seconds: bool,
}

struct Header {
    version: u8,
    isutcnt: usize,
    isstdcnt: usize,
    leapcnt: usize,
    timecnt: usize,
    typecnt: usize,
    charcnt: usize,
}

const HEADER_LEN: usize = 44;

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.b.len()).ok_or("truncated TZif data")?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let s = self.take(4)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }

    fn header(&mut self) -> Result<Header, String> {
        let h = self.take(HEADER_LEN)?;
        if &h[..4] != b"TZif" {
            return Err("not a TZif file".into());
        }
        let version = h[4];
        if !matches!(version, 0 | b'2' | b'3' | b'4') {
            return Err(format!("unknown TZif version [{}]", version.escape_ascii()));
        }
        let count = |i: usize| {
            let s = &h[20 + 4 * i..24 + 4 * i];
            u32::from_be_bytes([s[0], s[1], s[2], s[3]]) as usize
        };
        let hd = Header {
            version,
            isutcnt: count(0),
            isstdcnt: count(1),
            leapcnt: count(2),
            timecnt: count(3),
            typecnt: count(4),
            charcnt: count(5),
        };
        if hd.typecnt == 0 || hd.typecnt > 256 {
            return Err(format!("invalid TZif type count [{}]", hd.typecnt));
        }
        if (hd.isutcnt != 0 && hd.isutcnt != hd.typecnt) || (hd.isstdcnt != 0 && hd.isstdcnt != hd.typecnt) {
            return Err("invalid TZif indicator counts".into());
        }
        Ok(hd)
    }

    /// The length of a data block whose times take `tsize` bytes, checked against the input.
    fn block_len(&self, h: &Header, tsize: usize) -> Result<usize, String> {
        let parts =
            [h.timecnt * tsize, h.timecnt, h.typecnt * 6, h.charcnt, h.leapcnt * (tsize + 4), h.isstdcnt, h.isutcnt];
        let len = parts.iter().try_fold(0usize, |a, p| a.checked_add(*p)).ok_or("invalid TZif counts")?;
        if self.pos.checked_add(len).is_none_or(|e| e > self.b.len()) {
            return Err("truncated TZif data".into());
        }
        Ok(len)
    }

    fn block(&mut self, h: &Header, tsize: usize) -> Result<Tzif, String> {
        self.block_len(h, tsize)?;
        let mut times = Vec::with_capacity(h.timecnt);
        for _ in 0..h.timecnt {
            let t = if tsize == 8 {
                let s = self.take(8)?;
                i64::from_be_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]])
            } else {
                i64::from(self.u32()? as i32)
            };
            if times.last().is_some_and(|p| *p >= t) {
                return Err("TZif transition times are not increasing".into());
            }
            times.push(t);
        }
        let idx = self.take(h.timecnt)?;
        let mut offsets = Vec::with_capacity(h.typecnt);
        for _ in 0..h.typecnt {
            let utoff = self.u32()? as i32;
            let info = self.take(2)?;
            if !(-89_999..=93_599).contains(&utoff) {
                return Err(format!("TZif offset [{utoff}] out of range"));
            }
            if info[0] > 1 || usize::from(info[1]) >= h.charcnt.max(1) {
                return Err("invalid TZif local time type".into());
            }
            offsets.push(utoff);
        }
        let mut transitions = Vec::with_capacity(h.timecnt);
        for (t, i) in times.into_iter().zip(idx) {
            let i = usize::from(*i);
            if i >= h.typecnt {
                return Err(format!("TZif transition type [{i}] out of range"));
            }
            transitions.push((t, i));
        }
        self.take(h.charcnt + h.leapcnt * (tsize + 4) + h.isstdcnt + h.isutcnt)?;
        Ok(Tzif { offsets, transitions, footer: String::new(), leap_seconds: h.leapcnt > 0 })
    }
}

/// Parses a TZif file.
pub fn parse(bytes: &[u8]) -> Result<Tzif, String> {
    let mut r = Reader { b: bytes, pos: 0 };
    let h1 = r.header()?;
    if h1.version == 0 {
        return r.block(&h1, 4);
    }
    let skip = r.block_len(&h1, 4)?;
    r.take(skip)?;
    let h2 = r.header()?;
    let mut tz = r.block(&h2, 8)?;
    let rest = &bytes[r.pos..];
    if rest.first() != Some(&b'\n') {
        return Err("missing TZif footer".into());
    }
    let end = rest[1..].iter().position(|b| *b == b'\n').ok_or("unterminated TZif footer")?;
    tz.footer = std::str::from_utf8(&rest[1..1 + end]).map_err(|_| "TZif footer is not ASCII")?.to_string();
    if !tz.footer.is_ascii() {
        return Err("TZif footer is not ASCII".into());
    }
    Ok(tz)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A version-2 TZif file with the given types and transitions and footer.
    pub(crate) fn build(offsets: &[i32], transitions: &[(i64, u8)], footer: &str) -> Vec<u8> {
        let header = |version: u8, timecnt: usize| {
            let mut h = b"TZif".to_vec();
            h.push(version);
            h.extend([0u8; 15]);
            for c in [0, 0, 0, timecnt, offsets.len(), 4] {
                h.extend((c as u32).to_be_bytes());
            }
            h
        };
        let mut out = header(b'2', 0);
        for o in offsets {
            out.extend(o.to_be_bytes());
            out.extend([0, 0]);
        }
        out.extend(b"ABC\0");
        out.extend(header(b'2', transitions.len()));
        for (t, _) in transitions {
            out.extend(t.to_be_bytes());
        }
        out.extend(transitions.iter().map(|(_, i)| *i));
        for o in offsets {
            out.extend(o.to_be_bytes());
            out.extend([0, 0]);
        }
        out.extend(b"ABC\0");
        out.push(b'\n');
        out.extend(footer.as_bytes());
        out.push(b'\n');
        out
    }

    #[test]
    fn parses_what_it_builds() {
        let b = build(&[-18_000, -14_400], &[(100, 1), (200, 0)], "EST5EDT,M3.2.0,M11.1.0");
        let tz = parse(&b).unwrap();
        assert_eq!(tz.offsets, vec![-18_000, -14_400]);
        assert_eq!(tz.transitions, vec![(100, 1), (200, 0)]);
        assert_eq!(tz.footer, "EST5EDT,M3.2.0,M11.1.0");
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error() {
        let b = build(&[-18_000, -14_400], &[(100, 1), (200, 0)], "EST5EDT,M3.2.0,M11.1.0");
        for n in 0..b.len() - 1 {
            assert!(parse(&b[..n]).is_err(), "truncated at {n}");
        }
        let mut bad = b.clone();
        bad[4] = b'9';
        assert!(parse(&bad).is_err());
        // A transition pointing at a type that does not exist.
        let bad = build(&[0], &[(100, 3)], "UTC0");
        assert!(parse(&bad).unwrap_err().contains("out of range"));
        let bad = build(&[0, 3600], &[(200, 1), (100, 0)], "UTC0");
        assert!(parse(&bad).is_err());
        // Huge counts do not allocate or overflow.
        let mut bad = b.clone();
        bad[32..36].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(parse(&bad).is_err());
        // Every single-byte flip either parses or errors, never panics.
        for i in 0..b.len() {
            let mut x = b.clone();
            x[i] ^= 0xA5;
            let _ = parse(&x);
        }
    }
}
