//! Transport frames: any bytes given to `frame::decode` / `decode_exact` give a frame, "need more"
//! or an error, never a panic. The same bytes with the CRC of their first frame repaired reach
//! the checks behind the checksum (flags, action, decompression). An accepted frame re-encodes
//! and decodes to itself; a stream of frames is consumed frame by frame as a connection does.
#![no_main]

use fathom::transport::frame::{self, Decoded};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(data);
    if let Some(fixed) = fathom_fuzz::fix_frame_crc(data) {
        check(&fixed);
    }
});

fn check(data: &[u8]) {
    let _ = frame::decode_exact(data);
    // As a connection reads a stream: frame after frame until more bytes are needed or an error.
    let mut at = 0;
    while at <= data.len() {
        match frame::decode(&data[at..]) {
            Ok(Decoded::Frame(f, used)) => {
                assert!(used > 0 && at + used <= data.len(), "a frame uses bytes it was given");
                for compress in [false, true] {
                    let again = frame::encode(&f, compress).expect("a decoded frame encodes");
                    assert_eq!(frame::decode_exact(&again.bytes).expect("an encoded frame decodes"), f);
                }
                at += used;
            }
            Ok(Decoded::Need(n)) => {
                assert!(n > data.len() - at, "needs more than it has");
                break;
            }
            Err(_) => break,
        }
    }
}
