//! The committed seeds decode successfully with the input layout each target uses, so the
//! fuzzer starts from valid files (a wrong prefix would silently leave it mutating garbage).
//! Run: `cargo test --manifest-path fuzz/Cargo.toml` (stable is fine).

use std::path::PathBuf;

use fathom::engine::index::commit::CommitPoint;
use fathom::engine::segment::info::SegmentInfo;
use fathom::engine::segment::postings::PostingsReader;
use fathom::engine::segment::{doc_values, live_docs, norms, points, postings, stored, FieldInfos};
use fathom::engine::store::{write_file, RamDirectory};
use fathom::engine::translog::{self, Operation};

fn seed(target: &str, name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("seeds").join(target).join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e} (run python3 fuzz/seeds/make_seeds.py)", p.display()))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

#[test]
fn whole_file_seeds_decode() {
    CommitPoint::decode_file(&seed("commit_point", "segments_1"), "segments_1").expect("commit point seed");
    SegmentInfo::decode_file(&seed("segment_info", "_0.si"), "_0.si").expect("segment info seed");
    let fi = FieldInfos::decode_file(&seed("field_infos", "_0.fnm"), "_0.fnm", None).expect("field infos seed");
    assert_eq!(fi.len(), 3);
}

#[test]
fn postings_seed_splits_into_the_three_files() {
    let s = seed("postings", "golden_g");
    let (tim, doc, pos) = fathom_fuzz::split3(&s).expect("two length prefixes");
    let sum = postings::check_files(tim, doc, pos).expect("postings seed");
    assert_eq!((sum.max_doc, sum.fields), (3, 2));
    let seg = fathom_fuzz::segment_for(tim);
    assert_eq!(&seg.id, b"fathom-golden-01", "header id is read from the .tim header");
    let dir = RamDirectory::new();
    for (ext, b) in [(postings::TERMS_EXT, tim), (postings::DOC_EXT, doc), (postings::POS_EXT, pos)] {
        write_file(&dir, &seg.file(ext), b).unwrap();
    }
    PostingsReader::open(&dir, &seg, &fathom_fuzz::indexed_infos(8)).expect("reader opens with the target's infos");
    // Full blocks (frames of reference in `.doc` version 4) and top docs.
    let s = seed("postings", "golden_b_v4");
    let (tim, doc, pos) = fathom_fuzz::split3(&s).expect("two length prefixes");
    let sum = postings::check_files(tim, doc, pos).expect("blocks seed");
    assert_eq!((sum.max_doc, sum.terms), (3000, 3));
}

#[test]
fn column_seeds_decode_with_their_prefixes() {
    let s = seed("norms", "golden_g_nvd");
    assert_eq!(norms::check_file(&s[2..], u16_at(&s, 0) as u32).expect("norms seed"), vec![0]);

    let s = seed("doc_values", "golden_dvd");
    let max_doc = u16_at(&s, 0) as u32;
    let kinds = u16_at(&s, 2);
    let file = &s[4..];
    assert_eq!(doc_values::check_file(file, max_doc).expect("doc values seed").columns, 3);
    let kinds: Vec<_> = (0..8).map(|i| fathom_fuzz::kind_from_bits((kinds >> (2 * i)) as u8)).collect();
    let seg = fathom_fuzz::segment_for(file);
    let dir = RamDirectory::new();
    write_file(&dir, &seg.file(doc_values::EXT), file).unwrap();
    doc_values::DocValuesReader::open(&dir, &seg, &fathom_fuzz::column_infos(&kinds, &[]), max_doc)
        .expect("kinds prefix matches");

    let s = seed("points", "golden_pts");
    let max_doc = u16_at(&s, 0) as u32;
    let file = &s[6..];
    assert_eq!(points::check_file(file, max_doc).expect("points seed").points, 7);
    let seg = fathom_fuzz::segment_for(file);
    let dir = RamDirectory::new();
    write_file(&dir, &seg.file(points::EXT), file).unwrap();
    points::PointsReader::open(&dir, &seg, &fathom_fuzz::column_infos(&[], &s[2..6]), max_doc)
        .expect("widths prefix matches");

    let s = seed("stored", "golden_fdt");
    assert_eq!(stored::check_file(&s[2..], u16_at(&s, 0) as u32).expect("stored seed").version, 1);
    let s = seed("stored", "golden_fdt_v2");
    let summary = stored::check_file(&s[2..], u16_at(&s, 0) as u32).expect("stored v2 seed");
    assert_eq!((summary.docs, summary.version), (3, 2));

    let s = seed("live_docs", "golden_liv");
    assert_eq!(live_docs::check_file(&s[2..], u16_at(&s, 0) as u32).expect("live docs seed").num_deleted, 2);
}

#[test]
fn translog_seeds_decode() {
    let tlog = seed("translog", "translog-1.tlog");
    let summary = translog::check_file("translog-1.tlog", &tlog).expect("tlog seed");
    assert!(!summary.contains("not a valid frame"), "{summary}");
    translog::check_file("translog.ckp", &seed("translog", "translog.ckp")).expect("ckp seed");
    Operation::decode(&seed("translog", "operation")).expect("operation seed");
    assert_eq!(fathom_fuzz::fix_tlog_crcs(&tlog), tlog, "repairing a sound generation changes nothing");
    // The recovery seed: checkpoint then generation, as the translog target splits it.
    let both = seed("translog", "ckp_then_tlog");
    let (ckp, tlog) = both.split_at(translog::checkpoint::FILE_LEN);
    let ops = fathom_fuzz::recover_translog(ckp, tlog).expect("the golden translog recovers");
    assert_eq!(ops.len(), 4);
}

#[test]
fn footer_repair_makes_the_checksum_pass() {
    let mut b = seed("field_infos", "_0.fnm");
    assert!(fathom_fuzz::with_valid_footer(&b).is_none(), "a sound footer is left alone");
    b[30] ^= 0x01;
    assert!(FieldInfos::decode_file(&b, "_0.fnm", None).is_err());
    let fixed = fathom_fuzz::with_valid_footer(&b).expect("footer rewritten");
    fathom::engine::codec::check_footer(&fixed, "_0.fnm").expect("checksum now matches");
}

#[test]
fn transport_frame_seeds_decode() {
    use fathom::transport::frame::{decode, decode_exact, Decoded, FrameKind};
    let f = decode_exact(&seed("transport_frame", "request_ping")).expect("request seed");
    assert_eq!((f.kind, f.request_id, f.action.as_str(), &f.payload[..]), (FrameKind::Request, 7, "ping", &b"{}"[..]));
    assert_eq!(
        decode_exact(&seed("transport_frame", "handshake")).expect("handshake seed").kind,
        FrameKind::HandshakeRequest
    );
    let s = seed("transport_frame", "stream");
    let mut at = 0;
    let mut kinds = Vec::new();
    while at < s.len() {
        match decode(&s[at..]).expect("stream seed") {
            Decoded::Frame(f, used) => {
                kinds.push(f.kind);
                at += used;
            }
            Decoded::Need(n) => panic!("stream seed needs {n} more"),
        }
    }
    assert_eq!(kinds, [FrameKind::HandshakeResponse, FrameKind::Response, FrameKind::Error]);
    assert!(fathom_fuzz::fix_frame_crc(&seed("transport_frame", "request_ping")).is_none(), "CRC already right");
}
