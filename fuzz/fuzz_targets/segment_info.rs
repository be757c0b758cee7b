//! `{segment}.si`: any bytes decode to a segment info or an error; what decodes writes back and
//! reads to the same segment info.
#![no_main]

use fathom::engine::segment::info::SegmentInfo;
use fathom::engine::store::RamDirectory;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fathom_fuzz::with_and_without_footer(data, |b| {
        if let Ok(si) = SegmentInfo::decode_file(b, "_0.si") {
            let _ = si.size_in_bytes();
            let dir = RamDirectory::new();
            si.write(&dir).expect("a decoded segment info can be written");
            let back = SegmentInfo::read(&dir, &si.id.name, &si.id.id).expect("a written segment info reads");
            assert_eq!(back, si, "segment info round-trips");
        }
    });
});
