//! One battery of contract tests run against every directory implementation.

use super::*;
use crate::engine::Error;

fn battery(dir: &dyn Directory) {
    assert!(!dir.exists("a"));
    let mut w = dir.create("a").unwrap();
    w.write_all(b"hello ").unwrap();
    w.write_all(b"world").unwrap();
    assert_eq!(w.len(), 11);
    w.sync().unwrap();
    drop(w);
    assert!(matches!(dir.create("a"), Err(Error::FileExists { .. })));
    assert_eq!(&dir.open("a").unwrap()[..], b"hello world");
    assert_eq!(dir.file_len("a").unwrap(), 11);
    write_file(dir, "b", b"").unwrap();
    assert_eq!(dir.open("b").unwrap().len(), 0);
    dir.rename("a", "b").unwrap();
    assert_eq!(&dir.open("b").unwrap()[..], b"hello world");
    assert!(!dir.exists("a"));
    dir.sync_dir().unwrap();
    assert_eq!(dir.list().unwrap(), vec!["b".to_string()]);
    dir.delete("b").unwrap();
    assert!(matches!(dir.open("b"), Err(Error::FileNotFound { .. })));
    assert!(matches!(dir.delete("b"), Err(Error::FileNotFound { .. })));
}

#[test]
fn ram_directory_contract() {
    battery(&RamDirectory::new());
}

#[test]
fn fs_directory_contract() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDirectory::open(tmp.path().join("x")).unwrap();
    battery(&dir);
    assert!(matches!(dir.create("../escape"), Err(Error::InvalidArgument(_))));
}

#[test]
fn faulty_directory_contract() {
    battery(&FaultyDirectory::new());
}

#[test]
fn crash_forgets_unsynced_data_and_names() {
    let dir = FaultyDirectory::new();
    let mut w = dir.create("f").unwrap();
    w.write_all(b"durable").unwrap();
    w.sync().unwrap();
    w.write_all(b" volatile").unwrap();
    dir.crash(CrashMode::DropUnsynced);
    // The name was never made durable by sync_dir.
    assert!(!dir.exists("f"));

    let mut w = dir.create("g").unwrap();
    w.write_all(b"durable").unwrap();
    w.sync().unwrap();
    dir.sync_dir().unwrap();
    w.write_all(b" volatile").unwrap();
    dir.crash(CrashMode::DropUnsynced);
    assert_eq!(&dir.open("g").unwrap()[..], b"durable");
    // The old writer belongs to a dead process.
    assert!(matches!(w.write_all(b"x"), Err(Error::Injected { .. })));
}

#[test]
fn crash_reverts_unsynced_rename_and_delete() {
    let dir = FaultyDirectory::new();
    write_file(&dir, "old", b"1").unwrap();
    dir.sync_dir().unwrap();
    write_file(&dir, "tmp", b"2").unwrap();
    dir.rename("tmp", "old").unwrap();
    dir.crash(CrashMode::DropUnsynced);
    assert_eq!(&dir.open("old").unwrap()[..], b"1");
    dir.delete("old").unwrap();
    dir.crash(CrashMode::DropUnsynced);
    assert!(dir.exists("old"));
}

#[test]
fn torn_tail_keeps_a_prefix_of_unsynced_bytes() {
    let dir = FaultyDirectory::new();
    let mut w = dir.create("t").unwrap();
    w.write_all(b"abc").unwrap();
    w.sync().unwrap();
    dir.sync_dir().unwrap();
    w.write_all(&[7u8; 1000]).unwrap();
    dir.crash(CrashMode::TornTail { seed: 3 });
    let bytes = dir.open("t").unwrap();
    assert!(bytes.len() >= 3 && bytes.len() <= 1003);
    assert_eq!(&bytes[..3], b"abc");
}

#[test]
fn nth_call_fails_and_every_later_one() {
    let dir = FaultyDirectory::new();
    dir.fail_after(2);
    let mut w = dir.create("a").unwrap();
    assert!(matches!(w.write_all(b"x"), Err(Error::Injected { .. })));
    assert!(dir.create("b").is_err());
    assert!(dir.has_failed());
    dir.crash(CrashMode::DropUnsynced);
    assert!(dir.create("b").is_ok());
}

#[test]
fn sub_directories_share_faults_but_not_names() {
    let root = FaultyDirectory::new();
    let a = root.sub("index");
    let b = root.sub("translog");
    write_file(&a, "x", b"1").unwrap();
    a.sync_dir().unwrap();
    write_file(&b, "x", b"2").unwrap();
    assert_eq!(&a.open("x").unwrap()[..], b"1");
    root.crash(CrashMode::DropUnsynced);
    assert!(a.exists("x"));
    assert!(!b.exists("x"));
}
