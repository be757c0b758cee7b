//! `{segment}.fnm`: any bytes decode to field infos or an error; what decodes re-encodes to a
//! body that decodes to the same field infos.
#![no_main]

use fathom::engine::segment::FieldInfos;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    fathom_fuzz::with_and_without_footer(data, |b| {
        if let Ok(fi) = FieldInfos::decode_file(b, "_0.fnm", None) {
            for f in fi.iter() {
                assert_eq!(fi.by_name(&f.name).map(|g| g.number), Some(f.number), "by_name agrees with iter");
                assert_eq!(fi.get(f.number), Some(f), "get agrees with iter");
            }
            let mut body = Vec::new();
            fi.encode(&mut body);
            let again = FieldInfos::decode(&body, 0).expect("re-encoded field infos decode");
            assert_eq!(again, fi, "field infos round-trip through encode/decode");
        }
    });
});
