use super::*;
use crate::engine::segment::{DocMap, SegmentId};
use crate::engine::store::{Directory, RamDirectory};
use crate::engine::Error;
use proptest::prelude::*;

fn seg(n: u8) -> SegmentId {
    SegmentId { name: format!("_{n}"), id: [n; 16] }
}

type Doc = Vec<(u32, Vec<u8>)>;

fn write_model(dir: &dyn Directory, s: &SegmentId, docs: &[Doc]) -> String {
    let mut w = StoredWriter::create(dir, s).unwrap();
    for d in docs {
        let fields: Vec<(u32, &[u8])> = d.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        w.add(&fields).unwrap();
    }
    assert_eq!(w.num_docs(), docs.len() as u64);
    w.finish().unwrap()
}

/// What the reader returns for a doc: version 2 gives the fields other than `_source` first.
fn expected(d: &Doc, version: u32) -> Doc {
    if version == 1 {
        return d.clone();
    }
    d.iter().filter(|f| f.0 != KEY_SOURCE).chain(d.iter().filter(|f| f.0 == KEY_SOURCE)).cloned().collect()
}

fn check_all(r: &StoredReader, docs: &[Doc]) {
    r.check_integrity().unwrap();
    // Forward, backward and strided, so the block cache is both hit and missed.
    for d in (0..docs.len()).chain((0..docs.len()).rev()).chain((0..docs.len()).step_by(7)) {
        assert_eq!(r.document(d as u32).unwrap(), expected(&docs[d], r.version()), "doc {d}");
        let no_source: Doc = docs[d].iter().filter(|f| f.0 != KEY_SOURCE).cloned().collect();
        assert_eq!(r.document_fields(d as u32, false).unwrap(), no_source, "doc {d} without source");
    }
    assert!(matches!(r.document(docs.len() as u32), Err(Error::InvalidArgument(_))));
    assert!(matches!(r.document_fields(docs.len() as u32, false), Err(Error::InvalidArgument(_))));
}

/// A version-1 file as the version-1 writer made it: blocks of whole docs cut at 32 KiB or
/// 512 docs, one zstd frame each, index entries `DocCount, CompLen, RawLen`.
fn write_v1(dir: &RamDirectory, s: &SegmentId, docs: &[Doc]) -> String {
    use crate::engine::codec::{header::footer_bytes, put_vu64, write_header};
    let mut f = Vec::new();
    write_header(&mut f, CODEC, 1, &s.id);
    let (mut index, mut blocks) = (Vec::new(), 0u64);
    let (mut pending, mut lens) = (Vec::new(), Vec::new());
    let mut flush = |pending: &mut Vec<u8>, lens: &mut Vec<u64>, f: &mut Vec<u8>| {
        if lens.is_empty() {
            return;
        }
        let mut raw = Vec::new();
        for &l in lens.iter() {
            put_vu64(&mut raw, l);
        }
        raw.extend_from_slice(pending);
        let comp = zstd::bulk::compress(&raw, 1).unwrap();
        f.extend_from_slice(&comp);
        for v in [lens.len() as u64, comp.len() as u64, raw.len() as u64] {
            put_vu64(&mut index, v);
        }
        blocks += 1;
        pending.clear();
        lens.clear();
    };
    for d in docs {
        let fields: Vec<(u32, &[u8])> = d.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        let start = pending.len();
        encode_doc(&fields, &mut pending);
        lens.push((pending.len() - start) as u64);
        if pending.len() >= 32 * 1024 || lens.len() >= 512 {
            flush(&mut pending, &mut lens, &mut f);
        }
    }
    flush(&mut pending, &mut lens, &mut f);
    let start = f.len() as u64;
    put_vu64(&mut f, docs.len() as u64);
    put_vu64(&mut f, blocks);
    f.extend_from_slice(&index);
    f.extend_from_slice(&start.to_le_bytes());
    let crc = crc32fast::hash(&f);
    f.extend_from_slice(&footer_bytes(crc));
    let name = s.file(EXT);
    dir.overwrite(&name, f);
    name
}

fn source(i: u64) -> Vec<u8> {
    format!(r#"{{"title":"document number {i}","body":"{}","n":{i}}}"#, "lorem ipsum ".repeat((i % 13) as usize))
        .into_bytes()
}

fn doc_strategy() -> impl Strategy<Value = Doc> {
    prop_oneof![
        3 => (any::<u32>(), 0u64..1000).prop_map(|(id, i)| vec![(KEY_ID, id.to_string().into_bytes()), (KEY_SOURCE, source(i))]),
        1 => proptest::collection::vec((0u32..5, proptest::collection::vec(any::<u8>(), 0..300)), 0..4),
        1 => (0usize..70_000).prop_map(|n| vec![(KEY_SOURCE, vec![b'x'; n]), (KEY_ROUTING, b"r".to_vec())]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn round_trip_matches_model(docs in proptest::collection::vec(doc_strategy(), 0..600)) {
        let dir = RamDirectory::new();
        let name = write_model(&dir, &seg(1), &docs);
        let r = StoredReader::open(&dir, &seg(1), docs.len() as u32).unwrap();
        check_all(&r, &docs);
        let s = check_file(&dir.open(&name).unwrap(), docs.len() as u32).unwrap();
        prop_assert_eq!(s.docs as usize, docs.len());
        prop_assert_eq!(s.version, VERSION);
    }

    #[test]
    fn version_1_files_read_and_merge_into_version_2(
        a in proptest::collection::vec((doc_strategy(), any::<bool>()), 0..300),
        b in proptest::collection::vec((doc_strategy(), any::<bool>()), 0..300),
    ) {
        let dir = RamDirectory::new();
        let da: Vec<Doc> = a.iter().map(|x| x.0.clone()).collect();
        let db: Vec<Doc> = b.iter().map(|x| x.0.clone()).collect();
        write_v1(&dir, &seg(1), &da);
        write_model(&dir, &seg(2), &db);
        let ra = StoredReader::open(&dir, &seg(1), da.len() as u32).unwrap();
        let rb = StoredReader::open(&dir, &seg(2), db.len() as u32).unwrap();
        prop_assert_eq!((ra.version(), rb.version()), (1, 2));
        check_all(&ra, &da);
        let (maps, max_doc) = DocMap::concatenate(&[a.len() as u32, b.len() as u32], |s, d| if s == 0 { a[d as usize].1 } else { b[d as usize].1 });
        merge_stored(&dir, &seg(3), &[(&ra, &maps[0]), (&rb, &maps[1])]).unwrap();
        let merged = StoredReader::open(&dir, &seg(3), max_doc).unwrap();
        prop_assert_eq!(merged.version(), 2);
        let model: Vec<Doc> = a.iter().chain(b.iter()).filter(|x| x.1).map(|x| x.0.clone()).collect();
        check_all(&merged, &model);
    }

    #[test]
    fn merge_with_deletes_matches_model(
        a in proptest::collection::vec((doc_strategy(), any::<bool>()), 0..300),
        b in proptest::collection::vec((doc_strategy(), any::<bool>()), 0..300),
    ) {
        let dir = RamDirectory::new();
        let da: Vec<Doc> = a.iter().map(|x| x.0.clone()).collect();
        let db: Vec<Doc> = b.iter().map(|x| x.0.clone()).collect();
        write_model(&dir, &seg(1), &da);
        write_model(&dir, &seg(2), &db);
        let ra = StoredReader::open(&dir, &seg(1), da.len() as u32).unwrap();
        let rb = StoredReader::open(&dir, &seg(2), db.len() as u32).unwrap();
        let (maps, max_doc) = DocMap::concatenate(&[a.len() as u32, b.len() as u32], |s, d| if s == 0 { a[d as usize].1 } else { b[d as usize].1 });
        merge_stored(&dir, &seg(3), &[(&ra, &maps[0]), (&rb, &maps[1])]).unwrap();
        let merged = StoredReader::open(&dir, &seg(3), max_doc).unwrap();
        let model: Vec<Doc> = a.iter().chain(b.iter()).filter(|x| x.1).map(|x| x.0.clone()).collect();
        check_all(&merged, &model);
    }
}

#[test]
fn blocks_compress_and_cut_at_the_target() {
    let dir = RamDirectory::new();
    let docs: Vec<Doc> =
        (0..3000).map(|i| vec![(KEY_ID, format!("id{i}").into_bytes()), (KEY_SOURCE, source(i))]).collect();
    let name = write_model(&dir, &seg(1), &docs);
    let bytes = dir.open(&name).unwrap();
    let s = check_file(&bytes, 3000).unwrap();
    assert!(s.blocks >= (s.raw_bytes as usize) / BLOCK_TARGET && s.blocks > 3, "{s:?}");
    assert!((bytes.len() as u64) * 4 < s.raw_bytes, "poor compression: {} of {}", bytes.len(), s.raw_bytes);
    check_all(&StoredReader::open(&dir, &seg(1), 3000).unwrap(), &docs);
    assert!(StoredReader::open(&dir, &seg(1), 2999).is_err());
}

#[test]
fn blocks_hold_at_most_the_max_docs_and_big_docs_stand_alone() {
    let dir = RamDirectory::new();
    let mut docs: Vec<Doc> = (0..100).map(|i| vec![(KEY_ID, format!("{i}").into_bytes())]).collect();
    docs.push(vec![(KEY_SOURCE, vec![b'y'; 3 << 20]), (KEY_ID, b"big".to_vec())]);
    docs.push(vec![]);
    let name = write_model(&dir, &seg(1), &docs);
    let s = check_file(&dir.open(&name).unwrap(), docs.len() as u32).unwrap();
    // 100 small docs in blocks of 16, then the big one (with the 4 before it), then the last.
    assert_eq!(s.blocks, 100 / BLOCK_MAX_DOCS + 2, "{s:?}");
    check_all(&StoredReader::open(&dir, &seg(1), docs.len() as u32).unwrap(), &docs);
}

#[test]
fn merge_rejects_non_dense_maps() {
    let dir = RamDirectory::new();
    write_model(&dir, &seg(1), &[vec![], vec![]]);
    let r = StoredReader::open(&dir, &seg(1), 2).unwrap();
    let map = DocMap { new_ids: vec![0, 2] };
    assert!(matches!(merge_stored(&dir, &seg(2), &[(&r, &map)]), Err(Error::InvalidArgument(_))));
}

fn golden_docs() -> Vec<Doc> {
    vec![
        vec![(KEY_ID, b"1".to_vec()), (KEY_SOURCE, br#"{"title":"hello"}"#.to_vec())],
        vec![(KEY_ID, b"2".to_vec()), (KEY_SOURCE, br#"{"title":"world"}"#.to_vec()), (KEY_ROUTING, b"user7".to_vec())],
        vec![],
    ]
}

#[test]
fn every_flipped_byte_and_truncation_is_an_error() {
    let dir = RamDirectory::new();
    let name = write_model(&dir, &seg(1), &golden_docs());
    let bytes = dir.open(&name).unwrap().to_vec();
    check_file(&bytes, 3).unwrap();
    for i in 0..bytes.len() {
        for mask in [1u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            assert!(check_file(&b, 3).is_err(), "flip at {i} accepted");
            dir.overwrite(&name, b);
            let err = match StoredReader::open(&dir, &seg(1), 3) {
                Ok(r) => {
                    for d in 0..4 {
                        let _ = r.document(d);
                        let _ = r.document_fields(d, false);
                    }
                    r.check_integrity().unwrap_err()
                }
                Err(e) => e,
            };
            let msg = err.to_string();
            assert!(msg.contains("_1.fdt"), "flip at {i}: {msg}");
            if let Error::Corrupt { offset, .. } = err {
                assert!(offset <= bytes.len() as u64, "flip at {i}: {msg}");
            }
        }
    }
    for n in 0..bytes.len() {
        assert!(check_file(&bytes[..n], 3).is_err());
    }
}

#[test]
fn damage_behind_a_valid_checksum_never_panics() {
    let dir = RamDirectory::new();
    let name = write_model(&dir, &seg(1), &golden_docs());
    let bytes = dir.open(&name).unwrap().to_vec();
    let foot = crate::engine::codec::FOOTER_LEN;
    let mut caught = 0;
    for i in 0..bytes.len() - foot {
        for mask in [1u8, 0x10, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            let n = b.len() - foot;
            let crc = crc32fast::hash(&b[..n]);
            b[n..].copy_from_slice(&crate::engine::codec::header::footer_bytes(crc));
            caught += check_file(&b, 3).is_err() as usize;
            dir.overwrite(&name, b);
            if let Ok(r) = StoredReader::open(&dir, &seg(1), 3) {
                let _ = r.check_integrity();
                for d in 0..4 {
                    let _ = r.document(d);
                    let _ = r.document_fields(d, false);
                }
            }
        }
    }
    assert!(caught > bytes.len(), "{caught}");
}

const GOLDEN_V1: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/columns/stored.fdt");
const GOLDEN_V2: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/columns/stored_v2.fdt");

/// Checks that a committed golden file decodes to the golden docs.
fn check_golden(path: &str, version: u32) {
    let committed = std::fs::read(path).expect("golden file (run with FATHOM_BLESS=1 to create the current version's)");
    let s = check_file(&committed, 3).unwrap();
    assert_eq!((s.docs, s.blocks, s.version), (3, 1, version));
    let dir = RamDirectory::new();
    dir.overwrite("_1.fdt", committed);
    check_all(&StoredReader::open(&dir, &seg(1), 3).unwrap(), &golden_docs());
}

/// The version-1 golden file, written by the version-1 writer, must still read. It is never
/// rewritten.
#[test]
fn golden_file_of_version_1_still_decodes() {
    check_golden(GOLDEN_V1, 1);
}

/// The committed version-2 golden file must decode to the expected docs. `FATHOM_BLESS=1`
/// rewrites it (only it: older versions' files stay as written).
#[test]
fn golden_file_of_version_2_still_decodes() {
    let dir = RamDirectory::new();
    let name = write_model(&dir, &seg(1), &golden_docs());
    let fresh = dir.open(&name).unwrap().to_vec();
    if std::env::var_os("FATHOM_BLESS").is_some() {
        std::fs::create_dir_all(std::path::Path::new(GOLDEN_V2).parent().unwrap()).unwrap();
        std::fs::write(GOLDEN_V2, &fresh).unwrap();
    }
    // No byte comparison with `fresh`: another zstd release may compress differently while the
    // format stays the same. The committed file must still decode.
    check_golden(GOLDEN_V2, 2);
}

#[test]
fn reader_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<StoredReader>();
}

/// Builds a `.fdt` image of `version` from blocks and raw index fields, with a valid checksum.
fn craft_version(version: u32, blocks: &[Vec<u8>], index: &[u64]) -> Vec<u8> {
    use crate::engine::codec::{header::footer_bytes, put_vu64, write_header};
    let mut f = Vec::new();
    write_header(&mut f, CODEC, version, &[0; 16]);
    for b in blocks {
        f.extend_from_slice(b);
    }
    let start = f.len() as u64;
    for &v in index {
        put_vu64(&mut f, v);
    }
    f.extend_from_slice(&start.to_le_bytes());
    let crc = crc32fast::hash(&f);
    f.extend_from_slice(&footer_bytes(crc));
    f
}

/// A version-1 image.
fn craft(blocks: &[Vec<u8>], index: &[u64]) -> Vec<u8> {
    craft_version(1, blocks, index)
}

#[test]
fn overflowing_counts_and_lengths_are_errors() {
    let e = check_file(&craft(&[], &[1, 1, u64::MAX, 5, 5]), 1).unwrap_err();
    assert!(e.to_string().contains("do not fit"), "{e}");
    let e = check_file(&craft(&[], &[1, 1, 1, u64::MAX, 5]), 1).unwrap_err();
    assert!(e.is_corruption(), "{e}");
    // Doc lengths that overflow when summed.
    let mut raw = Vec::new();
    crate::engine::codec::put_vu64(&mut raw, u64::MAX);
    crate::engine::codec::put_vu64(&mut raw, 2);
    let comp = zstd::bulk::compress(&raw, 1).unwrap();
    let f = craft(std::slice::from_ref(&comp), &[2, 1, 2, comp.len() as u64, raw.len() as u64]);
    let e = check_file(&f, 2).unwrap_err();
    assert!(e.to_string().contains("docs of the block take"), "{e}");
    // A block that decompresses to more than announced.
    let comp = zstd::bulk::compress(&[0u8; 100], 1).unwrap();
    let f = craft(std::slice::from_ref(&comp), &[1, 1, 1, comp.len() as u64, 10]);
    let e = check_file(&f, 1).unwrap_err();
    assert!(e.to_string().contains("index says 10"), "{e}");
}

#[test]
fn version_2_damage_behind_valid_lengths_is_named() {
    // Light section whose doc lengths do not add up.
    let comp = zstd::bulk::compress(&[1, 0], 1).unwrap();
    let light = vec![5u8, 0];
    let f = craft_version(2, &[light.clone(), comp.clone()], &[1, 1, 1, 2, comp.len() as u64, 2]);
    let e = check_file(&f, 1).unwrap_err();
    assert!(e.to_string().contains("docs of the block take 5 bytes"), "{e}");
    // A light section shorter than two bytes per doc.
    let f = craft_version(2, &[light, comp.clone()], &[1, 1, 1, 1, comp.len() as u64 + 1, 2]);
    assert!(check_file(&f, 1).unwrap_err().to_string().contains("do not fit"));
    // Too few bytes for the index entry's light and compressed lengths.
    let f = craft_version(2, std::slice::from_ref(&comp), &[1, 1, 1, 2, u64::MAX, 2]);
    assert!(check_file(&f, 1).unwrap_err().is_corruption());
    // A version this code does not know.
    let f = craft_version(3, &[], &[0, 0]);
    assert!(matches!(check_file(&f, 0), Err(Error::FormatTooNew { .. })), "{:?}", check_file(&f, 0));
    // A well-formed empty version-2 file.
    assert_eq!(check_file(&craft_version(2, &[], &[0, 0]), 0).unwrap().version, 2);
}

/// Size of the first 50,000 docs of `$FATHOM_FDT_CORPUS` (an ndjson file, e.g. the bench's text
/// corpus) in version 1 and version 2: `cargo test --lib stored::tests::corpus_sizes -- --ignored
/// --nocapture`.
#[test]
#[ignore]
fn corpus_sizes() {
    let Some(path) = std::env::var_os("FATHOM_FDT_CORPUS") else { return };
    let text = std::fs::read_to_string(path).unwrap();
    let docs: Vec<Doc> = text
        .lines()
        .take(50_000)
        .enumerate()
        .map(|(i, l)| vec![(KEY_ID, i.to_string().into_bytes()), (KEY_SOURCE, l.as_bytes().to_vec())])
        .collect();
    let dir = RamDirectory::new();
    let v1 = dir.open(&write_v1(&dir, &seg(1), &docs)).unwrap().len();
    let v2 = dir.open(&write_model(&dir, &seg(2), &docs)).unwrap().len();
    let raw: usize = docs.iter().map(|d| d.iter().map(|f| f.1.len()).sum::<usize>()).sum();
    eprintln!(
        "{} docs, {raw} raw bytes: v1 {v1} bytes ({:.2}x), v2 {v2} bytes ({:.2}x)",
        docs.len(),
        raw as f64 / v1 as f64,
        raw as f64 / v2 as f64
    );
}
