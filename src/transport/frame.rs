//! The transport's wire frame: one request, response, error or handshake message.
//!
//! The layout, its invariants and a worked example are in `format/transport.md`. Decoding is a
//! pure function over bytes: any input gives a frame, "need more bytes" or a [`FrameError`],
//! never a panic, and nothing is allocated for a frame whose declared length exceeds
//! [`MAX_PAYLOAD`] (fuzzed in `fuzz/fuzz_targets/transport_frame.rs`).

use std::fmt;
use std::io::Read;

use bytes::Bytes;

/// `FTRP` as little-endian u32 (on the wire `46 54 52 50`).
pub const MAGIC: u32 = u32::from_le_bytes(*b"FTRP");
/// The protocol version this node writes.
pub const PROTOCOL_VERSION: u8 = 1;
/// The oldest protocol version this node reads.
pub const MIN_PROTOCOL_VERSION: u8 = 1;
/// Fixed header: magic, version, flags, reserved, request id, action length, body length.
pub const HEADER_LEN: usize = 4 + 1 + 1 + 2 + 8 + 2 + 4;
/// The trailing CRC32.
pub const TRAILER_LEN: usize = 4;
/// Largest body (on the wire, and after decompression): 200 MiB.
pub const MAX_PAYLOAD: usize = 200 * 1024 * 1024;
/// Longest action name in bytes.
pub const MAX_ACTION_LEN: usize = 1024;
/// Payloads larger than this are zstd-compressed when `transport.compress` is on.
pub const COMPRESS_THRESHOLD: usize = 64 * 1024;

/// Flag bits (byte 5).
pub const FLAG_RESPONSE: u8 = 0x01;
pub const FLAG_ERROR: u8 = 0x02;
pub const FLAG_HANDSHAKE: u8 = 0x04;
pub const FLAG_COMPRESSED: u8 = 0x08;
const KNOWN_FLAGS: u8 = FLAG_RESPONSE | FLAG_ERROR | FLAG_HANDSHAKE | FLAG_COMPRESSED;

/// What a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// A request for `action`.
    Request,
    /// The successful answer to request `request_id`.
    Response,
    /// A failed answer: the payload is the error (`transport::error::encode_os_error`).
    Error,
    /// The connecting side's identity.
    HandshakeRequest,
    /// The accepting side's identity.
    HandshakeResponse,
}

impl FrameKind {
    fn flags(self) -> u8 {
        match self {
            FrameKind::Request => 0,
            FrameKind::Response => FLAG_RESPONSE,
            FrameKind::Error => FLAG_RESPONSE | FLAG_ERROR,
            FrameKind::HandshakeRequest => FLAG_HANDSHAKE,
            FrameKind::HandshakeResponse => FLAG_HANDSHAKE | FLAG_RESPONSE,
        }
    }

    fn from_flags(flags: u8) -> Option<FrameKind> {
        Some(match flags & !FLAG_COMPRESSED {
            0 => FrameKind::Request,
            FLAG_RESPONSE => FrameKind::Response,
            x if x == FLAG_RESPONSE | FLAG_ERROR => FrameKind::Error,
            FLAG_HANDSHAKE => FrameKind::HandshakeRequest,
            x if x == FLAG_HANDSHAKE | FLAG_RESPONSE => FrameKind::HandshakeResponse,
            _ => return None,
        })
    }
}

/// A decoded frame: the payload is always uncompressed here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub kind: FrameKind,
    pub request_id: u64,
    /// The action name; non-empty exactly on [`FrameKind::Request`].
    pub action: String,
    pub payload: Bytes,
}

/// Why bytes are not a frame. Every variant closes the connection that sent them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    BadMagic { found: u32 },
    UnsupportedVersion { found: u8 },
    BadFlags { flags: u8 },
    BadReserved { found: u16 },
    TooLarge { len: usize, max: usize },
    BadAction(String),
    Checksum { expected: u32, actual: u32 },
    Compression(String),
    Truncated { needed: usize, have: usize },
    TrailingBytes { extra: usize },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::BadMagic { found } => {
                write!(
                    f,
                    "invalid frame magic [{found:#010x}], expected [{MAGIC:#010x}] (not a Fathom transport peer?)"
                )
            }
            FrameError::UnsupportedVersion { found } => write!(
                f,
                "received message from unsupported protocol version [{found}], this node reads \
                 [{MIN_PROTOCOL_VERSION}..={PROTOCOL_VERSION}]"
            ),
            FrameError::BadFlags { flags } => write!(f, "invalid frame flags [{flags:#04x}]"),
            FrameError::BadReserved { found } => write!(f, "reserved frame bytes are [{found:#06x}], expected 0"),
            FrameError::TooLarge { len, max } => write!(f, "frame of [{len}] bytes exceeds the maximum of [{max}]"),
            FrameError::BadAction(why) => write!(f, "invalid action name: {why}"),
            FrameError::Checksum { expected, actual } => {
                write!(f, "frame checksum mismatch: stored [{expected:#010x}], computed [{actual:#010x}]")
            }
            FrameError::Compression(why) => write!(f, "invalid compressed payload: {why}"),
            FrameError::Truncated { needed, have } => {
                write!(f, "truncated frame: needs [{needed}] bytes, got [{have}]")
            }
            FrameError::TrailingBytes { extra } => write!(f, "[{extra}] bytes after the frame"),
        }
    }
}

impl std::error::Error for FrameError {}

/// An encoded frame with what the stats count.
#[derive(Debug, Clone)]
pub struct Encoded {
    pub bytes: Bytes,
    pub compressed: bool,
}

/// Encodes `frame`; the payload is zstd-compressed when `compress` is set, it is larger than
/// [`COMPRESS_THRESHOLD`] and compression makes it smaller.
pub fn encode(frame: &Frame, compress: bool) -> Result<Encoded, FrameError> {
    let action = frame.action.as_bytes();
    check_action(frame.kind, action)?;
    if frame.payload.len() > MAX_PAYLOAD {
        return Err(FrameError::TooLarge { len: frame.payload.len(), max: MAX_PAYLOAD });
    }
    let mut flags = frame.kind.flags();
    let mut body: &[u8] = &frame.payload;
    let packed;
    if compress && frame.payload.len() > COMPRESS_THRESHOLD {
        let z = zstd::bulk::compress(&frame.payload, 1).map_err(|e| FrameError::Compression(e.to_string()))?;
        if z.len() + 4 < frame.payload.len() {
            let mut v = Vec::with_capacity(z.len() + 4);
            v.extend_from_slice(&(frame.payload.len() as u32).to_le_bytes());
            v.extend_from_slice(&z);
            packed = v;
            body = &packed;
            flags |= FLAG_COMPRESSED;
        }
    }
    let mut out = Vec::with_capacity(HEADER_LEN + action.len() + body.len() + TRAILER_LEN);
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.push(PROTOCOL_VERSION);
    out.push(flags);
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&frame.request_id.to_le_bytes());
    out.extend_from_slice(&(action.len() as u16).to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(action);
    out.extend_from_slice(body);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(Encoded { bytes: Bytes::from(out), compressed: flags & FLAG_COMPRESSED != 0 })
}

fn check_action(kind: FrameKind, action: &[u8]) -> Result<(), FrameError> {
    if action.len() > MAX_ACTION_LEN {
        return Err(FrameError::BadAction(format!("[{}] bytes, at most [{MAX_ACTION_LEN}]", action.len())));
    }
    match (kind == FrameKind::Request, action.is_empty()) {
        (true, true) => Err(FrameError::BadAction("a request needs an action name".into())),
        (false, false) => Err(FrameError::BadAction("only requests carry an action name".into())),
        _ => Ok(()),
    }
}

/// The outcome of [`decode`] on a buffer that may hold a partial frame.
#[derive(Debug)]
pub enum Decoded {
    /// A whole frame and the number of bytes it used.
    Frame(Frame, usize),
    /// The buffer holds a valid prefix; the frame needs this many bytes in total.
    Need(usize),
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Decodes the frame at the start of `buf`. Header fields are validated as soon as they are
/// present, so a bad or oversized frame is rejected before its body arrives.
pub fn decode(buf: &[u8]) -> Result<Decoded, FrameError> {
    if buf.len() >= 4 && u32_at(buf, 0) != MAGIC {
        return Err(FrameError::BadMagic { found: u32_at(buf, 0) });
    }
    if buf.len() < HEADER_LEN {
        return Ok(Decoded::Need(HEADER_LEN));
    }
    let version = buf[4];
    if !(MIN_PROTOCOL_VERSION..=PROTOCOL_VERSION).contains(&version) {
        return Err(FrameError::UnsupportedVersion { found: version });
    }
    let flags = buf[5];
    let kind = match FrameKind::from_flags(flags) {
        Some(k) if flags & !KNOWN_FLAGS == 0 => k,
        _ => return Err(FrameError::BadFlags { flags }),
    };
    let reserved = u16_at(buf, 6);
    if reserved != 0 {
        return Err(FrameError::BadReserved { found: reserved });
    }
    let request_id = u64::from_le_bytes(buf[8..16].try_into().expect("8 bytes"));
    let action_len = u16_at(buf, 16) as usize;
    let body_len = u32_at(buf, 18) as usize;
    if action_len > MAX_ACTION_LEN {
        return Err(FrameError::BadAction(format!("[{action_len}] bytes, at most [{MAX_ACTION_LEN}]")));
    }
    if body_len > MAX_PAYLOAD {
        return Err(FrameError::TooLarge { len: body_len, max: MAX_PAYLOAD });
    }
    let total = HEADER_LEN + action_len + body_len + TRAILER_LEN;
    if buf.len() < total {
        return Ok(Decoded::Need(total));
    }
    let expected = u32_at(buf, total - TRAILER_LEN);
    let actual = crc32fast::hash(&buf[..total - TRAILER_LEN]);
    if expected != actual {
        return Err(FrameError::Checksum { expected, actual });
    }
    let action_bytes = &buf[HEADER_LEN..HEADER_LEN + action_len];
    check_action(kind, action_bytes)?;
    let action =
        std::str::from_utf8(action_bytes).map_err(|e| FrameError::BadAction(format!("not UTF-8: {e}")))?.to_string();
    let body = &buf[HEADER_LEN + action_len..total - TRAILER_LEN];
    let payload =
        if flags & FLAG_COMPRESSED != 0 { Bytes::from(decompress(body)?) } else { Bytes::copy_from_slice(body) };
    Ok(Decoded::Frame(Frame { kind, request_id, action, payload }, total))
}

/// Decodes a buffer that must hold exactly one frame.
pub fn decode_exact(buf: &[u8]) -> Result<Frame, FrameError> {
    match decode(buf)? {
        Decoded::Need(needed) => Err(FrameError::Truncated { needed, have: buf.len() }),
        Decoded::Frame(_, used) if used < buf.len() => Err(FrameError::TrailingBytes { extra: buf.len() - used }),
        Decoded::Frame(f, _) => Ok(f),
    }
}

/// `RawLen u32` then one zstd stream whose output is exactly `RawLen` bytes. The output grows as
/// it is produced (never preallocated from the declared length).
fn decompress(body: &[u8]) -> Result<Vec<u8>, FrameError> {
    if body.len() < 4 {
        return Err(FrameError::Compression(format!("[{}] bytes, shorter than its length prefix", body.len())));
    }
    let raw_len = u32_at(body, 0) as usize;
    if raw_len > MAX_PAYLOAD {
        return Err(FrameError::TooLarge { len: raw_len, max: MAX_PAYLOAD });
    }
    let dec =
        zstd::stream::read::Decoder::with_buffer(&body[4..]).map_err(|e| FrameError::Compression(e.to_string()))?;
    let mut out = Vec::with_capacity(raw_len.min(body.len().saturating_mul(4)));
    dec.take(raw_len as u64 + 1).read_to_end(&mut out).map_err(|e| FrameError::Compression(e.to_string()))?;
    if out.len() != raw_len {
        return Err(FrameError::Compression(format!(
            "declares [{raw_len}] uncompressed bytes, decompresses to [{}]{}",
            out.len().min(raw_len),
            if out.len() > raw_len { " or more" } else { "" }
        )));
    }
    Ok(out)
}

#[cfg(test)]
#[path = "frame_tests.rs"]
mod tests;
