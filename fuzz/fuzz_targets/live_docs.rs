//! `{segment}_{gen}.liv`: input = max_doc (u16 LE; 0xffff means "any", `u32::MAX`), then the
//! file. `check_file` gives Ok or an error; when the file reads, `is_live` agrees with the
//! deleted count.
#![no_main]

use fathom::engine::segment::live_docs::{self, LiveDocs};
use fathom::engine::store::{write_file, RamDirectory};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((max_doc, file)) = fathom_fuzz::take_u16(data) else { return };
    let max_doc = if max_doc == u16::MAX { u32::MAX } else { max_doc as u32 };
    fathom_fuzz::with_and_without_footer(file, |b| {
        let checked = live_docs::check_file(b, max_doc);
        if max_doc == u32::MAX {
            return;
        }
        let seg = fathom_fuzz::segment_for(b);
        let dir = RamDirectory::new();
        write_file(&dir, &LiveDocs::file_name(&seg, 1), b).expect("RAM directory accepts a new file");
        match LiveDocs::read(&dir, &seg, 1, max_doc) {
            Ok(l) => {
                let sum = checked.expect("check_file accepts what LiveDocs::read accepts");
                assert_eq!((sum.max_doc, sum.num_deleted), (l.max_doc(), l.num_deleted()));
                let dead = (0..max_doc).filter(|&d| !l.is_live(d)).count() as u32;
                assert_eq!(dead, l.num_deleted(), "deleted count matches the bitset");
                assert!(!l.is_live(max_doc) && !l.is_live(u32::MAX), "nothing is live past max_doc");
                let mut l2 = l.clone();
                for d in 0..max_doc.min(70) {
                    let was = l2.is_live(d);
                    assert_eq!(l2.delete(d), was);
                }
            }
            Err(_) => assert!(checked.is_err(), "LiveDocs::read rejects what check_file accepts"),
        }
    });
});
