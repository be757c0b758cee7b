//! Translog files: any bytes given to `check_file` as a generation (`translog-1.tlog`) or as a
//! checkpoint (`translog.ckp`), and to `Operation::decode`, give Ok or an error. The same bytes
//! with their CRCs repaired (header and frame CRCs of a `.tlog`, footer of a `.ckp`) reach the
//! parsers behind the checksums. Finally the first 121 bytes (as a checkpoint, footer repaired)
//! and the rest (as generation 1, CRCs repaired) go through recovery (`Translog::open`).
#![no_main]

use fathom::engine::translog::checkpoint::FILE_LEN;
use fathom::engine::translog::{self, Operation};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = translog::check_file("translog-1.tlog", data);
    let fixed = fathom_fuzz::fix_tlog_crcs(data);
    if fixed != data {
        let _ = translog::check_file("translog-1.tlog", &fixed);
    }
    fathom_fuzz::with_and_without_footer(data, |b| {
        let _ = translog::check_file("translog.ckp", b);
    });
    if let Ok(op) = Operation::decode(data) {
        let mut again = Vec::new();
        op.encode(&mut again);
        assert_eq!(Operation::decode(&again).expect("an encoded operation decodes"), op, "operation round-trips");
    }
    if data.len() >= FILE_LEN {
        let (ckp, tlog) = data.split_at(FILE_LEN);
        let ckp = fathom_fuzz::with_valid_footer(ckp).unwrap_or_else(|| ckp.to_vec());
        let _ = fathom_fuzz::recover_translog(&ckp, &fathom_fuzz::fix_tlog_crcs(tlog));
    }
});
