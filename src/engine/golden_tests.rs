//! Golden files of format version 1 (`tests/golden/v1/`): later versions must still read them.
//! They are written once by `FATHOM_WRITE_GOLDEN=1 cargo test golden` and never regenerated;
//! every run checks that they still decode to the values they were made from.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::engine::index::commit::{keys, CommitPoint, CommitSegment};
use crate::engine::segment::info::{FileEntry, SegmentInfo};
use crate::engine::segment::{DocValuesKind, FieldInfos, IndexOptions, SegmentId};
use crate::engine::store::{Directory, FsDirectory};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/v1")
}

const SEG_ID: [u8; 16] = *b"golden-segment-1";

fn field_infos() -> FieldInfos {
    let mut f = FieldInfos::new();
    f.add_or_widen("_id", IndexOptions::Docs, false, DocValuesKind::None, 0).expect("new field");
    f.add_or_widen("body", IndexOptions::DocsFreqsPositions, true, DocValuesKind::None, 0).expect("new field");
    f.add_or_widen("date", IndexOptions::None, false, DocValuesKind::SortedNumeric, 8).expect("new field");
    f
}

fn segment_info() -> SegmentInfo {
    let mut diagnostics = BTreeMap::new();
    diagnostics.insert("source".to_string(), "flush".to_string());
    SegmentInfo {
        id: SegmentId { name: "_0".into(), id: SEG_ID },
        max_doc: 3,
        files: vec![FileEntry { name: "_0.fnm".into(), len: 87, checksum: 0x1234_5678 }],
        diagnostics,
    }
}

fn commit_point() -> CommitPoint {
    let mut user_data = BTreeMap::new();
    user_data.insert(keys::MAX_SEQ_NO.to_string(), "2".to_string());
    user_data.insert(keys::LOCAL_CHECKPOINT.to_string(), "2".to_string());
    user_data.insert(keys::TRANSLOG_UUID.to_string(), "AAAAAAAAAAAAAAAAAAAAAA".to_string());
    user_data.insert(keys::TRANSLOG_GENERATION.to_string(), "1".to_string());
    user_data.insert(keys::HISTORY_UUID.to_string(), "BBBBBBBBBBBBBBBBBBBBBB".to_string());
    CommitPoint {
        generation: 1,
        version: 1,
        counter: 1,
        segments: vec![CommitSegment {
            id: SegmentId { name: "_0".into(), id: SEG_ID },
            max_doc: 3,
            del_gen: 1,
            del_count: 1,
        }],
        user_data,
    }
}

fn write_golden() {
    let dir = FsDirectory::open(golden_dir()).expect("golden dir");
    for f in ["_0.fnm", "_0.si", "segments_1"] {
        let _ = dir.delete(f);
    }
    let seg = SegmentId { name: "_0".into(), id: SEG_ID };
    field_infos().write(&dir, &seg).expect("write fnm");
    segment_info().write(&dir).expect("write si");
    commit_point().write(&dir).expect("write commit");
}

#[test]
fn golden_v1_files_still_decode() {
    if std::env::var_os("FATHOM_WRITE_GOLDEN").is_some() {
        write_golden();
    }
    let dir = FsDirectory::open(golden_dir()).expect("golden dir");
    let seg = SegmentId { name: "_0".into(), id: SEG_ID };
    assert_eq!(FieldInfos::read(&dir, &seg).expect("golden _0.fnm"), field_infos());
    assert_eq!(SegmentInfo::read(&dir, "_0", &SEG_ID).expect("golden _0.si"), segment_info());
    let bytes = dir.open("segments_1").expect("golden segments_1");
    let cp = CommitPoint::decode_file(&bytes, "segments_1").expect("golden segments_1 decodes");
    assert_eq!(cp, commit_point());
}
