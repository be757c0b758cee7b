//! `{segment}.pts`: input = max_doc (u16 LE), four bytes of point widths for fields 0..4, then
//! the file. `check_file` gives Ok or an error; when the reader opens (widths must match the
//! file), every field is walked and range-queried and the answers compared with the walk.
#![no_main]

use fathom::engine::segment::points::{self, FieldPoints, PointsReader};
use fathom::engine::store::{write_file, RamDirectory};
use fathom_fuzz::WALK_LIMIT;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((max_doc, rest)) = fathom_fuzz::take_u16(data) else { return };
    let Some((widths, file)) = rest.split_first_chunk::<4>() else { return };
    let max_doc = max_doc as u32;
    let infos = fathom_fuzz::column_infos(&[], widths);
    fathom_fuzz::with_and_without_footer(file, |b| {
        let checked = points::check_file(b, max_doc);
        let seg = fathom_fuzz::segment_for(b);
        let dir = RamDirectory::new();
        write_file(&dir, &seg.file(points::EXT), b).expect("RAM directory accepts a new file");
        let Ok(r) = PointsReader::open(&dir, &seg, &infos, max_doc) else { return };
        let integrity = r.check_integrity();
        if checked.is_ok() {
            assert!(integrity.is_ok(), "check_integrity agrees with check_file: {integrity:?}");
        }
        for f in 0..5 {
            if let Some(fp) = r.field(f) {
                exercise(&fp, checked.is_ok());
            }
        }
    });
});

fn exercise(fp: &FieldPoints<'_>, sound: bool) {
    let _ = (fp.num_points(), fp.doc_count(), fp.width());
    let (min, max) = (fp.min_key().to_vec(), fp.max_key().to_vec());
    let mut all: Vec<(Vec<u8>, u32)> = Vec::new();
    let walked = fp.for_each_point(&mut |k, d| {
        if all.len() < WALK_LIMIT {
            all.push((k.to_vec(), d));
        }
    });
    let w = fp.width();
    let lo_all = vec![0u8; w];
    let hi_all = vec![0xffu8; w];
    let mut ranges = vec![(min.clone(), max.clone()), (lo_all.clone(), hi_all.clone()), (max.clone(), min.clone())];
    if let Some((k, _)) = all.get(all.len() / 2) {
        ranges.push((k.clone(), k.clone()));
        ranges.push((lo_all, k.clone()));
        ranges.push((k.clone(), hi_all));
    }
    for (lo, hi) in ranges {
        let got = fp.docs_in_range(&lo, &hi);
        let mut visited = Vec::new();
        let v = fp.visit_range(&lo, &hi, &mut |d| visited.push(d));
        if sound && walked.is_ok() && (fp.num_points() as usize) < WALK_LIMIT {
            let mut want: Vec<u32> = all.iter().filter(|(k, _)| *k >= lo && *k <= hi).map(|&(_, d)| d).collect();
            want.sort_unstable();
            want.dedup();
            let mut got = got.expect("range query on a sound file");
            got.sort_unstable();
            got.dedup();
            assert_eq!(got, want, "docs_in_range [{lo:?}, {hi:?}] agrees with the walk");
            v.expect("visit_range on a sound file");
            visited.sort_unstable();
            visited.dedup();
            assert_eq!(visited, want, "visit_range agrees with the walk");
        }
    }
    // Keys of the wrong width must be an error or a clean answer, never a panic.
    let _ = fp.docs_in_range(&[], &[0xff; 17]);
    let _ = fp.docs_in_range(&[0], &[]);
}
