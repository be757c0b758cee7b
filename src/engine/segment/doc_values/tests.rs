use std::collections::BTreeSet;

use super::*;
use crate::engine::segment::{DocMap, DocValuesKind, FieldInfos, IndexOptions, SegmentId};
use crate::engine::store::{Directory, RamDirectory};
use crate::engine::Error;
use proptest::prelude::*;

fn seg(n: u8) -> SegmentId {
    SegmentId { name: format!("_{n}"), id: [n; 16] }
}

fn infos(fields: &[(&str, DocValuesKind)]) -> FieldInfos {
    let mut f = FieldInfos::new();
    for (name, kind) in fields {
        f.add_or_widen(name, IndexOptions::None, false, *kind, 0).unwrap();
    }
    f
}

/// Per doc: numeric values, sorted-set terms, binary value.
#[derive(Debug, Clone, Default, PartialEq)]
struct Doc {
    nums: Vec<i64>,
    terms: BTreeSet<Vec<u8>>,
    bin: Option<Vec<u8>>,
}

fn write_model(dir: &dyn Directory, s: &SegmentId, fi: &FieldInfos, docs: &[Doc]) -> String {
    let (n, t, b) = (fi.by_name("n").unwrap().number, fi.by_name("t").unwrap().number, fi.by_name("b").unwrap().number);
    let mut buf = DocValuesBuffer::new();
    for (d, doc) in docs.iter().enumerate() {
        for &v in doc.nums.iter().rev() {
            buf.add_numeric(n, d as u32, v);
        }
        for term in &doc.terms {
            buf.add_bytes(t, d as u32, term);
            buf.add_bytes(t, d as u32, term); // duplicates collapse
        }
        if let Some(v) = &doc.bin {
            buf.set_binary(b, d as u32, b"overwritten");
            buf.set_binary(b, d as u32, v);
        }
    }
    assert!(docs.iter().all(|d| d.nums.is_empty() && d.terms.is_empty() && d.bin.is_none()) || buf.mem_bytes() > 0);
    write_doc_values(dir, s, fi, &buf, docs.len() as u32).unwrap()
}

fn assert_matches(r: &DocValuesReader, fi: &FieldInfos, docs: &[Doc]) {
    let (n, t, b) = (fi.by_name("n").unwrap().number, fi.by_name("t").unwrap().number, fi.by_name("b").unwrap().number);
    r.check_integrity().unwrap();
    let num = r.numeric(n);
    let ss = r.sorted_set(t);
    let bin = r.binary(b);
    let all_terms: BTreeSet<&Vec<u8>> = docs.iter().flat_map(|d| d.terms.iter()).collect();
    let all_terms: Vec<&Vec<u8>> = all_terms.into_iter().collect();
    assert_eq!(num.is_some(), docs.iter().any(|d| !d.nums.is_empty()));
    assert_eq!(ss.is_some(), !all_terms.is_empty());
    assert_eq!(bin.is_some(), docs.iter().any(|d| d.bin.is_some()));
    assert!(r.numeric(t).is_none() && r.sorted_set(b).is_none() && r.binary(n).is_none());
    let mut vals = Vec::new();
    let mut ords = Vec::new();
    for (d, doc) in docs.iter().enumerate() {
        let d = d as u32;
        let mut want = doc.nums.clone();
        want.sort();
        if let Some(c) = num {
            c.values(d, &mut vals);
            assert_eq!(vals, want, "doc {d}");
            assert_eq!(c.first(d), want.first().copied());
            assert_eq!(c.has_value(d), !want.is_empty());
        }
        if let Some(c) = ss {
            c.ords(d, &mut ords);
            let got: Vec<Vec<u8>> = ords.iter().map(|&o| c.lookup_ord(o).unwrap().to_vec()).collect();
            assert_eq!(got, doc.terms.iter().cloned().collect::<Vec<_>>());
            assert_eq!(c.first_ord(d), ords.first().copied());
        }
        if let Some(c) = bin {
            assert_eq!(c.get(d), doc.bin.as_deref());
        }
    }
    if let Some(c) = num {
        let all: Vec<i64> = docs.iter().flat_map(|d| d.nums.iter().copied()).collect();
        assert_eq!(c.min_value(), all.iter().copied().min());
        assert_eq!(c.max_value(), all.iter().copied().max());
        assert_eq!(c.is_single_valued(), docs.iter().all(|d| d.nums.len() <= 1));
        assert!(c.values_out_of_range_are_empty(docs.len() as u32));
    }
    if let Some(c) = ss {
        assert_eq!(c.value_count(), all_terms.len() as u64);
        for (i, term) in all_terms.iter().enumerate() {
            assert_eq!(c.lookup_term(term).unwrap(), Ok(i as u64));
            let mut below = term.to_vec();
            below.push(0);
            let p = all_terms.partition_point(|t| t.as_slice() < below.as_slice()) as u64;
            assert_eq!(c.lookup_term(&below).unwrap().unwrap_or_else(|e| e), p);
        }
        assert_eq!(c.lookup_term(b"\xff\xff\xff\xff").unwrap(), Err(all_terms.len() as u64));
        assert!(c.lookup_ord(c.value_count()).is_err() && c.lookup_ord(u64::MAX).is_err());
    }
}

impl NumericColumn<'_> {
    fn values_out_of_range_are_empty(&self, max_doc: u32) -> bool {
        let mut v = vec![1];
        self.values(max_doc, &mut v);
        v.is_empty() && self.first(u32::MAX).is_none() && !self.has_value(max_doc)
    }
}

fn doc_strategy() -> impl Strategy<Value = Doc> {
    let num = prop_oneof![
        -3i64..3,
        Just(i64::MIN),
        Just(i64::MAX),
        any::<i64>(),
        (0i64..100).prop_map(|x| x * 1000 + 1_600_000_000_000)
    ];
    (
        prop_oneof![
            1 => Just(vec![]),
            3 => proptest::collection::vec(num.clone(), 1..2),
            1 => proptest::collection::vec(num, 0..5),
        ],
        proptest::collection::btree_set(
            proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(0xff), any::<u8>()], 0..4),
            0..3,
        ),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 0..6)),
    )
        .prop_map(|(nums, terms, bin)| Doc { nums, terms, bin })
}

/// Field layouts differ between segments so merges must match by name.
fn fi_a() -> FieldInfos {
    infos(&[("n", DocValuesKind::SortedNumeric), ("t", DocValuesKind::SortedSet), ("b", DocValuesKind::Binary)])
}
fn fi_b() -> FieldInfos {
    infos(&[
        ("x", DocValuesKind::None),
        ("b", DocValuesKind::Binary),
        ("t", DocValuesKind::SortedSet),
        ("n", DocValuesKind::SortedNumeric),
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip_matches_model(docs in proptest::collection::vec(doc_strategy(), 0..40)) {
        let dir = RamDirectory::new();
        let fi = fi_b();
        let name = write_model(&dir, &seg(1), &fi, &docs);
        let r = DocValuesReader::open(&dir, &seg(1), &fi, docs.len() as u32).unwrap();
        assert_matches(&r, &fi, &docs);
        let s = check_file(&dir.open(&name).unwrap(), docs.len() as u32).unwrap();
        prop_assert_eq!(s.columns, [r.numeric(3).is_some(), r.sorted_set(2).is_some(), r.binary(1).is_some()].iter().filter(|x| **x).count());
    }

    #[test]
    fn merge_with_deletes_matches_model(
        a in proptest::collection::vec((doc_strategy(), any::<bool>()), 0..30),
        b in proptest::collection::vec((doc_strategy(), any::<bool>()), 0..30),
    ) {
        let dir = RamDirectory::new();
        let (fa, fb) = (fi_a(), fi_b());
        let docs_a: Vec<Doc> = a.iter().map(|x| x.0.clone()).collect();
        let docs_b: Vec<Doc> = b.iter().map(|x| x.0.clone()).collect();
        write_model(&dir, &seg(1), &fa, &docs_a);
        write_model(&dir, &seg(2), &fb, &docs_b);
        let ra = DocValuesReader::open(&dir, &seg(1), &fa, docs_a.len() as u32).unwrap();
        let rb = DocValuesReader::open(&dir, &seg(2), &fb, docs_b.len() as u32).unwrap();
        let (maps, max_doc) = DocMap::concatenate(&[a.len() as u32, b.len() as u32], |s, d| if s == 0 { a[d as usize].1 } else { b[d as usize].1 });
        let target = fi_b();
        merge_doc_values(&dir, &seg(3), &target, &[(&ra, &fa, &maps[0]), (&rb, &fb, &maps[1])], max_doc).unwrap();
        let merged = DocValuesReader::open(&dir, &seg(3), &target, max_doc).unwrap();
        let model: Vec<Doc> = a.iter().chain(b.iter()).filter(|x| x.1).map(|x| x.0.clone()).collect();
        assert_matches(&merged, &target, &model);
    }
}

#[test]
fn encodings_chosen_by_shape() {
    let dir = RamDirectory::new();
    let fi = fi_a();
    // Dense with a gcd: timestamps at whole seconds.
    let dense: Vec<Doc> =
        (0..100).map(|i| Doc { nums: vec![1_600_000_000_000 + i * 1000], ..Doc::default() }).collect();
    write_model(&dir, &seg(1), &fi, &dense);
    let r = DocValuesReader::open(&dir, &seg(1), &fi, 100).unwrap();
    assert_matches(&r, &fi, &dense);
    let len_dense = dir.file_len("_1.dvd").unwrap();
    // 100 values, (99 * 1000) / 1000 = 99 -> 7 bits each: ~88 bytes of values.
    assert!(len_dense < 250, "{len_dense}");
    // A constant column takes no value bits at all.
    let constant: Vec<Doc> = (0..1000).map(|_| Doc { nums: vec![-7], ..Doc::default() }).collect();
    write_model(&dir, &seg(2), &fi, &constant);
    assert!(dir.file_len("_2.dvd").unwrap() < 150);
    assert_matches(&DocValuesReader::open(&dir, &seg(2), &fi, 1000).unwrap(), &fi, &constant);
}

#[test]
fn misuse_is_an_invalid_argument() {
    let dir = RamDirectory::new();
    let fi = fi_a();
    let mut buf = DocValuesBuffer::new();
    buf.add_numeric(0, 0, 1);
    buf.add_bytes(0, 0, b"x");
    let e = write_doc_values(&dir, &seg(1), &fi, &buf, 1).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let mut buf = DocValuesBuffer::new();
    buf.add_bytes(0, 0, b"x"); // field 0 is numeric
    assert!(matches!(write_doc_values(&dir, &seg(2), &fi, &buf, 1), Err(Error::InvalidArgument(_))));
    let mut buf = DocValuesBuffer::new();
    buf.add_numeric(0, 5, 1); // doc past max_doc
    assert!(matches!(write_doc_values(&dir, &seg(3), &fi, &buf, 5), Err(Error::InvalidArgument(_))));
    let mut buf = DocValuesBuffer::new();
    buf.add_numeric(9, 0, 1); // unknown field
    assert!(matches!(write_doc_values(&dir, &seg(4), &fi, &buf, 5), Err(Error::InvalidArgument(_))));
}

#[test]
fn open_checks_kinds_against_field_infos() {
    let dir = RamDirectory::new();
    let fi = fi_a();
    let docs = golden_docs();
    write_model(&dir, &seg(1), &fi, &docs);
    let wrong = infos(&[("n", DocValuesKind::Binary), ("t", DocValuesKind::SortedSet), ("b", DocValuesKind::Binary)]);
    let e = DocValuesReader::open(&dir, &seg(1), &wrong, docs.len() as u32).unwrap_err();
    assert!(e.to_string().contains("field infos say") && e.to_string().contains("_1.dvd"), "{e}");
    assert!(DocValuesReader::open(&dir, &seg(1), &fi, docs.len() as u32 + 1).is_err());
}

fn golden_docs() -> Vec<Doc> {
    let d = |nums: &[i64], terms: &[&str], bin: Option<&str>| Doc {
        nums: nums.to_vec(),
        terms: terms.iter().map(|t| t.as_bytes().to_vec()).collect(),
        bin: bin.map(|b| b.as_bytes().to_vec()),
    };
    vec![
        d(&[10], &["red"], Some("a")),
        d(&[30, 20], &["blue", "red"], None),
        d(&[], &[], Some("")),
        d(&[-10], &["green"], Some("xyz")),
    ]
}

#[test]
fn every_flipped_byte_and_truncation_is_an_error() {
    let dir = RamDirectory::new();
    let fi = fi_a();
    let docs = golden_docs();
    let name = write_model(&dir, &seg(1), &fi, &docs);
    let bytes = dir.open(&name).unwrap().to_vec();
    check_file(&bytes, 4).unwrap();
    for i in 0..bytes.len() {
        for mask in [1u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            assert!(check_file(&b, 4).is_err(), "flip at {i} accepted");
            // Opening without the checksum pass must not panic either, nor must reading.
            dir.overwrite(&name, b);
            if let Ok(r) = DocValuesReader::open(&dir, &seg(1), &fi, 4) {
                assert!(r.check_integrity().is_err());
                exercise(&r, 4);
            }
        }
    }
    for n in 0..bytes.len() {
        assert!(check_file(&bytes[..n], 4).is_err());
    }
}

/// Calls every accessor on every doc (for corrupted files: must not panic).
fn exercise(r: &DocValuesReader, max_doc: u32) {
    let mut v = Vec::new();
    let mut o = Vec::new();
    for f in 0..4 {
        for d in 0..max_doc + 1 {
            if let Some(c) = r.numeric(f) {
                c.values(d, &mut v);
                let _ = (c.first(d), c.has_value(d));
            }
            if let Some(c) = r.sorted_set(f) {
                c.ords(d, &mut o);
                for &x in &o {
                    let _ = c.lookup_ord(x);
                }
                let _ = c.lookup_term(b"red");
            }
            if let Some(c) = r.binary(f) {
                let _ = c.get(d);
            }
        }
    }
}

use crate::engine::codec::header::refooter;

#[test]
fn damage_behind_a_valid_checksum_never_panics() {
    let dir = RamDirectory::new();
    let fi = fi_a();
    let docs = golden_docs();
    let name = write_model(&dir, &seg(1), &fi, &docs);
    let bytes = dir.open(&name).unwrap().to_vec();
    let mut caught = 0;
    for i in 0..bytes.len() - crate::engine::codec::FOOTER_LEN {
        for mask in [1u8, 0x10, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            let b = refooter(b);
            caught += check_file(&b, 4).is_err() as usize;
            dir.overwrite(&name, b);
            if let Ok(r) = DocValuesReader::open(&dir, &seg(1), &fi, 4) {
                exercise(&r, 4);
            }
        }
    }
    // Not every flip is detectable without a checksum (a value can change into another valid
    // value), but most structural damage is.
    assert!(caught > bytes.len(), "{caught}");
}

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/columns/doc_values.dvd");

/// The golden file: regenerated bytes must equal the committed ones (format unchanged), and the
/// committed file must decode to the expected content. Set `FATHOM_BLESS=1` to rewrite it.
#[test]
fn golden_file_still_decodes() {
    let dir = RamDirectory::new();
    let fi = fi_a();
    let docs = golden_docs();
    let name = write_model(&dir, &seg(1), &fi, &docs);
    let fresh = dir.open(&name).unwrap().to_vec();
    if std::env::var_os("FATHOM_BLESS").is_some() {
        std::fs::create_dir_all(std::path::Path::new(GOLDEN).parent().unwrap()).unwrap();
        std::fs::write(GOLDEN, &fresh).unwrap();
    }
    let committed = std::fs::read(GOLDEN).expect("golden file (run with FATHOM_BLESS=1 to create)");
    assert_eq!(committed, fresh, "the .dvd encoding changed: bump the version and add a golden file");
    let dir = RamDirectory::new();
    dir.overwrite("_1.dvd", committed);
    let r = DocValuesReader::open(&dir, &seg(1), &fi, 4).unwrap();
    assert_matches(&r, &fi, &docs);
    assert_eq!(check_file(&dir.open("_1.dvd").unwrap(), 4).unwrap(), Summary { columns: 3, values: 4 + 4 + 3 });
}

#[test]
fn reader_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<DocValuesReader>();
}
