//! `.tim` + `.doc` + `.pos`: input = two u16 LE lengths, then the `.tim`, `.doc` and `.pos`
//! images (the last takes the rest). `check_files` gives Ok or an error; when the reader opens,
//! every term is sought, iterated with next / advance / shallow_advance, its positions read,
//! probed at the advance pass's targets and read block by block with `move_and_read`, and
//! `take_error` collected — never a panic. On a sound segment the probes and block reads agree
//! with advance and next.
#![no_main]

use fathom::engine::segment::postings::{self, PostingsReader};
use fathom::engine::segment::{DocId, Postings, NO_MORE_DOCS};
use fathom::engine::store::{write_file, RamDirectory};
use fathom_fuzz::{with_valid_footer, WALK_LIMIT};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((tim, doc, pos)) = fathom_fuzz::split3(data) else { return };
    run(tim, doc, pos);
    let fix = |b: &[u8]| with_valid_footer(b).unwrap_or_else(|| b.to_vec());
    let (t2, d2, p2) = (fix(tim), fix(doc), fix(pos));
    if (t2.as_slice(), d2.as_slice(), p2.as_slice()) != (tim, doc, pos) {
        run(&t2, &d2, &p2);
    }
});

fn run(tim: &[u8], doc: &[u8], pos: &[u8]) {
    let checked = postings::check_files(tim, doc, pos);
    let seg = fathom_fuzz::segment_for(tim);
    let dir = RamDirectory::new();
    for (ext, b) in [(postings::TERMS_EXT, tim), (postings::DOC_EXT, doc), (postings::POS_EXT, pos)] {
        write_file(&dir, &seg.file(ext), b).expect("RAM directory accepts a new file");
    }
    let infos = fathom_fuzz::indexed_infos(8);
    let Ok(r) = PostingsReader::open(&dir, &seg, &infos) else { return };
    let integrity = r.check_integrity();
    let max_doc = r.max_doc();
    let mut budget = WALK_LIMIT;
    let mut positions = Vec::new();
    let mut offsets = Vec::new();
    let mut all_ok = true;
    for field in r.field_numbers().collect::<Vec<_>>() {
        let Some(ft) = r.field(field) else { continue };
        let _ = (ft.stats(), ft.index_options());
        let Ok(mut it) = ft.iter() else {
            all_ok = false;
            continue;
        };
        let mut terms: Vec<Vec<u8>> = Vec::new();
        loop {
            let (term, info) = match it.next() {
                Ok(Some((t, i))) => (t.to_vec(), i),
                Ok(None) => break,
                Err(_) => {
                    all_ok = false;
                    break;
                }
            };
            // Seek the term we just iterated: it must be found with the same statistics
            // whenever the files are sound.
            match ft.seek_exact(&term) {
                Ok(Some(found)) => {
                    if checked.is_ok() {
                        assert_eq!(found, info, "seek_exact agrees with iteration on a sound segment");
                    }
                }
                Ok(None) => assert!(checked.is_err(), "an iterated term is found by seek_exact on a sound segment"),
                Err(_) => all_ok = false,
            }
            terms.push(term);
            // Four passes: `next` with positions and offsets, `advance` by growing steps,
            // `probe` at the same targets, then `move_and_read` from the next doc.
            let mut walked: Vec<DocId> = Vec::new();
            let mut advanced: Vec<(DocId, DocId)> = Vec::new();
            for pass in 0..4 {
                let Ok(mut p) = ft.postings(&info, true) else {
                    all_ok = false;
                    break;
                };
                let _ = (p.cost(), p.term_max());
                if pass == 3 {
                    let (mut docs, mut freqs) = ([0; 128], [0; 128]);
                    let mut got = Vec::new();
                    loop {
                        if budget == 0 {
                            return;
                        }
                        budget -= 1;
                        let (i, n) = p.move_and_read(None, &mut docs, &mut freqs);
                        if i >= n {
                            break;
                        }
                        got.extend_from_slice(&docs[i..n.min(128)]);
                    }
                    if p.take_error().is_some() {
                        all_ok = false;
                    } else if checked.is_ok() {
                        assert_eq!(got, walked, "block reads agree with next on a sound segment");
                    }
                    continue;
                }
                let mut step = 1u32;
                let mut started = false;
                let mut k = 0;
                loop {
                    if budget == 0 {
                        return;
                    }
                    budget -= 1;
                    let d = if pass == 0 || !started {
                        started = true;
                        p.next()
                    } else if pass == 1 {
                        let cur = p.doc();
                        step = step.saturating_mul(2);
                        let t = cur.saturating_add(step).min(NO_MORE_DOCS - 1);
                        let d = p.advance(t);
                        advanced.push((t, d));
                        d
                    } else {
                        let Some(&(t, want)) = advanced.get(k) else { break };
                        k += 1;
                        let d = p.probe(t);
                        if checked.is_ok() && integrity.is_ok() {
                            assert_eq!(d, want, "probe({t}) agrees with advance on a sound segment");
                        }
                        d
                    };
                    if d == NO_MORE_DOCS {
                        break;
                    }
                    if pass == 0 {
                        walked.push(d);
                    }
                    if checked.is_ok() {
                        assert!(d < max_doc, "doc {d} >= max_doc {max_doc} on a sound segment");
                    }
                    let _ = p.freq();
                    let last = p.shallow_advance(d);
                    let _ = (last, p.block_max());
                    if pass == 0 {
                        p.positions_and_offsets(&mut positions, &mut offsets);
                    } else if pass == 1 || d % 3 == 0 {
                        p.positions(&mut positions);
                    }
                }
                if p.take_error().is_some() {
                    all_ok = false;
                }
            }
        }
        if let Some(first) = terms.first() {
            if let Ok(mut it) = ft.iter_from(first) {
                let _ = it.next();
            }
        }
        let _ = ft.seek_exact(b"\xff\xff\xff");
        let _ = ft.seek_exact(b"");
    }
    if checked.is_ok() && integrity.is_ok() {
        assert!(all_ok, "a segment that check_files accepts reads without errors");
    }
}
