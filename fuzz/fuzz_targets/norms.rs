//! `{segment}.nvd`: input = max_doc (u16 LE) then the file. `check_file` gives Ok or an error;
//! the reader, when it opens, serves every field's column.
#![no_main]

use fathom::engine::segment::norms::{self, NormsReader};
use fathom::engine::store::{write_file, RamDirectory};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((max_doc, file)) = fathom_fuzz::take_u16(data) else { return };
    let max_doc = max_doc as u32;
    fathom_fuzz::with_and_without_footer(file, |b| {
        let _ = norms::check_file(b, max_doc);
        let seg = fathom_fuzz::segment_for(b);
        let dir = RamDirectory::new();
        write_file(&dir, &seg.file(norms::EXT), b).expect("RAM directory accepts a new file");
        let infos = fathom_fuzz::indexed_infos(8);
        if let Ok(r) = NormsReader::open(&dir, &seg, &infos, max_doc) {
            let _ = r.check_integrity();
            for f in 0..9 {
                if let Some(col) = r.field(f) {
                    assert_eq!(col.len(), max_doc as usize, "a norms column has one byte per doc");
                }
            }
        }
    });
});
