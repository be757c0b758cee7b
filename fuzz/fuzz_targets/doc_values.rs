//! `{segment}.dvd`: input = max_doc (u16 LE), two bytes of field kinds (2 bits per field for
//! fields 0..8: none, sorted-numeric, sorted-set, binary), then the file. `check_file` gives Ok
//! or an error; when the reader opens (field kinds must match the file), every accessor of
//! every column is called on every doc.
#![no_main]

use fathom::engine::segment::doc_values::{self, DocValuesReader};
use fathom::engine::store::{write_file, RamDirectory};
use fathom_fuzz::{kind_from_bits, WALK_LIMIT};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((max_doc, rest)) = fathom_fuzz::take_u16(data) else { return };
    let Some((kinds, file)) = fathom_fuzz::take_u16(rest) else { return };
    let max_doc = max_doc as u32;
    let kinds: Vec<_> = (0..8).map(|i| kind_from_bits((kinds >> (2 * i)) as u8)).collect();
    let infos = fathom_fuzz::column_infos(&kinds, &[]);
    fathom_fuzz::with_and_without_footer(file, |b| {
        let checked = doc_values::check_file(b, max_doc);
        let seg = fathom_fuzz::segment_for(b);
        let dir = RamDirectory::new();
        write_file(&dir, &seg.file(doc_values::EXT), b).expect("RAM directory accepts a new file");
        let Ok(r) = DocValuesReader::open(&dir, &seg, &infos, max_doc) else { return };
        let integrity = r.check_integrity();
        if checked.is_ok() {
            assert!(integrity.is_ok(), "check_integrity agrees with check_file: {integrity:?}");
        }
        exercise(&r, max_doc, checked.is_ok());
    });
});

fn exercise(r: &DocValuesReader, max_doc: u32, sound: bool) {
    let (mut v, mut o) = (Vec::new(), Vec::new());
    let docs = (max_doc as usize + 2).min(WALK_LIMIT) as u32;
    for f in 0..9 {
        if let Some(c) = r.numeric(f) {
            let _ = (c.is_single_valued(), c.min_value(), c.max_value());
            for d in 0..docs {
                c.values(d, &mut v);
                let _ = (c.first(d), c.has_value(d));
                if sound && !v.is_empty() {
                    assert!(v.windows(2).all(|w| w[0] <= w[1]), "sorted-numeric values ascend");
                    assert_eq!(c.first(d), v.first().copied(), "first is the smallest value");
                }
            }
        }
        if let Some(c) = r.sorted_set(f) {
            let count = c.value_count();
            for d in 0..docs {
                c.ords(d, &mut o);
                let _ = c.first_ord(d);
                for &ord in o.iter().take(64) {
                    let term = c.lookup_ord(ord);
                    if sound {
                        let term = term.expect("ordinals of a sound column resolve");
                        assert_eq!(c.lookup_term(term).ok(), Some(Ok(ord)), "lookup_term inverts lookup_ord");
                    }
                }
            }
            let _ = (c.lookup_ord(count), c.lookup_ord(u64::MAX), c.lookup_term(b""), c.lookup_term(b"\xff\xff"));
        }
        if let Some(c) = r.binary(f) {
            for d in 0..docs {
                let _ = c.get(d);
            }
        }
    }
}
