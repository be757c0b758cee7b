use std::collections::BTreeMap;
use std::ops::Bound;

use proptest::prelude::*;

use super::check::walk;
use super::*;
use crate::engine::segment::norms::NormsBuffer;
use crate::engine::segment::smallfloat::length_to_norm;
use crate::engine::segment::{
    DocId, DocMap, DocValuesKind, FieldInfos, IndexOptions, Postings, SegmentId, NO_MORE_DOCS,
};
use crate::engine::store::{Directory, RamDirectory};

/// (field, term) → [(doc, positions, offsets)], docs increasing.
type Model = BTreeMap<(u32, Vec<u8>), Vec<Posting>>;

/// (doc, positions, offsets) of one term in one doc.
type Posting = (DocId, Vec<u32>, Vec<(u32, u32)>);

/// One document: per field, its tokens in position order.
type Doc = Vec<(u32, Vec<Vec<u8>>)>;

const OPTS: [(&str, IndexOptions, bool); 4] = [
    ("body", IndexOptions::DocsFreqsPositionsOffsets, true),
    ("tag", IndexOptions::Docs, false),
    ("title", IndexOptions::DocsFreqs, true),
    ("text", IndexOptions::DocsFreqsPositions, true),
];

fn infos_in(order: &[usize]) -> FieldInfos {
    let mut f = FieldInfos::new();
    for &i in order {
        let (name, o, n) = OPTS[i];
        f.add_or_widen(name, o, n, DocValuesKind::None, 0).unwrap();
    }
    f
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn random_docs(seed: u64, n: usize) -> Vec<Doc> {
    let mut rng = Rng(seed);
    let vocab: Vec<Vec<u8>> = (0..40)
        .map(|_| {
            let len = rng.below(6) as usize;
            (0..len).map(|_| b"abcd"[rng.below(4) as usize]).collect()
        })
        .chain([b"the".to_vec(), b"a".to_vec()])
        .collect();
    (0..n)
        .map(|_| {
            let mut doc = Vec::new();
            for f in 0..4u32 {
                if rng.below(5) == 0 {
                    continue;
                }
                let len = rng.below(if f == 1 { 3 } else { 12 }) as usize;
                let toks = (0..len)
                    .map(|_| {
                        if rng.below(3) == 0 {
                            b"the".to_vec()
                        } else {
                            vocab[rng.below(vocab.len() as u64) as usize].clone()
                        }
                    })
                    .collect();
                doc.push((f, toks));
            }
            doc
        })
        .collect()
}

/// Maps OPTS index → field number in `infos`.
fn num(infos: &FieldInfos, opt: u32) -> u32 {
    infos.by_name(OPTS[opt as usize].0).unwrap().number
}

/// Indexes `docs` into a new segment; returns the model (keyed by OPTS index) and the norms.
fn index(dir: &dyn Directory, seg: &SegmentId, infos: &FieldInfos, docs: &[Doc]) -> (Model, NormsBuffer) {
    let mut buf = PostingsBuffer::new();
    let mut norms = NormsBuffer::new();
    let mut model = Model::new();
    for (i, (name, o, _)) in OPTS.iter().enumerate() {
        if let Some(fi) = infos.by_name(name) {
            if i % 2 == 1 {
                buf.set_index_options(fi.number, *o);
            }
        }
    }
    for (d, doc) in docs.iter().enumerate() {
        let d = d as DocId;
        for (f, toks) in doc {
            let fnum = num(infos, *f);
            if !toks.is_empty() && OPTS[*f as usize].2 {
                norms.set(fnum, d, length_to_norm(toks.len() as u32));
            }
            for (p, t) in toks.iter().enumerate() {
                let p = p as u32;
                let off = (p * 4, p * 4 + 3);
                buf.add(fnum, t, d, p, Some(off));
                let e = model.entry((*f, t.clone())).or_default();
                if e.last().is_none_or(|x| x.0 != d) {
                    e.push((d, Vec::new(), Vec::new()));
                }
                let last = e.last_mut().unwrap();
                last.1.push(p);
                last.2.push(off);
            }
        }
    }
    assert!(buf.mem_bytes() > 0 || docs.is_empty());
    write_postings(dir, seg, infos, &buf, &|f, d| norms.get(f, d), docs.len() as u32).unwrap();
    (model, norms)
}

/// Checks everything a reader returns against the model.
fn verify(r: &PostingsReader, infos: &FieldInfos, model: &Model, norm: &dyn Fn(u32, DocId) -> u8, seed: u64) {
    let mut rng = Rng(seed);
    for opt in 0..4u32 {
        let (_, o, has_norms) = OPTS[opt as usize];
        let fnum = num(infos, opt);
        let terms: Vec<(&Vec<u8>, &Vec<Posting>)> =
            model.range((opt, Vec::new())..(opt + 1, Vec::new())).map(|((_, t), p)| (t, p)).collect();
        let Some(ft) = r.field(fnum) else {
            assert!(terms.is_empty(), "field {opt} missing");
            continue;
        };
        // Stats.
        let mut docs: Vec<DocId> = terms.iter().flat_map(|(_, p)| p.iter().map(|x| x.0)).collect();
        docs.sort_unstable();
        docs.dedup();
        let freq_of = |x: &Posting| if o.has_freqs() { x.1.len() as u64 } else { 1 };
        let st = ft.stats();
        assert_eq!(st.num_terms, terms.len() as u64);
        assert_eq!(st.doc_count, docs.len() as u32);
        assert_eq!(st.sum_doc_freq, terms.iter().map(|(_, p)| p.len() as u64).sum::<u64>());
        assert_eq!(st.sum_total_term_freq, terms.iter().flat_map(|(_, p)| p.iter().map(freq_of)).sum::<u64>());
        // Iteration order.
        let mut it = ft.iter().unwrap();
        let mut got = Vec::new();
        while let Some((t, _)) = it.next().unwrap() {
            got.push(t.to_vec());
        }
        assert_eq!(got, terms.iter().map(|(t, _)| (*t).clone()).collect::<Vec<_>>());
        // iter_from at random probes (terms and non-terms).
        for _ in 0..8 {
            let probe: Vec<u8> = (0..rng.below(4)).map(|_| b"abcdt"[rng.below(5) as usize]).collect();
            let want: Vec<Vec<u8>> = model
                .range((Bound::Included((opt, probe.clone())), Bound::Excluded((opt + 1, Vec::new()))))
                .map(|((_, t), _)| t.clone())
                .collect();
            let mut it = ft.iter_from(&probe).unwrap();
            let mut got = Vec::new();
            while let Some((t, _)) = it.next().unwrap() {
                got.push(t.to_vec());
            }
            assert_eq!(got, want, "iter_from {probe:?}");
            assert_eq!(ft.seek_exact(&probe).unwrap().is_some(), model.contains_key(&(opt, probe.clone())));
        }
        assert!(ft.seek_exact(b"zzzz-not-there").unwrap().is_none());
        // Every term's postings.
        for (t, ps) in &terms {
            let info = ft.seek_exact(t).unwrap().unwrap_or_else(|| panic!("term {t:?} not found"));
            assert_eq!(info.doc_freq, ps.len() as u32);
            assert_eq!(info.total_term_freq, ps.iter().map(freq_of).sum::<u64>());
            let mut p = ft.postings(&info, true).unwrap();
            assert_eq!(p.cost(), ps.len() as u64);
            let (mut pos, mut offs) = (Vec::new(), Vec::new());
            for x in ps.iter() {
                assert_eq!(p.next(), x.0);
                assert_eq!(p.freq() as u64, freq_of(x));
                if o.has_positions() {
                    p.positions_and_offsets(&mut pos, &mut offs);
                    assert_eq!(pos, x.1);
                    if o.has_offsets() {
                        assert_eq!(offs, x.2);
                    } else {
                        assert!(offs.is_empty());
                    }
                }
                let end = p.shallow_advance(x.0);
                assert!(end >= x.0 && end != NO_MORE_DOCS);
                assert!(ps.iter().any(|y| y.0 == end), "shallow_advance returns a doc of the term");
                let (mf, mn) = p.block_max();
                assert!(mf as u64 >= freq_of(x), "block max freq {mf} < {}", freq_of(x));
                let n = if has_norms { norm(fnum, x.0) } else { 1 };
                assert!(mn <= n, "block min norm {mn} > {n}");
            }
            assert_eq!(p.next(), NO_MORE_DOCS);
            assert_eq!(p.next(), NO_MORE_DOCS);
            assert!(p.take_error().is_none());
            // shallow_advance before the first doc does not move the iterator.
            let mut p = ft.postings(&info, false).unwrap();
            let last = ps.last().unwrap().0;
            assert!(p.shallow_advance(ps[0].0) >= ps[0].0);
            assert_eq!(p.next(), ps[0].0);
            assert_eq!(p.shallow_advance(last), last);
            assert_eq!(p.shallow_advance(last + 1), NO_MORE_DOCS);
            assert_eq!(p.block_max(), (0, u8::MAX));
            // Positions requested on some docs only, skipping others.
            if o.has_positions() {
                let mut p = ft.postings(&info, true).unwrap();
                for (i, x) in ps.iter().enumerate() {
                    p.next();
                    if i % 3 == 2 {
                        p.positions(&mut pos);
                        assert_eq!(pos, x.1);
                        p.positions(&mut pos);
                        assert_eq!(pos, x.1, "positions read twice");
                    }
                }
            }
            // advance() and probe() to random targets equal a linear scan, mixed with next()
            // and positions (which decode a probed block).
            let max = ps.last().unwrap().0 + 3;
            let mut p = ft.postings(&info, true).unwrap();
            let mut cur: i64 = -1;
            loop {
                let span = if rng.below(4) == 0 { 300 } else { 8 };
                let target = (cur + 1 + rng.below(span) as i64) as u32;
                if rng.below(3) == 0 {
                    // Skip data moved ahead, or not as far as the target (moves start from it
                    // when it is the target's block).
                    p.shallow_advance((cur + 1 + rng.below(600) as i64) as u32);
                }
                let (got, want) = match rng.below(5) {
                    0 => (p.next(), ps.iter().map(|x| x.0).find(|&d| d as i64 > cur)),
                    1 => (p.advance(target), ps.iter().map(|x| x.0).find(|&d| d >= target && d as i64 > cur)),
                    2 => (p.probe(target), ps.iter().map(|x| x.0).find(|&d| d >= target && d as i64 > cur)),
                    k => {
                        // A move and a block read: the docs from the one reached on, in a row.
                        let t = if k == 3 { Some(target) } else { None };
                        let want = ps.iter().position(|x| x.0 as i64 > cur && t.is_none_or(|t| x.0 >= t));
                        let (mut docs, mut freqs) = ([0; BLOCK], [0; BLOCK]);
                        let (i, n) = p.move_and_read(t, &mut docs, &mut freqs);
                        match want {
                            None => assert_eq!((i, n), (0, 0)),
                            Some(w) => {
                                assert!(i < n && n <= BLOCK, "{i}..{n}");
                                for (j, k) in (i..n).enumerate() {
                                    assert_eq!(docs[k], ps[w + j].0);
                                    assert_eq!(freqs[k] as u64, freq_of(&ps[w + j]));
                                }
                                assert_eq!(p.doc(), docs[n - 1]);
                            }
                        }
                        let got = if n > 0 { docs[n - 1] } else { NO_MORE_DOCS };
                        (got, want.map(|w| ps[w + n - i - 1].0))
                    }
                };
                assert_eq!(got, want.unwrap_or(NO_MORE_DOCS));
                if got == NO_MORE_DOCS || target > max {
                    break;
                }
                let x = ps.iter().find(|x| x.0 == got).unwrap();
                assert_eq!(p.freq() as u64, freq_of(x));
                assert_eq!(p.doc(), got);
                if o.has_positions() && rng.below(4) == 0 {
                    p.positions(&mut pos);
                    assert_eq!(pos, x.1, "positions after a move to {got}");
                }
                cur = got as i64;
            }
            assert!(p.take_error().is_none());
        }
    }
}

fn seg(n: u8) -> SegmentId {
    SegmentId { name: format!("_{n}"), id: [n + 1; 16] }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn round_trip_matches_model(seed in any::<u64>(), n in 1usize..400) {
        let dir = RamDirectory::new();
        let infos = infos_in(&[2, 0, 3, 1]);
        let docs = random_docs(seed, n);
        let (model, norms) = index(&dir, &seg(0), &infos, &docs);
        let r = PostingsReader::open(&dir, &seg(0), &infos).unwrap();
        r.check_integrity().unwrap();
        verify(&r, &infos, &model, &|f, d| norms.get(f, d), seed);
        let files = r.files();
        let b = |i: usize| dir.open(&files[i]).unwrap();
        let s = check_files(&b(0), &b(1), &b(2)).unwrap();
        prop_assert_eq!(s.max_doc, n as u32);
        prop_assert_eq!(s.postings, model.values().map(|p| p.len() as u64).sum::<u64>());
    }

    #[test]
    fn merge_with_deletes_matches_model(seed in any::<u64>(), a in 1usize..200, b in 1usize..200, c in 0usize..50) {
        let dir = RamDirectory::new();
        let orders: [&[usize]; 3] = [&[0, 1, 2, 3], &[3, 2, 1, 0], &[1, 3]];
        let mut rng = Rng(seed ^ 0x55);
        let mut all_docs = Vec::new();
        let mut parts = Vec::new();
        for (i, n) in [a, b, c].into_iter().enumerate() {
            let infos = infos_in(orders[i]);
            // The third source only has fields 1 and 3.
            let docs: Vec<Doc> = random_docs(seed.wrapping_add(i as u64), n)
                .into_iter()
                .map(|d| d.into_iter().filter(|(f, _)| infos.by_name(OPTS[*f as usize].0).is_some()).collect())
                .collect();
            let (_, norms) = index(&dir, &seg(i as u8), &infos, &docs);
            all_docs.push(docs);
            parts.push((infos, norms));
        }
        let readers: Vec<PostingsReader> = (0..3).map(|i| PostingsReader::open(&dir, &seg(i as u8), &parts[i].0).unwrap()).collect();
        let live: Vec<Vec<bool>> = all_docs.iter().map(|d| d.iter().map(|_| rng.below(4) != 0).collect()).collect();
        let (maps, max_doc) = DocMap::concatenate(&[a as u32, b as u32, c as u32], |s, d| live[s][d as usize]);
        let target = infos_in(&[1, 2, 3, 0]);
        // The merged model: live docs renumbered; norms carried over.
        let merged_docs: Vec<Doc> = all_docs.iter().zip(&live).flat_map(|(d, l)| d.iter().zip(l).filter(|x| *x.1).map(|x| x.0.clone())).collect();
        prop_assert_eq!(merged_docs.len() as u32, max_doc);
        let model_dir = RamDirectory::new();
        let (model, norms) = index(&model_dir, &seg(9), &target, &merged_docs);
        let sources: Vec<(&PostingsReader, &FieldInfos, &DocMap)> = (0..3).map(|i| (&readers[i], &parts[i].0, &maps[i])).collect();
        let files = merge_postings(&dir, &seg(7), &target, &sources, &|f, d| norms.get(f, d), max_doc).unwrap();
        prop_assert_eq!(files.len(), 3);
        let r = PostingsReader::open(&dir, &seg(7), &target).unwrap();
        r.check_integrity().unwrap();
        walk(&r).unwrap();
        verify(&r, &target, &model, &|f, d| norms.get(f, d), seed);
        // Merged files equal the files of indexing the merged docs directly.
        for ext in [TERMS_EXT, DOC_EXT, POS_EXT] {
            let x = dir.open(&seg(7).file(ext)).unwrap();
            let y = model_dir.open(&seg(9).file(ext)).unwrap();
            let hl = crate::engine::codec::header::header_len(if ext == TERMS_EXT { TERMS_CODEC } else if ext == DOC_EXT { DOC_CODEC } else { POS_CODEC });
            prop_assert_eq!(x.len(), y.len());
            prop_assert_eq!(&x[hl..x.len() - 16], &y[hl..y.len() - 16]);
        }
    }
}

#[test]
fn many_blocks_advance_and_block_max() {
    // One term in every doc with growing freq; another in every 7th doc: several blocks each.
    let dir = RamDirectory::new();
    let infos = infos_in(&[0, 1, 2, 3]);
    let mut buf = PostingsBuffer::new();
    let n = 5000u32;
    for d in 0..n {
        for p in 0..(d % 5 + 1) {
            buf.add(3, b"every", d, p, None);
        }
        if d % 7 == 0 {
            buf.add(3, b"seventh", d, 0, None);
        }
    }
    let norm = |_: u32, d: DocId| (d % 200) as u8 + 1;
    write_postings(&dir, &seg(0), &infos, &buf, &norm, n).unwrap();
    let r = PostingsReader::open(&dir, &seg(0), &infos).unwrap();
    let ft = r.field(3).unwrap();
    let info = ft.seek_exact(b"every").unwrap().unwrap();
    assert_eq!(info.doc_freq, n);
    let mut p = ft.postings(&info, true).unwrap();
    assert_eq!(p.advance(4321), 4321);
    assert_eq!(p.freq(), 4321 % 5 + 1);
    let mut pos = Vec::new();
    p.positions(&mut pos);
    assert_eq!(pos, (0..(4321 % 5 + 1)).collect::<Vec<_>>());
    assert_eq!(p.next(), 4322);
    assert_eq!(p.advance(4999), 4999);
    assert_eq!(p.advance(5000), NO_MORE_DOCS);
    // Shallow advance walks blocks of 128 without moving the iterator.
    let mut p = ft.postings(&info, false).unwrap();
    assert_eq!(p.shallow_advance(0), 127);
    assert_eq!(p.block_max(), (5, 1));
    assert_eq!(p.shallow_advance(300), 383);
    assert_eq!(p.block_max(), (5, 57));
    assert_eq!(p.shallow_advance(n), NO_MORE_DOCS);
    assert_eq!(p.term_max(), (5, 1));
    assert_eq!(p.next(), 0);
    let seventh = ft.seek_exact(b"seventh").unwrap().unwrap();
    let mut p = ft.postings(&seventh, false).unwrap();
    assert_eq!(p.advance(1000), 1001);
    assert_eq!(p.advance(1002), 1008);
    assert_eq!(p.shallow_advance(1009), 7 * 255);
    assert_eq!(p.block_max().0, 1);
    assert_eq!(p.term_max(), (1, 1));
    assert_eq!(p.advance(4999), NO_MORE_DOCS);
    let files = r.files();
    let b = |i: usize| dir.open(&files[i]).unwrap();
    let s = check_files(&b(0), &b(1), &b(2)).unwrap();
    assert_eq!(s.terms, 2);
    assert_eq!(s.postings, (n + n.div_ceil(7)) as u64);
}

#[test]
fn empty_buffer_and_bad_input() {
    let dir = RamDirectory::new();
    let infos = infos_in(&[0, 1, 2, 3]);
    let buf = PostingsBuffer::new();
    assert!(buf.is_empty());
    write_postings(&dir, &seg(0), &infos, &buf, &|_, _| 0, 0).unwrap();
    let r = PostingsReader::open(&dir, &seg(0), &infos).unwrap();
    assert!(r.field(0).is_none());
    r.check_integrity().unwrap();
    // Wrong segment id.
    assert!(PostingsReader::open(&dir, &SegmentId { name: "_0".into(), id: [9; 16] }, &infos).is_err());
    // Docs past max_doc are refused by the writer.
    let mut buf = PostingsBuffer::new();
    buf.add(0, b"x", 5, 0, None);
    assert!(write_postings(&dir, &seg(1), &infos, &buf, &|_, _| 0, 5).is_err());
}

fn small_segment(dir: &dyn Directory, s: &SegmentId) -> FieldInfos {
    let infos = infos_in(&[0, 1, 2, 3]);
    let mut buf = PostingsBuffer::new();
    let mut norms = NormsBuffer::new();
    for d in 0..150u32 {
        let words = ["common", if d % 2 == 0 { "even" } else { "odd" }, if d == 17 { "rare" } else { "common" }];
        for (p, w) in (0u32..).zip(words) {
            buf.add(0, w.as_bytes(), d, p, Some((p * 7, p * 7 + w.len() as u32)));
            buf.add(3, w.as_bytes(), d, p, None);
        }
        buf.add(1, format!("id{d}").as_bytes(), d, 0, None);
        norms.set(0, d, 3);
        norms.set(3, d, 3);
    }
    write_postings(dir, s, &infos, &buf, &|f, d| norms.get(f, d), 150).unwrap();
    infos
}

/// Reads everything through a reader without trusting it; returns whether an error was seen.
/// Probes every term too: damaged blocks must not panic or move a probe backwards.
fn read_all(r: &PostingsReader) -> bool {
    let mut bad = walk(r).is_err();
    for number in r.field_numbers().collect::<Vec<_>>() {
        let ft = r.field(number).unwrap();
        let Ok(mut it) = ft.iter() else { return true };
        while let Ok(Some((_, info))) = it.next() {
            let Ok(mut p) = ft.postings(&info, true) else {
                bad = true;
                continue;
            };
            let mut target = 0u32;
            for _ in 0..200 {
                let d = p.probe(target);
                if d == NO_MORE_DOCS {
                    break;
                }
                assert!(d >= target, "probe({target}) went back to {d}");
                let _ = p.freq();
                target = d + 1 + d % 5;
            }
            bad |= p.take_error().is_some();
            // Blocks decoded straight into the caller's arrays: docs only ever increase.
            let Ok(mut p) = ft.postings(&info, false) else { continue };
            let (mut docs, mut freqs, mut prev) = ([0; BLOCK], [0; BLOCK], None);
            for k in 0..200u32 {
                let (i, n) = p.move_and_read(
                    if k % 2 == 0 { None } else { Some(prev.map_or(0, |d: DocId| d + 1 + d % 3)) },
                    &mut docs,
                    &mut freqs,
                );
                if i >= n {
                    break;
                }
                assert!(n <= BLOCK && docs[i..n].windows(2).all(|w| w[0] < w[1]), "{:?}", &docs[i..n]);
                assert!(prev.is_none_or(|p| docs[i] > p), "moved back from {prev:?} to {}", docs[i]);
                prev = Some(docs[n - 1]);
            }
            bad |= p.take_error().is_some();
        }
    }
    bad
}

#[test]
fn corruption_is_an_error_never_a_panic() {
    let dir = RamDirectory::new();
    let s = seg(0);
    let infos = small_segment(&dir, &s);
    for ext in [TERMS_EXT, DOC_EXT, POS_EXT] {
        let name = s.file(ext);
        let orig = dir.open(&name).unwrap().to_vec();
        let images = |dir: &RamDirectory| {
            let f = |e: &str| dir.open(&s.file(e)).unwrap();
            (f(TERMS_EXT), f(DOC_EXT), f(POS_EXT))
        };
        for i in 0..orig.len() {
            for (flip, len) in [(Some(i), orig.len()), (None, i)] {
                let mut b = orig.clone();
                if let Some(i) = flip {
                    b[i] ^= 0x5a;
                }
                b.truncate(len);
                dir.overwrite(&name, b.clone());
                let (t, d, p) = images(&dir);
                assert!(check_files(&t, &d, &p).is_err(), "{name}: damage at {i} not detected");
                if let Ok(r) = PostingsReader::open(&dir, &s, &infos) {
                    assert!(r.check_integrity().is_err(), "{name}: check_integrity missed damage at {i}");
                    read_all(&r);
                }
                // The same damage with a recomputed checksum: decoders see it and must not panic.
                if b.len() >= 16 + 32 {
                    let body = b.len() - 16;
                    let crc = crc32fast::hash(&b[..body]);
                    b[body + 8..].copy_from_slice(&(crc as u64).to_le_bytes());
                    dir.overwrite(&name, b);
                    if let Ok(r) = PostingsReader::open(&dir, &s, &infos) {
                        read_all(&r);
                    }
                    let (t, d, p) = images(&dir);
                    let _ = check_files(&t, &d, &p);
                }
            }
        }
        dir.overwrite(&name, orig);
    }
    // Intact again.
    let r = PostingsReader::open(&dir, &s, &infos).unwrap();
    r.check_integrity().unwrap();
    assert!(!read_all(&r));
}

#[test]
fn lazily_found_block_damage_is_a_sticky_error() {
    let dir = RamDirectory::new();
    let s = seg(0);
    let infos = small_segment(&dir, &s);
    let r = PostingsReader::open(&dir, &s, &infos).unwrap();
    let ft = r.field(3).unwrap();
    let info = ft.seek_exact(b"common").unwrap().unwrap();
    // Find the second block's bit-width byte via the skip entry and make it 40 (> 32).
    let name = s.file(DOC_EXT);
    let mut b = dir.open(&name).unwrap().to_vec();
    let w = skip_entry_len(true);
    let start = info.doc_start as usize;
    let off = u64::from_le_bytes(b[start + w + 4..start + w + 12].try_into().unwrap()) as usize;
    b[start + 2 * w + off] = 40;
    dir.overwrite(&name, b);
    let r = PostingsReader::open(&dir, &s, &infos).unwrap();
    assert!(r.check_integrity().is_err());
    let ft = r.field(3).unwrap();
    let mut p = ft.postings(&info, false).unwrap();
    let mut n = 0;
    while p.next() != NO_MORE_DOCS {
        n += 1;
    }
    assert_eq!(n, 128);
    assert_eq!(p.doc(), NO_MORE_DOCS);
    assert!(walk(&r).is_err());
    let e = p.take_error().expect("the damaged block is reported");
    assert!(e.is_corruption() && e.to_string().contains("_0.doc"), "{e}");
    assert_eq!(p.next(), NO_MORE_DOCS);
}

/// A frame-of-reference block with one offset damaged out of order (width and last doc intact):
/// a probe landing on it does not skip the docs it hides but reports the damage, as decoding
/// the block does.
#[test]
fn probe_on_an_offset_out_of_order_is_an_error() {
    let dir = RamDirectory::new();
    let infos = infos_in(&[0, 1, 2, 3]);
    let mut buf = PostingsBuffer::new();
    for d in 0..1000u32 {
        buf.add(3, b"every", d, 0, None);
    }
    write_postings(&dir, &seg(0), &infos, &buf, &|_, _| 1, 1000).unwrap();
    let r = PostingsReader::open(&dir, &seg(0), &infos).unwrap();
    let info = r.field(3).unwrap().seek_exact(b"every").unwrap().unwrap();
    // Block 1 holds docs 128..=255: offsets 0..=127 at 7 bits. Offset 64 becomes 127.
    let name = seg(0).file(DOC_EXT);
    let mut b = dir.open(&name).unwrap().to_vec();
    let w = skip_entry_len(true);
    let start = info.doc_start as usize;
    let nb = info.doc_freq.div_ceil(BLOCK as u32) as usize;
    let off = u64::from_le_bytes(b[start + w + 4..start + w + 12].try_into().unwrap()) as usize;
    let at = start + nb * w + off;
    assert_eq!(b[at], 7 | FOR_BLOCK, "block 1 is a frame of reference");
    let mut offsets: [u32; BLOCK] = std::array::from_fn(|i| i as u32);
    offsets[64] = 127;
    let mut packed = Vec::new();
    super::unpack::pack_lanes(&offsets, 7, &mut packed);
    b[at + 1..at + 1 + packed.len()].copy_from_slice(&packed);
    dir.overwrite(&name, b);
    let r = PostingsReader::open(&dir, &seg(0), &infos).unwrap();
    let ft = r.field(3).unwrap();
    let mut p = ft.postings(&info, false).unwrap();
    assert_eq!(p.probe(100), 100);
    let got = p.probe(128 + 64);
    assert_ne!(got, 128 + 127, "docs 192..=254 skipped");
    assert_eq!(got, NO_MORE_DOCS);
    assert!(p.take_error().expect("the damage is reported").is_corruption());
}

fn golden_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/postings")
}

/// Golden segment `_g`: 3 docs; body (positions+offsets, norms), tag (docs only).
fn golden_segment(dir: &dyn Directory) -> (SegmentId, FieldInfos) {
    let s = SegmentId { name: "_g".into(), id: *b"fathom-golden-01" };
    let infos = infos_in(&[0, 1]);
    let mut buf = PostingsBuffer::new();
    let mut norms = NormsBuffer::new();
    let docs: [(&str, &str); 3] = [("the quick fox", "red"), ("the lazy dog the end", "blue"), ("quick quick", "red")];
    for (d, (body, tag)) in docs.iter().enumerate() {
        let d = d as u32;
        let mut start = 0u32;
        let toks: Vec<&str> = body.split(' ').collect();
        for (p, t) in toks.iter().enumerate() {
            buf.add(0, t.as_bytes(), d, p as u32, Some((start, start + t.len() as u32)));
            start += t.len() as u32 + 1;
        }
        norms.set(0, d, length_to_norm(toks.len() as u32));
        buf.add(1, tag.as_bytes(), d, 0, None);
    }
    write_postings(dir, &s, &infos, &buf, &|f, d| norms.get(f, d), 3).unwrap();
    crate::engine::segment::norms::write_norms(dir, &s, &infos, &norms, 3).unwrap();
    (s, infos)
}

#[test]
fn golden_files_still_decode() {
    let fresh = RamDirectory::new();
    let (s, infos) = golden_segment(&fresh);
    let exts = [TERMS_EXT, DOC_EXT, POS_EXT, crate::engine::segment::norms::EXT];
    let gd = golden_dir();
    if std::env::var_os("FATHOM_BLESS").is_some() {
        std::fs::create_dir_all(&gd).unwrap();
        for ext in exts {
            std::fs::write(gd.join(s.file(ext)), fresh.open(&s.file(ext)).unwrap()).unwrap();
        }
    }
    let dir = RamDirectory::new();
    for ext in exts {
        let bytes = std::fs::read(gd.join(s.file(ext))).expect("golden file (regenerate with FATHOM_BLESS=1)");
        // The writer still produces the current versions byte for byte.
        assert_eq!(
            bytes,
            fresh.open(&s.file(ext)).unwrap().to_vec(),
            "{ext} changed: a new format version needs new golden files"
        );
        dir.overwrite(&s.file(ext), bytes);
    }
    let r = PostingsReader::open(&dir, &s, &infos).unwrap();
    r.check_integrity().unwrap();
    let body = r.field(0).unwrap();
    assert_eq!(body.stats(), FieldStats { doc_count: 3, sum_total_term_freq: 10, sum_doc_freq: 8, num_terms: 6 });
    let mut it = body.iter().unwrap();
    let mut terms = Vec::new();
    while let Some((t, i)) = it.next().unwrap() {
        terms.push((String::from_utf8(t.to_vec()).unwrap(), i.doc_freq, i.total_term_freq));
    }
    let want = [("dog", 1, 1), ("end", 1, 1), ("fox", 1, 1), ("lazy", 1, 1), ("quick", 2, 3), ("the", 2, 3)];
    assert_eq!(terms, want.iter().map(|&(t, a, b)| (t.to_string(), a, b)).collect::<Vec<_>>());
    let the = body.seek_exact(b"the").unwrap().unwrap();
    let mut p = body.postings(&the, true).unwrap();
    let (mut pos, mut offs) = (Vec::new(), Vec::new());
    assert_eq!(p.next(), 0);
    p.positions_and_offsets(&mut pos, &mut offs);
    assert_eq!((pos.clone(), offs.clone()), (vec![0], vec![(0, 3)]));
    assert_eq!(p.next(), 1);
    assert_eq!(p.freq(), 2);
    p.positions_and_offsets(&mut pos, &mut offs);
    assert_eq!((pos.clone(), offs.clone()), (vec![0, 3], vec![(0, 3), (13, 16)]));
    assert_eq!(p.block_max(), (2, 3));
    let mut imps = Vec::new();
    p.block_impacts(&mut imps);
    assert_eq!(imps, vec![(1, 3), (2, 5)], "neither doc of \"the\" dominates the other");
    p.term_impacts(&mut imps);
    assert_eq!(imps, vec![(1, 3), (2, 5)]);
    let quick = body.postings(&body.seek_exact(b"quick").unwrap().unwrap(), false).unwrap();
    quick.term_impacts(&mut imps);
    assert_eq!(imps, vec![(2, 2)], "doc 2 (freq 2, norm 2) dominates doc 0 (freq 1, norm 3)");
    let tag = r.field(1).unwrap();
    let red = tag.seek_exact(b"red").unwrap().unwrap();
    let mut p = tag.postings(&red, true).unwrap();
    assert_eq!((p.next(), p.next(), p.next()), (0, 2, NO_MORE_DOCS));
    let n = crate::engine::segment::norms::NormsReader::open(&dir, &s, &infos, 3).unwrap();
    assert_eq!(n.field(0).unwrap(), &[3, 5, 2]);
    let b = |e: &str| dir.open(&s.file(e)).unwrap();
    let sum = check_files(&b(TERMS_EXT), &b(DOC_EXT), &b(POS_EXT)).unwrap();
    assert_eq!(sum, Summary { max_doc: 3, fields: 2, terms: 8, postings: 11, positions: 10 });
    // The version 1 `.doc` of the same segment (no full block: the bytes differ only in the
    // header's version) still decodes to the same postings.
    let v1 = std::fs::read(gd.join("v1").join(s.file(DOC_EXT))).expect("golden v1 _g.doc");
    assert_eq!(check_files(&b(TERMS_EXT), &v1, &b(POS_EXT)).unwrap(), sum);
    // Likewise versions 2 and 3 (no term of two blocks, so no top docs in version 3 either,
    // and no full block to be a frame of reference in version 4).
    for v in ["v2", "v3"] {
        let old = std::fs::read(gd.join(v).join(s.file(DOC_EXT))).expect("golden _g.doc of an older version");
        assert_eq!(check_files(&b(TERMS_EXT), &old, &b(POS_EXT)).unwrap(), sum, "{v}");
    }
}

#[test]
fn reader_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<PostingsReader>();
    check::<crate::engine::segment::norms::NormsReader>();
    fn send<T: Send>() {}
    send::<SegmentPostings<'static>>();
}

#[test]
fn sparse_docs_large_positions_and_overlapping_offsets() {
    let dir = RamDirectory::new();
    let infos = infos_in(&[0, 1, 2, 3]);
    let mut buf = PostingsBuffer::new();
    let docs: Vec<u32> = (0..300u32).map(|i| i * i + i / 7).collect();
    let max_doc = docs.last().unwrap() + 1;
    for &d in &docs {
        // Positions given out of order; offsets that go backwards (overlapping tokens).
        buf.add(0, b"w", d, 4_000_000_000, Some((u32::MAX - 5, u32::MAX)));
        buf.add(0, b"w", d, 7, Some((100, 90)));
        buf.add(0, b"w", d, 7, Some((50, 60)));
        buf.add(0, b"", d, 0, None);
    }
    write_postings(&dir, &seg(0), &infos, &buf, &|_, d| (d % 250) as u8 + 3, max_doc).unwrap();
    let r = PostingsReader::open(&dir, &seg(0), &infos).unwrap();
    let ft = r.field(0).unwrap();
    assert!(ft.seek_exact(b"").unwrap().is_some());
    let info = ft.seek_exact(b"w").unwrap().unwrap();
    assert_eq!((info.doc_freq, info.total_term_freq), (300, 900));
    let mut p = ft.postings(&info, true).unwrap();
    let (mut pos, mut offs) = (Vec::new(), Vec::new());
    for &d in &docs {
        assert_eq!(p.next(), d);
        assert_eq!(p.freq(), 3);
        p.positions_and_offsets(&mut pos, &mut offs);
        assert_eq!(pos, vec![7, 7, 4_000_000_000]);
        assert_eq!(offs, vec![(50, 60), (100, 90), (u32::MAX - 5, u32::MAX)]);
    }
    assert_eq!(p.next(), NO_MORE_DOCS);
    let mut p = ft.postings(&info, false).unwrap();
    assert_eq!(p.advance(docs[200] - 1), docs[200]);
    assert_eq!(p.advance(docs[299]), docs[299]);
    let files = r.files();
    let b = |i: usize| dir.open(&files[i]).unwrap();
    assert_eq!(check_files(&b(0), &b(1), &b(2)).unwrap().positions, 1200);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Arbitrary byte terms (many blocks, shared prefixes across block boundaries, 0xff bytes).
    #[test]
    fn term_dictionary_matches_a_sorted_set(
        terms in proptest::collection::btree_set(proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(0u8), Just(0xffu8), any::<u8>()], 0..12), 0..300),
        probes in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..4), 0..20),
    ) {
        let dir = RamDirectory::new();
        let infos = infos_in(&[1]);
        let mut buf = PostingsBuffer::new();
        for (d, t) in terms.iter().enumerate() {
            buf.add(0, t, d as u32 / 3, 0, None);
        }
        let max_doc = (terms.len() as u32).div_ceil(3);
        write_postings(&dir, &seg(0), &infos, &buf, &|_, _| 0, max_doc).unwrap();
        let r = PostingsReader::open(&dir, &seg(0), &infos).unwrap();
        let Some(ft) = r.field(0) else {
            prop_assert!(terms.is_empty());
            return Ok(());
        };
        prop_assert_eq!(ft.stats().num_terms, terms.len() as u64);
        for (i, t) in terms.iter().enumerate() {
            let info = ft.seek_exact(t).unwrap();
            prop_assert_eq!(info.map(|i| i.doc_freq), Some(1));
            let mut p = ft.postings(&info.unwrap(), false).unwrap();
            prop_assert_eq!(p.next(), i as u32 / 3);
        }
        for probe in probes.iter().chain(terms.iter().take(5)) {
            let want: Vec<&Vec<u8>> = terms.range(probe.clone()..).collect();
            let mut it = ft.iter_from(probe).unwrap();
            let mut got = Vec::new();
            while let Some((t, _)) = it.next().unwrap() {
                got.push(t.to_vec());
            }
            prop_assert_eq!(got.iter().collect::<Vec<_>>(), want);
            prop_assert_eq!(ft.seek_exact(probe).unwrap().is_some(), terms.contains(probe));
        }
    }
}

#[test]
fn merge_widens_a_field_to_positions() {
    // Source indexed "text" without positions; the merged segment has positions: they read as 0.
    let dir = RamDirectory::new();
    let mut narrow = FieldInfos::new();
    narrow.add_or_widen("text", IndexOptions::DocsFreqs, true, DocValuesKind::None, 0).unwrap();
    let mut buf = PostingsBuffer::new();
    buf.add(0, b"x", 0, 0, None);
    buf.add(0, b"x", 0, 1, None);
    buf.add(0, b"x", 2, 0, None);
    write_postings(&dir, &seg(0), &narrow, &buf, &|_, _| 1, 3).unwrap();
    let r = PostingsReader::open(&dir, &seg(0), &narrow).unwrap();
    let wide = infos_in(&[3]);
    let map = DocMap { new_ids: vec![1, 0, NO_MORE_DOCS] };
    merge_postings(&dir, &seg(1), &wide, &[(&r, &narrow, &map)], &|_, _| 1, 2).unwrap();
    let m = PostingsReader::open(&dir, &seg(1), &wide).unwrap();
    walk(&m).unwrap();
    let ft = m.field(0).unwrap();
    let info = ft.seek_exact(b"x").unwrap().unwrap();
    assert_eq!((info.doc_freq, info.total_term_freq), (1, 2));
    let mut p = ft.postings(&info, true).unwrap();
    assert_eq!(p.next(), 1, "doc 0 moved to 1 by the doc map, doc 2 deleted");
    let mut pos = Vec::new();
    p.positions(&mut pos);
    assert_eq!(pos, vec![0, 0]);
}

/// BM25-shaped score: increasing in freq, decreasing in the norm byte.
fn bm25ish(f: u32, n: u8, k1: f64, b: f64) -> f64 {
    let len = crate::engine::segment::smallfloat::norm_to_length(n) as f64;
    f as f64 * (k1 + 1.0) / (f as f64 + k1 * (1.0 - b + b * len / 10.0))
}

/// Checks an impact list against the (freq, norm) pairs of the docs it covers.
fn check_impacts(imps: &[(u32, u8)], docs: &[(u32, u8)], k1: f64, b: f64) -> std::result::Result<(), TestCaseError> {
    prop_assert!(!imps.is_empty() && imps.len() <= MAX_IMPACTS, "{imps:?}");
    prop_assert!(imps.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1), "not increasing: {imps:?}");
    let best = imps.iter().map(|&(f, n)| bm25ish(f, n, k1, b)).fold(f64::MIN, f64::max);
    for &(f, n) in docs {
        prop_assert!(imps.iter().any(|&(pf, pn)| pf >= f && pn <= n), "doc ({f}, {n}) not dominated by {imps:?}");
        prop_assert!(best >= bm25ish(f, n, k1, b));
    }
    for &(pf, pn) in imps {
        prop_assert!(
            docs.iter().any(|&(f, _)| f == pf) && docs.iter().any(|&(_, n)| n == pn),
            "({pf}, {pn}) not attained"
        );
        if imps.len() < MAX_IMPACTS {
            prop_assert!(docs.contains(&(pf, pn)), "({pf}, {pn}) not a doc's pair");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn block_and_term_impacts_are_exact_supersets(
        seed in any::<u64>(), n in 1u32..900, density in 1u64..8, max_freq in 1u64..40, norm_span in 1u64..256,
        k1 in 0.2f64..3.0, b in 0.0f64..1.0,
    ) {
        let dir = RamDirectory::new();
        let infos = infos_in(&[0, 1, 2, 3]);
        let mut buf = PostingsBuffer::new();
        let mut rng = Rng(seed);
        let mut model: Vec<(u32, u32, u8)> = Vec::new();
        let norms: Vec<u8> = (0..n).map(|_| rng.below(norm_span) as u8).collect();
        for d in 0..n {
            if rng.below(8) < density {
                let f = 1 + rng.below(max_freq) as u32;
                for p in 0..f {
                    buf.add(3, b"t", d, p, None);
                    buf.add(2, b"t", d, p, None);
                }
                model.push((d, f, norms[d as usize]));
            }
        }
        prop_assume!(!model.is_empty());
        let norm = |_: u32, d: DocId| norms[d as usize];
        write_postings(&dir, &seg(0), &infos, &buf, &norm, n).unwrap();
        let r = PostingsReader::open(&dir, &seg(0), &infos).unwrap();
        for field in [2u32, 3] {
            let ft = r.field(field).unwrap();
            let info = ft.seek_exact(b"t").unwrap().unwrap();
            let mut p = ft.postings(&info, false).unwrap();
            let mut imps = Vec::new();
            let all: Vec<(u32, u8)> = model.iter().map(|&(_, f, nb)| (f, nb)).collect();
            p.term_impacts(&mut imps);
            check_impacts(&imps, &all, k1, b)?;
            prop_assert_eq!(p.term_max(), (imps.last().unwrap().0, imps[0].1));
            // Walk the blocks with shallow_advance; each block's docs are those up to its last doc.
            let mut from = 0u32;
            loop {
                let last = p.shallow_advance(from);
                if last == NO_MORE_DOCS {
                    break;
                }
                p.block_impacts(&mut imps);
                let docs: Vec<(u32, u8)> = model.iter().filter(|m| m.0 >= from && m.0 <= last).map(|&(_, f, nb)| (f, nb)).collect();
                prop_assert!(!docs.is_empty());
                check_impacts(&imps, &docs, k1, b)?;
                prop_assert_eq!(p.block_max(), (imps.last().unwrap().0, imps[0].1));
                from = last + 1;
            }
            p.block_impacts(&mut imps);
            prop_assert!(imps.is_empty());
        }
    }
}

proptest! {
    #[test]
    fn skip_varints_matches_a_byte_walk(vals in prop::collection::vec(any::<u64>().prop_map(|v| v >> (v % 64)), 0..80), n in 0u64..90, tail in 0usize..3) {
        let mut bytes = vec![0xffu8; 3];
        for &v in &vals {
            crate::engine::codec::put_vu64(&mut bytes, v);
        }
        bytes.truncate(bytes.len() - tail.min(bytes.len() - 3));
        // Naive: walk byte by byte from offset 3.
        let (mut at, mut left) = (3usize, n);
        let want = loop {
            if left == 0 {
                break Some(at);
            }
            match bytes.get(at) {
                None => break None,
                Some(&b) => {
                    at += 1;
                    left -= (b < 0x80) as u64;
                }
            }
        };
        prop_assert_eq!(super::iter::skip_varints(&bytes, 3, n), want);
    }
}

/// Golden segment `_b` (`tests/golden/postings/v1-blocks/`, written once by the version 1
/// writer): terms with full 128-doc blocks, so every later `.doc` version must still decode
/// version 1's sequential blocks. Per doc `d` of 0..3000: "every" in each doc (freq 1 + d % 5),
/// "gaps" in docs `d * d % 2999` order (sparse, irregular gaps), "tail" in 200 docs (one full
/// block and a partial one); field `text` has positions.
fn blocks_docs() -> Vec<(DocId, &'static str, u32)> {
    let mut out = Vec::new();
    for d in 0..3000u32 {
        out.push((d, "every", 1 + d % 5));
        if (d * d) % 7 < 2 {
            out.push((d, "gaps", 1 + (d / 7) % 3));
        }
        if (1000..1200).contains(&d) {
            out.push((d, "tail", 1));
        }
    }
    out
}

fn blocks_segment(dir: &dyn Directory) -> (SegmentId, FieldInfos) {
    let s = SegmentId { name: "_b".into(), id: *b"fathom-golden-b1" };
    let infos = infos_in(&[3]);
    let mut buf = PostingsBuffer::new();
    let mut norms = NormsBuffer::new();
    let mut len = vec![0u32; 3000];
    for (d, t, f) in blocks_docs() {
        for k in 0..f {
            buf.add(0, t.as_bytes(), d, len[d as usize] + k, None);
        }
        len[d as usize] += f;
    }
    for (d, l) in len.iter().enumerate() {
        norms.set(0, d as u32, length_to_norm(*l));
    }
    write_postings(dir, &s, &infos, &buf, &|f, d| norms.get(f, d), 3000).unwrap();
    (s, infos)
}

#[test]
fn golden_v1_full_blocks_still_decode() {
    check_blocks_golden("v1-blocks");
}

/// The same segment as written by the version 2 writer (full blocks in four lanes, no top
/// docs), kept for the record.
#[test]
fn golden_v2_full_blocks_still_decode() {
    check_blocks_golden("v2-blocks");
    let gd = golden_dir().join("v2-blocks");
    let dir = RamDirectory::new();
    let s = SegmentId { name: "_b".into(), id: *b"fathom-golden-b1" };
    for ext in [TERMS_EXT, DOC_EXT, POS_EXT] {
        dir.overwrite(&s.file(ext), std::fs::read(gd.join(s.file(ext))).expect("golden v2-blocks file"));
    }
    let r = PostingsReader::open(&dir, &s, &infos_in(&[3])).unwrap();
    let text = r.field(0).unwrap();
    let mut p = text.postings(&text.seek_exact(b"every").unwrap().unwrap(), false).unwrap();
    let mut top = vec![(0, 0)];
    p.top_docs(&mut top);
    assert!(top.is_empty(), "version 2 stores no top docs");
}

/// The same segment as written by the version 3 writer (full blocks of gaps in four lanes, top
/// docs of multi-block terms), kept for the record; its top docs are the 16 best docs of each
/// term under BM25 with the segment's mean field length (ties to the lower doc).
#[test]
fn golden_v3_full_blocks_still_decode() {
    check_blocks_golden("v3-blocks");
    check_blocks_top_docs("v3-blocks");
}

/// The same segment written by the current writer (`.doc` version 4: full blocks of docs as
/// frames of reference in four lanes, top docs of multi-block terms), byte for byte
/// (`FATHOM_BLESS=1` writes it for a new version).
#[test]
fn golden_v4_full_blocks() {
    let gd = golden_dir().join("v4-blocks");
    let fresh = RamDirectory::new();
    let (s, _) = blocks_segment(&fresh);
    for ext in [TERMS_EXT, DOC_EXT, POS_EXT] {
        let now = fresh.open(&s.file(ext)).unwrap().to_vec();
        if std::env::var_os("FATHOM_BLESS").is_some() {
            std::fs::create_dir_all(&gd).unwrap();
            std::fs::write(gd.join(s.file(ext)), &now).unwrap();
        }
        assert_eq!(
            std::fs::read(gd.join(s.file(ext))).expect("golden v4-blocks file"),
            now,
            "{ext} changed: a new format version needs new golden files"
        );
    }
    check_blocks_golden("v4-blocks");
    check_blocks_top_docs("v4-blocks");
    // Every full doc block is a frame of reference: its width byte has the flag, the partial
    // last block of "tail" (72 docs) does not.
    let doc = std::fs::read(gd.join(s.file(DOC_EXT))).unwrap();
    let dir = RamDirectory::new();
    for ext in [TERMS_EXT, DOC_EXT, POS_EXT] {
        dir.overwrite(&s.file(ext), std::fs::read(gd.join(s.file(ext))).unwrap());
    }
    let r = PostingsReader::open(&dir, &s, &infos_in(&[3])).unwrap();
    let text = r.field(0).unwrap();
    let tail = text.seek_exact(b"tail").unwrap().unwrap();
    // "tail": 2 blocks, so 2 skip entries (with positions) before its first block.
    let first = tail.doc_start as usize + 2 * super::skip_entry_len(true);
    // Docs 1000..1127 are offsets from 0 (the first block's base): 11 bits.
    assert_eq!(
        doc[first],
        super::FOR_BLOCK | 11,
        "tail's full first block: width byte {:#x} at {first:#x}",
        doc[first]
    );
    // The partial block (72 docs) starts `DocOff` of skip entry 1 past the first block.
    let e1 = tail.doc_start as usize + super::skip_entry_len(true) + 4;
    let partial = first + u64::from_le_bytes(doc[e1..e1 + 8].try_into().unwrap()) as usize;
    assert!(doc[partial] & super::FOR_BLOCK == 0, "a partial block holds gaps");
    // Damage to the blocks is an error naming `.doc`, never wrong docs: a frame of reference
    // read as gaps, offsets that do not increase, the flag on a partial block.
    for (at, byte) in [(first, 0x07u8), (first + 1, 0xffu8), (partial, doc[partial] | super::FOR_BLOCK)] {
        let mut bad = doc.clone();
        bad[at] = byte;
        dir.overwrite(&s.file(DOC_EXT), crate::engine::codec::header::refooter(bad));
        let r = PostingsReader::open(&dir, &s, &infos_in(&[3])).unwrap();
        let text = r.field(0).unwrap();
        let mut p = text.postings(&text.seek_exact(b"tail").unwrap().unwrap(), false).unwrap();
        let mut n = 0;
        while p.next() != NO_MORE_DOCS {
            n += 1;
        }
        let e = p.take_error().expect("damaged block is an error");
        assert!(e.to_string().contains("_b.doc"), "{e}");
        assert!(n <= 128, "{n} docs from a damaged block");
    }
    // The flag in a file of an older version (a version 3 block of gaps) is an error too.
    let gd3 = golden_dir().join("v3-blocks");
    for ext in [TERMS_EXT, POS_EXT] {
        dir.overwrite(&s.file(ext), std::fs::read(gd3.join(s.file(ext))).unwrap());
    }
    let mut v3 = std::fs::read(gd3.join(s.file(DOC_EXT))).unwrap();
    let info = {
        dir.overwrite(&s.file(DOC_EXT), v3.clone());
        let r = PostingsReader::open(&dir, &s, &infos_in(&[3])).unwrap();
        r.field(0).unwrap().seek_exact(b"tail").unwrap().unwrap()
    };
    let at = info.doc_start as usize + 2 * super::skip_entry_len(true);
    assert_eq!(v3[at] & super::FOR_BLOCK, 0);
    v3[at] |= super::FOR_BLOCK;
    dir.overwrite(&s.file(DOC_EXT), crate::engine::codec::header::refooter(v3));
    let r = PostingsReader::open(&dir, &s, &infos_in(&[3])).unwrap();
    let text = r.field(0).unwrap();
    let mut p = text.postings(&text.seek_exact(b"tail").unwrap().unwrap(), false).unwrap();
    assert_eq!(p.next(), NO_MORE_DOCS);
    let e = p.take_error().expect("the flag in a version 3 file is an error");
    assert!(e.to_string().contains("frame of reference"), "{e}");
}

/// The top docs of the blocks golden in `sub` are the 16 best docs of each term under BM25
/// with the segment's mean field length (ties to the lower doc).
fn check_blocks_top_docs(sub: &str) {
    let gd = golden_dir().join(sub);
    let s = SegmentId { name: "_b".into(), id: *b"fathom-golden-b1" };
    let dir = RamDirectory::new();
    for ext in [TERMS_EXT, DOC_EXT, POS_EXT] {
        dir.overwrite(&s.file(ext), std::fs::read(gd.join(s.file(ext))).unwrap());
    }
    let r = PostingsReader::open(&dir, &s, &infos_in(&[3])).unwrap();
    let text = r.field(0).unwrap();
    // Field lengths: each doc holds every term's freq.
    let mut len = vec![0u32; 3000];
    for (d, _, f) in blocks_docs() {
        len[d as usize] += f;
    }
    let dl = |d: DocId| crate::engine::segment::smallfloat::LENGTH_TABLE[length_to_norm(len[d as usize]) as usize];
    let avg = ((0..3000).map(|d| dl(d) as u64).sum::<u64>() as f64 / 3000.0) as f32;
    for term in ["every", "gaps", "tail"] {
        let mut p = text.postings(&text.seek_exact(term.as_bytes()).unwrap().unwrap(), false).unwrap();
        let mut top = Vec::new();
        p.top_docs(&mut top);
        let mut all: Vec<(f32, DocId, u32)> = blocks_docs()
            .into_iter()
            .filter(|x| x.1 == term)
            .map(|(d, _, f)| (f as f32 / (f as f32 + 1.2 * ((1.0 - 0.75) + 0.75 * dl(d) as f32 / avg)), d, f))
            .collect();
        all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut want: Vec<(DocId, u32)> = all.iter().take(TOP_DOCS).map(|x| (x.1, x.2)).collect();
        want.sort_unstable();
        assert_eq!(top, want, "{sub} {term}");
    }
}

fn check_blocks_golden(sub: &str) {
    let gd = golden_dir().join(sub);
    let s = SegmentId { name: "_b".into(), id: *b"fathom-golden-b1" };
    let exts = [TERMS_EXT, DOC_EXT, POS_EXT];
    if sub == "v1-blocks" && std::env::var_os("FATHOM_BLESS_V1_BLOCKS").is_some() {
        // Only with the version 1 writer (kept for the record; never regenerate).
        let fresh = RamDirectory::new();
        blocks_segment(&fresh);
        std::fs::create_dir_all(&gd).unwrap();
        for ext in exts {
            std::fs::write(gd.join(s.file(ext)), fresh.open(&s.file(ext)).unwrap()).unwrap();
        }
    }
    let dir = RamDirectory::new();
    for ext in exts {
        dir.overwrite(&s.file(ext), std::fs::read(gd.join(s.file(ext))).expect("golden v1-blocks file"));
    }
    let r = PostingsReader::open(&dir, &s, &infos_in(&[3])).unwrap();
    r.check_integrity().unwrap();
    walk(&r).unwrap();
    let text = r.field(0).unwrap();
    for term in ["every", "gaps", "tail"] {
        let want: Vec<(DocId, u32)> =
            blocks_docs().into_iter().filter(|x| x.1 == term).map(|(d, _, f)| (d, f)).collect();
        let info = text.seek_exact(term.as_bytes()).unwrap().unwrap();
        let mut p = text.postings(&info, true).unwrap();
        let mut got = Vec::new();
        let mut pos = Vec::new();
        while p.next() != NO_MORE_DOCS {
            p.positions(&mut pos);
            assert_eq!(pos.len() as u32, p.freq(), "{term} doc {}", p.doc());
            got.push((p.doc(), p.freq()));
        }
        assert_eq!(got, want, "{term}");
        // Advancing into later blocks.
        let mut p = text.postings(&info, false).unwrap();
        for &(d, f) in want.iter().step_by(97) {
            assert_eq!(p.advance(d), d);
            assert_eq!(p.freq(), f);
        }
    }
}

/// The `TopDocs` list of a term: damage behind the file's checksum is an error naming `.doc`
/// (the list's own CRC); a list with a valid CRC that names a wrong freq passes the reader's
/// range checks but not `check_files`.
#[test]
fn damaged_top_docs_are_errors() {
    let fresh = RamDirectory::new();
    let (s, infos) = blocks_segment(&fresh);
    let name = s.file(DOC_EXT);
    let orig = fresh.open(&name).unwrap().to_vec();
    let r = PostingsReader::open(&fresh, &s, &infos).unwrap();
    let info = r.field(0).unwrap().seek_exact(b"every").unwrap().unwrap();
    let mut top = Vec::new();
    r.field(0).unwrap().postings(&info, false).unwrap().top_docs(&mut top);
    assert_eq!(top.len(), TOP_DOCS);
    let mut enc = Vec::new();
    super::top_docs::encode(&top, &mut enc);
    let at = orig.windows(enc.len()).position(|w| w == enc.as_slice()).expect("the encoded list is in the file");
    let tim = fresh.open(&s.file(TERMS_EXT)).unwrap().to_vec();
    let pos = fresh.open(&s.file(POS_EXT)).unwrap().to_vec();
    use crate::engine::codec::header::refooter;
    // A flipped bit inside the list (valid file checksum): the reader reports it.
    for i in [at + 1, at + enc.len() / 2, at + enc.len() - 1] {
        let mut b = orig.clone();
        b[i] ^= 0x10;
        let b = refooter(b);
        let dir = RamDirectory::new();
        for ext in [TERMS_EXT, POS_EXT] {
            dir.overwrite(&s.file(ext), fresh.open(&s.file(ext)).unwrap().to_vec());
        }
        dir.overwrite(&name, b.clone());
        let r = PostingsReader::open(&dir, &s, &infos).unwrap();
        let mut p = r.field(0).unwrap().postings(&info, false).unwrap();
        let mut got = vec![(0, 0)];
        p.top_docs(&mut got);
        assert!(got.is_empty(), "byte {i}: nothing from a damaged list");
        let e = p.take_error().expect("the damaged list is reported");
        assert!(e.is_corruption() && e.to_string().contains("_b.doc"), "{e}");
        assert_eq!(p.next(), NO_MORE_DOCS, "the iterator ends with the error");
        assert!(check_files(&tim, &b, &pos).is_err(), "byte {i}");
    }
    // A valid list (CRC recomputed) whose first doc has a freq it does not have.
    let mut wrong = top.clone();
    wrong[0].1 = if wrong[0].1 > 1 { wrong[0].1 - 1 } else { 2 };
    let mut enc2 = Vec::new();
    super::top_docs::encode(&wrong, &mut enc2);
    assert_eq!(enc2.len(), enc.len());
    let mut b = orig.clone();
    b[at..at + enc.len()].copy_from_slice(&enc2);
    let e = check_files(&tim, &refooter(b), &pos).expect_err("a top doc with a wrong freq");
    assert!(e.to_string().contains("top doc"), "{e}");
    assert!(check_files(&tim, &orig, &pos).is_ok());
}

proptest! {
    /// A probe's search of a packed frame of reference finds what a scan of the decoded block
    /// finds, at every width and spread of docs, and reads each doc's freq in place.
    #[test]
    fn probed_block_search_matches_a_scan(seed in any::<u64>(), wide in 0u32..32, base in 0u32..1_000_000, fbits in 0u8..12) {
        let mut rng = Rng(seed);
        let max_gap = (1u64 << (wide % 24)).max(1) as u32;
        let mut offsets = [0u32; BLOCK];
        let mut d = rng.below(max_gap as u64) as u32;
        for (i, o) in offsets.iter_mut().enumerate() {
            // Clustered at times: long runs of gap 1 between wide jumps.
            if i > 0 {
                d += if rng.below(3) == 0 { 1 } else { 1 + rng.below(max_gap as u64) as u32 };
            }
            *o = d;
        }
        let bits = 32 - offsets[BLOCK - 1].leading_zeros();
        let fmask = if fbits == 0 { 0 } else { (1u32 << fbits) - 1 };
        let freqs: Vec<u32> = (0..BLOCK).map(|_| rng.below(1 << 12) as u32 & fmask).collect();
        let mut bytes = vec![bits as u8 | FOR_BLOCK];
        super::unpack::pack_lanes(&offsets, bits as u8, &mut bytes);
        bytes.push(fbits);
        super::unpack::pack_lanes(&freqs.clone().try_into().unwrap(), fbits, &mut bytes);
        bytes.extend_from_slice(&[0xff; 16]);
        let last = base + offsets[BLOCK - 1];
        let pr = super::iter::Probed::for_test(bits, base, last, 2 + 16 * bits as usize, fbits as u32);
        for _ in 0..64 {
            let target = base + rng.below(offsets[BLOCK - 1] as u64 + 1) as u32;
            let want = offsets.iter().position(|&o| base + o >= target).unwrap();
            prop_assert_eq!(pr.seek(&bytes, target), (want, base + offsets[want]));
            prop_assert_eq!(pr.freq(&bytes, want), freqs[want] + 1);
        }
    }

    /// The branch-free in-block search equals a linear scan for every start and target.
    #[test]
    fn first_at_least_matches_a_scan(gaps in prop::collection::vec(1u32..50, 1..=BLOCK), from_frac in 0.0f64..1.0, t_frac in 0.0f64..1.0) {
        let mut docs = [0u32; BLOCK];
        let mut d = 0u32;
        for (slot, g) in docs.iter_mut().zip(&gaps) {
            d += g;
            *slot = d;
        }
        let n = gaps.len();
        let from = ((n - 1) as f64 * from_frac) as usize;
        // A target no greater than the last doc, and at least the doc at `from` at times.
        let target = docs[from] + ((docs[n - 1] - docs[from]) as f64 * t_frac) as u32;
        let mut want = from;
        while docs[want] < target {
            want += 1;
        }
        prop_assert_eq!(super::iter::first_at_least(&docs, from, n, target), want);
    }
}
