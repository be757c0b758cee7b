//! `{segment}.fdt`: input = max_doc (u16 LE), then the file. `check_file` gives Ok or an error;
//! when the reader opens, every document is read with and without its source (and must read
//! when `check_file` passed). Covers format versions 1 and 2 (one seed each).
#![no_main]

use fathom::engine::segment::stored::{self, StoredReader};
use fathom::engine::store::{write_file, RamDirectory};
use fathom_fuzz::WALK_LIMIT;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((max_doc, file)) = fathom_fuzz::take_u16(data) else { return };
    let max_doc = max_doc as u32;
    fathom_fuzz::with_and_without_footer(file, |b| {
        let checked = stored::check_file(b, max_doc);
        let seg = fathom_fuzz::segment_for(b);
        let dir = RamDirectory::new();
        write_file(&dir, &seg.file(stored::EXT), b).expect("RAM directory accepts a new file");
        let Ok(r) = StoredReader::open(&dir, &seg, max_doc) else { return };
        let _ = r.check_integrity();
        for d in 0..(max_doc as usize + 2).min(WALK_LIMIT) as u32 {
            let light = r.document_fields(d, false);
            let doc = r.document(d);
            if checked.is_ok() && d < max_doc {
                light.expect("every document of a file that check_file accepts reads without its source");
            }
            if checked.is_ok() && d < max_doc {
                doc.expect("every document of a file that check_file accepts reads");
            }
        }
        let _ = r.document(u32::MAX);
    });
});
