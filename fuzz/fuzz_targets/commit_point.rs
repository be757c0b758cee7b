//! `segments_N` (the commit point): any bytes decode to a commit point or an error; what decodes
//! writes back and decodes to the same commit point.
#![no_main]

use fathom::engine::index::commit::CommitPoint;
use fathom::engine::store::{Directory, RamDirectory};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fathom_fuzz::with_and_without_footer(data, |b| {
        if let Ok(cp) = CommitPoint::decode_file(b, "segments_1") {
            for k in cp.user_data.keys() {
                let _ = cp.user_i64(k);
            }
            let dir = RamDirectory::new();
            cp.write(&dir).expect("a decoded commit point can be written");
            let again = dir.open(&cp.file_name()).expect("written commit point exists");
            let back = CommitPoint::decode_file(&again, &cp.file_name()).expect("a written commit point decodes");
            assert_eq!(back, cp, "commit point round-trips");
        }
    });
});
