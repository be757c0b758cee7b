use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::generation::{decode_frame, encode_frame, HEADER_LEN};
use super::*;
use crate::engine::store::{CrashMode, Directory, FaultyDirectory, RamDirectory};

const UUID: [u8; 16] = [0x5a; 16];

fn op(i: i64) -> Operation {
    match i % 3 {
        0 => Operation::Index {
            id: format!("doc-{i}"),
            routing: (i % 2 == 0).then(|| format!("r{i}")),
            source: format!("{{\"n\":{i}}}").into_bytes(),
            seq_no: i,
            primary_term: 1,
            version: 1,
        },
        1 => Operation::Delete { id: format!("doc-{}", i - 1), seq_no: i, primary_term: 1, version: 2 },
        _ => Operation::NoOp { seq_no: i, primary_term: 1, reason: "gap".into() },
    }
}

fn create(dir: &Arc<dyn Directory>) -> Translog {
    Translog::create(dir.clone(), UUID, 1, -1, TranslogConfig::default()).unwrap()
}

fn reopen(dir: &Arc<dyn Directory>, min_gen: u64) -> Result<Translog> {
    Translog::open(dir.clone(), UUID, min_gen, 1, TranslogConfig::default(), RecoveryPolicy::Strict)
}

fn seqs(ops: &[Operation]) -> Vec<i64> {
    ops.iter().map(Operation::seq_no).collect()
}

fn ram() -> (RamDirectory, Arc<dyn Directory>) {
    let d = RamDirectory::new();
    let a: Arc<dyn Directory> = Arc::new(d.clone());
    (d, a)
}

fn faulty() -> (FaultyDirectory, Arc<dyn Directory>) {
    let d = FaultyDirectory::new();
    let a: Arc<dyn Directory> = Arc::new(d.clone());
    (d, a)
}

fn arb_op() -> impl Strategy<Value = Operation> {
    let s = "[a-z0-9\\-é]{0,12}";
    prop_oneof![
        (
            s,
            proptest::option::of(s),
            proptest::collection::vec(any::<u8>(), 0..64),
            0..i64::MAX,
            any::<u64>(),
            any::<i64>()
        )
            .prop_map(|(id, routing, source, seq_no, primary_term, version)| Operation::Index {
                id,
                routing,
                source,
                seq_no,
                primary_term,
                version
            }),
        (s, 0..i64::MAX, any::<u64>(), any::<i64>())
            .prop_map(|(id, seq_no, primary_term, version)| Operation::Delete { id, seq_no, primary_term, version }),
        (0..i64::MAX, any::<u64>(), s).prop_map(|(seq_no, primary_term, reason)| Operation::NoOp {
            seq_no,
            primary_term,
            reason
        }),
    ]
}

proptest! {
    #[test]
    fn operation_round_trips(op in arb_op()) {
        let mut buf = Vec::new();
        op.encode(&mut buf);
        prop_assert_eq!(Operation::decode(&buf).unwrap(), op.clone());
        let mut frame = Vec::new();
        let size = encode_frame(&op, &mut frame).unwrap();
        prop_assert_eq!(size as usize, frame.len());
        let (back, next) = decode_frame(&frame, 0, size, "f").unwrap();
        prop_assert_eq!(back, op);
        prop_assert_eq!(next, size);
    }

    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = Operation::decode(&bytes);
        let _ = decode_frame(&bytes, 0, bytes.len() as u64, "f");
        let _ = check_file("x.tlog", &bytes);
        let _ = check_file("translog.ckp", &bytes);
        let _ = Checkpoint::from_bytes(&bytes, "translog.ckp", None);
    }
}

#[test]
fn every_damaged_frame_byte_is_detected() {
    let mut frame = Vec::new();
    encode_frame(&op(0), &mut frame).unwrap();
    for i in 0..frame.len() {
        let mut bad = frame.clone();
        bad[i] ^= 0x41;
        let e = decode_frame(&bad, 0, bad.len() as u64, "t.tlog").unwrap_err();
        assert!(matches!(e, Error::TranslogCorrupted { offset: 0, .. }), "byte {i}: {e}");
    }
    for n in 0..frame.len() {
        assert!(decode_frame(&frame[..n], 0, n as u64, "t.tlog").is_err());
    }
}

#[test]
fn checkpoint_round_trip_and_every_damage_is_detected() {
    let c = Checkpoint {
        offset: 500,
        num_ops: 7,
        generation: 4,
        min_seq_no: 3,
        max_seq_no: 12,
        global_checkpoint: 9,
        min_translog_generation: 2,
        trimmed_above_seq_no: UNASSIGNED_SEQ_NO,
    };
    let bytes = c.to_bytes(&UUID);
    assert_eq!(bytes.len(), checkpoint::FILE_LEN);
    assert_eq!(Checkpoint::from_bytes(&bytes, "translog.ckp", Some(&UUID)).unwrap(), c);
    assert!(Checkpoint::from_bytes(&bytes, "translog.ckp", Some(&[1; 16])).is_err());
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x10;
        let e = Checkpoint::from_bytes(&bad, "translog.ckp", Some(&UUID)).unwrap_err();
        assert_eq!(e.file(), Some("translog.ckp"), "byte {i}: {e}");
    }
    for n in 0..bytes.len() {
        let e = Checkpoint::from_bytes(&bytes[..n], "translog.ckp", None).unwrap_err();
        assert!(e.to_string().contains("translog.ckp"), "{e}");
    }
    // Well-checksummed but impossible fields are rejected too.
    let bad = Checkpoint { num_ops: 0, ..c }.to_bytes(&UUID);
    assert!(Checkpoint::from_bytes(&bad, "translog.ckp", None).unwrap_err().to_string().contains("num_ops"));
}

#[test]
fn add_sync_close_reopen_round_trip() {
    let (_, dir) = ram();
    let t = create(&dir);
    let ops: Vec<Operation> = (0..10).map(op).collect();
    let mut locs = Vec::new();
    for o in &ops {
        locs.push(t.add(o).unwrap());
    }
    assert_eq!(locs[0].offset, HEADER_LEN);
    assert!(locs.windows(2).all(|w| w[0].offset + w[0].size == w[1].offset));
    assert!(t.ensure_synced(locs[9]).unwrap());
    assert!(!t.ensure_synced(locs[3]).unwrap(), "already durable: no second sync");
    assert_eq!(t.snapshot(0).unwrap(), ops);
    assert_eq!(seqs(&t.snapshot(7).unwrap()), vec![7, 8, 9]);
    t.close().unwrap();
    assert!(matches!(t.add(&op(10)), Err(Error::Closed(_))));
    t.close().unwrap();

    let t = reopen(&dir, 1).unwrap();
    assert_eq!(t.current_generation(), 2);
    assert_eq!(t.snapshot(0).unwrap(), ops);
    let s = t.stats();
    assert_eq!((s.operations, s.generation, s.min_generation), (10, 2, 1));
    assert_eq!(s.size_in_bytes, locs[9].offset + locs[9].size + HEADER_LEN);
    assert!(
        t.add(&Operation::NoOp { seq_no: 1, primary_term: 2, reason: String::new() }).is_err(),
        "term above the translog's"
    );
}

#[test]
fn roll_trim_and_missing_generations() {
    let (ram_dir, dir) = ram();
    let t = create(&dir);
    for i in 0..9 {
        t.add(&op(i)).unwrap();
        if i % 3 == 2 {
            assert_eq!(t.roll_generation().unwrap(), (i / 3 + 2) as u64);
        }
    }
    t.add(&op(9)).unwrap();
    assert_eq!(t.current_generation(), 4);
    assert_eq!(seqs(&t.snapshot(0).unwrap()), (0..10).collect::<Vec<_>>());
    assert!(!t.should_roll());
    assert_eq!(t.stats().operations, 10);

    t.trim_unreferenced(3).unwrap();
    let files = dir.list().unwrap();
    assert!(!files.iter().any(|f| f.starts_with("translog-1.") || f.starts_with("translog-2.")), "{files:?}");
    assert_eq!(seqs(&t.snapshot(0).unwrap()), vec![6, 7, 8, 9]);
    assert_eq!((t.stats().operations, t.stats().min_generation), (4, 3));
    t.close().unwrap();

    let e = reopen(&dir, 1).unwrap_err();
    assert!(e.to_string().contains("translog-1.ckp"), "{e}");
    // The commit needs generation 3: delete its data file.
    let saved = dir.open("translog-3.tlog").unwrap();
    dir.delete("translog-3.tlog").unwrap();
    let e = reopen(&dir, 3).unwrap_err();
    assert!(matches!(&e, Error::TranslogCorrupted { file, .. } if file == "translog-3.tlog"), "{e}");
    ram_dir.overwrite("translog-3.tlog", saved.to_vec());
    let t = reopen(&dir, 3).unwrap();
    assert_eq!(seqs(&t.snapshot(0).unwrap()), vec![6, 7, 8, 9]);
    assert_eq!(t.current_generation(), 5);
}

#[test]
fn trim_operations_above_hides_them_and_survives_reopen() {
    let (_, dir) = ram();
    let t = create(&dir);
    for i in 0..10 {
        t.add(&op(i)).unwrap();
    }
    t.trim_operations_above(5).unwrap();
    for i in 6..8 {
        t.add(&op(i)).unwrap();
    }
    let want = vec![0, 1, 2, 3, 4, 5, 6, 7];
    assert_eq!(seqs(&t.snapshot(0).unwrap()), want);
    t.close().unwrap();
    let t = reopen(&dir, 1).unwrap();
    assert_eq!(seqs(&t.snapshot(0).unwrap()), want);
}

#[test]
fn group_commit_from_eight_threads_survives_a_crash() {
    let (fd, dir) = faulty();
    let t = Arc::new(create(&dir));
    let threads: Vec<_> = (0..8i64)
        .map(|th| {
            let t = t.clone();
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                let mut led = 0;
                for i in 0..40 {
                    let seq = th * 1000 + i;
                    let loc = t.add(&op(seq)).unwrap();
                    if t.ensure_synced(loc).unwrap() {
                        led += 1;
                    }
                    acked.push(seq);
                }
                (acked, led)
            })
        })
        .collect();
    let mut acked = BTreeSet::new();
    let mut syncs = 0;
    for h in threads {
        let (a, led) = h.join().unwrap();
        acked.extend(a);
        syncs += led;
    }
    assert_eq!(acked.len(), 320);
    assert!((1..=320).contains(&syncs), "{syncs}");
    // Added but never synced: may be lost.
    let mut added = acked.clone();
    for i in 0..5 {
        t.add(&op(9000 + i)).unwrap();
        added.insert(9000 + i);
    }
    fd.crash(CrashMode::DropUnsynced);
    drop(t);
    let t = reopen(&dir, 1).unwrap();
    let got: BTreeSet<i64> = seqs(&t.snapshot(0).unwrap()).into_iter().collect();
    assert!(acked.is_subset(&got), "lost {:?}", acked.difference(&got).collect::<Vec<_>>());
    assert!(got.is_subset(&added));
    println!("group commit: {syncs} syncs led for 320 acknowledged operations");
}

/// A RAM directory whose fsyncs take `delay`, to make group commit observable.
#[derive(Debug)]
struct SlowSync {
    inner: RamDirectory,
    delay: Duration,
}

#[derive(Debug)]
struct SlowWriter {
    inner: Box<dyn crate::engine::store::FileWrite>,
    delay: Duration,
}

impl crate::engine::store::FileWrite for SlowWriter {
    fn write_all(&mut self, buf: &[u8]) -> Result<()> {
        self.inner.write_all(buf)
    }
    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        std::thread::sleep(self.delay);
        self.inner.sync()
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn name(&self) -> &str {
        self.inner.name()
    }
}

impl Directory for SlowSync {
    fn create(&self, name: &str) -> Result<Box<dyn crate::engine::store::FileWrite>> {
        Ok(Box::new(SlowWriter { inner: self.inner.create(name)?, delay: self.delay }))
    }
    fn open(&self, name: &str) -> Result<crate::engine::store::FileBytes> {
        self.inner.open(name)
    }
    fn delete(&self, name: &str) -> Result<()> {
        self.inner.delete(name)
    }
    fn rename(&self, from: &str, to: &str) -> Result<()> {
        self.inner.rename(from, to)
    }
    fn sync_dir(&self) -> Result<()> {
        self.inner.sync_dir()
    }
    fn list(&self) -> Result<Vec<String>> {
        self.inner.list()
    }
    fn exists(&self, name: &str) -> bool {
        self.inner.exists(name)
    }
    fn file_len(&self, name: &str) -> Result<u64> {
        self.inner.file_len(name)
    }
}

#[test]
fn concurrent_writers_share_fsyncs_and_appends_continue_during_one() {
    let dir: Arc<dyn Directory> = Arc::new(SlowSync { inner: RamDirectory::new(), delay: Duration::from_millis(2) });
    let t = Arc::new(create(&dir));
    let threads: Vec<_> = (0..8i64)
        .map(|th| {
            let t = t.clone();
            std::thread::spawn(move || {
                (0..25).filter(|i| t.ensure_synced(t.add(&op(th * 100 + i)).unwrap()).unwrap()).count()
            })
        })
        .collect();
    let led: usize = threads.into_iter().map(|h| h.join().unwrap()).sum();
    println!("group commit with 2 ms fsyncs: {led} syncs for 200 acknowledged operations");
    assert!(led < 100, "8 concurrent writers should share fsyncs: {led} syncs for 200 ops");
    assert_eq!(t.snapshot(0).unwrap().len(), 200);

    // While one caller is inside a long fsync, another can still append.
    let dir: Arc<dyn Directory> = Arc::new(SlowSync { inner: RamDirectory::new(), delay: Duration::from_millis(400) });
    let t = Arc::new(create(&dir));
    let loc = t.add(&op(0)).unwrap();
    let syncing = {
        let t = t.clone();
        std::thread::spawn(move || t.ensure_synced(loc).unwrap())
    };
    std::thread::sleep(Duration::from_millis(50));
    let started = Instant::now();
    let second = t.add(&op(1)).unwrap();
    assert!(started.elapsed() < Duration::from_millis(200), "add waited for the fsync");
    assert!(syncing.join().unwrap());
    assert!(t.ensure_synced(second).unwrap(), "the second op was not in the first sync");
}

/// The workload of the crash sweep. `acked` gets the ops whose `ensure_synced` returned Ok
/// (with their location), `added` every op handed to `add`, `commit_min` the min generation of
/// the last (simulated, durable) commit.
fn workload(t: &Translog, acked: &mut Vec<(i64, Location)>, added: &mut Vec<i64>, commit_min: &mut u64) -> Result<()> {
    for i in 0..14 {
        added.push(i);
        let loc = t.add(&op(i))?;
        if i % 2 == 0 {
            t.ensure_synced(loc)?;
            acked.push((i, loc));
        }
        match i {
            4 | 9 => {
                t.roll_generation()?;
            }
            7 => {
                t.set_global_checkpoint(5)?;
                // A commit covering generation 1 became durable; then the translog is trimmed.
                *commit_min = 2;
                t.trim_unreferenced(2)?;
            }
            11 => t.trim_operations_above(100)?,
            _ => {}
        }
    }
    t.sync()
}

#[test]
fn crash_at_every_io_keeps_acknowledged_ops() {
    let count = {
        let (fd, dir) = faulty();
        let t = create(&dir);
        let start = fd.io_count();
        workload(&t, &mut Vec::new(), &mut Vec::new(), &mut 1).unwrap();
        fd.io_count() - start
    };
    assert!(count > 50, "{count}");
    println!("crash sweep over {count} I/O calls");
    for n in 1..=count + 1 {
        for mode in [CrashMode::DropUnsynced, CrashMode::TornTail { seed: n }] {
            let (fd, dir) = faulty();
            let t = create(&dir);
            fd.fail_after(n);
            let (mut acked, mut added, mut commit_min) = (Vec::new(), Vec::new(), 1);
            let res = workload(&t, &mut acked, &mut added, &mut commit_min);
            assert_eq!(res.is_err(), n <= count, "n={n}");
            fd.crash(mode);
            drop(t);
            let t = reopen(&dir, commit_min).unwrap_or_else(|e| panic!("n={n} {mode:?}: {e}"));
            let got = seqs(&t.snapshot(0).unwrap());
            assert!(got.windows(2).all(|w| w[0] < w[1]), "n={n} {mode:?}: log order {got:?}");
            let got: BTreeSet<i64> = got.into_iter().collect();
            for (seq, loc) in &acked {
                if loc.generation >= commit_min {
                    assert!(got.contains(seq), "n={n} {mode:?}: acked op {seq} lost; recovered {got:?}");
                }
            }
            let added: BTreeSet<i64> = added.into_iter().collect();
            assert!(got.is_subset(&added), "n={n} {mode:?}: {got:?} vs {added:?}");
            // The recovered translog takes writes and reopens again.
            let loc = t.add(&op(50)).unwrap();
            t.ensure_synced(loc).unwrap();
            drop(t);
            fd.crash(CrashMode::DropUnsynced);
            let t = reopen(&dir, commit_min).unwrap();
            assert!(seqs(&t.snapshot(50).unwrap()) == vec![50], "n={n} {mode:?}");
        }
    }
}

#[test]
fn crash_at_every_io_during_open_is_recoverable() {
    let (fd, dir) = faulty();
    let t = create(&dir);
    for i in 0..6 {
        let loc = t.add(&op(i)).unwrap();
        if i == 2 {
            t.roll_generation().unwrap();
        }
        if i < 5 {
            t.ensure_synced(loc).unwrap();
        }
    }
    fd.crash(CrashMode::TornTail { seed: 7 });
    drop(t);
    let before = fd.io_count();
    let first = seqs(&reopen(&dir, 1).unwrap().snapshot(0).unwrap());
    let open_ios = fd.io_count() - before;
    assert!(first.starts_with(&[0, 1, 2, 3, 4]), "{first:?}");
    for n in 1..=open_ios {
        fd.crash(CrashMode::DropUnsynced);
        fd.fail_after(n);
        let _ = reopen(&dir, 1);
        fd.crash(CrashMode::TornTail { seed: n });
        let t = reopen(&dir, 1).unwrap_or_else(|e| panic!("n={n}: {e}"));
        assert_eq!(seqs(&t.snapshot(0).unwrap()), first, "n={n}");
    }
}

/// A closed translog with 5 synced ops in generation 1 (`translog.ckp` still at generation 1).
fn five_ops() -> (RamDirectory, Arc<dyn Directory>, Vec<u8>, u64) {
    let (rd, dir) = ram();
    let t = create(&dir);
    for i in 0..5 {
        t.add(&op(i)).unwrap();
    }
    t.close().unwrap();
    let end = t.last_synced_checkpoint().offset;
    let bytes = dir.open("translog-1.tlog").unwrap().to_vec();
    assert_eq!(bytes.len() as u64, end);
    (rd, dir, bytes, end)
}

#[test]
fn damage_inside_the_checkpointed_range_names_file_and_offset() {
    let (rd, dir, bytes, _) = five_ops();
    let ckp = dir.open(CHECKPOINT_FILE).unwrap().to_vec();
    for i in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[i] ^= 0x08;
        rd.overwrite("translog-1.tlog", bad);
        rd.overwrite(CHECKPOINT_FILE, ckp.clone());
        match reopen(&dir, 1) {
            Err(Error::TranslogCorrupted { file, offset, .. }) => {
                assert_eq!(file, "translog-1.tlog");
                if i as u64 >= HEADER_LEN {
                    assert!(offset <= i as u64 && offset >= HEADER_LEN, "byte {i} reported at {offset}");
                }
            }
            other => panic!("byte {i}: {other:?}"),
        }
    }
    // Truncation inside the checkpointed range.
    rd.overwrite("translog-1.tlog", bytes[..bytes.len() - 3].to_vec());
    let e = reopen(&dir, 1).unwrap_err();
    assert!(e.to_string().contains("translog-1.tlog") && e.to_string().contains("shorter"), "{e}");
}

#[test]
fn bytes_beyond_the_checkpoint_are_ignored() {
    let (rd, dir, bytes, _) = five_ops();
    // Garbage, and a well-formed frame that was never acknowledged: neither is replayed.
    let mut tail = bytes.clone();
    encode_frame(&op(77), &mut tail).unwrap();
    tail.extend_from_slice(b"\x13\x00\x00\x00garbage");
    rd.overwrite("translog-1.tlog", tail);
    let t =
        Translog::open(dir.clone(), UUID, 1, 1, TranslogConfig::default(), RecoveryPolicy::TolerateTornTail).unwrap();
    assert_eq!(seqs(&t.snapshot(0).unwrap()), vec![0, 1, 2, 3, 4]);
    t.close().unwrap();
    // Generation 1 is frozen at its checkpoint: still ignored on the next open.
    let t = reopen(&dir, 1).unwrap();
    assert_eq!(seqs(&t.snapshot(0).unwrap()), vec![0, 1, 2, 3, 4]);
    let summary = check_file("translog-1.tlog", &dir.open("translog-1.tlog").unwrap()).unwrap();
    assert!(summary.contains("6 ops") && summary.contains("not a valid frame"), "{summary}");
}

#[test]
fn damaged_or_missing_checkpoint_names_the_file() {
    let (rd, dir, _, _) = five_ops();
    let ckp = dir.open(CHECKPOINT_FILE).unwrap().to_vec();
    for i in 0..ckp.len() {
        let mut bad = ckp.clone();
        bad[i] ^= 0x80;
        rd.overwrite(CHECKPOINT_FILE, bad);
        let e = reopen(&dir, 1).unwrap_err();
        assert_eq!(e.file(), Some(CHECKPOINT_FILE), "byte {i}: {e}");
    }
    for n in [0, 1, 20, ckp.len() - 1] {
        rd.overwrite(CHECKPOINT_FILE, ckp[..n].to_vec());
        let e = reopen(&dir, 1).unwrap_err();
        assert_eq!(e.file(), Some(CHECKPOINT_FILE), "len {n}: {e}");
    }
    dir.delete(CHECKPOINT_FILE).unwrap();
    assert_eq!(reopen(&dir, 1).unwrap_err().file(), Some(CHECKPOINT_FILE));
    rd.overwrite(CHECKPOINT_FILE, ckp);
    let e = Translog::open(dir.clone(), [9; 16], 1, 1, TranslogConfig::default(), RecoveryPolicy::Strict).unwrap_err();
    assert!(e.to_string().contains("id mismatch"), "{e}");
    assert!(reopen(&dir, 2).is_err(), "the commit cannot need a generation the checkpoint has not reached");
    reopen(&dir, 1).unwrap();
}

#[test]
fn generation_of_another_translog_is_rejected() {
    let (rd, dir, _, _) = five_ops();
    let (_, other) = ram();
    let t = Translog::create(other.clone(), [3; 16], 1, -1, TranslogConfig::default()).unwrap();
    t.add(&op(0)).unwrap();
    t.close().unwrap();
    let mut foreign = other.open("translog-1.tlog").unwrap().to_vec();
    foreign.truncate(HEADER_LEN as usize);
    let mut own = dir.open("translog-1.tlog").unwrap().to_vec();
    own[..HEADER_LEN as usize].copy_from_slice(&foreign);
    rd.overwrite("translog-1.tlog", own);
    let e = reopen(&dir, 1).unwrap_err();
    assert!(e.to_string().contains("belongs to a different translog"), "{e}");
}

#[test]
fn io_failure_poisons_the_translog() {
    let (fd, dir) = faulty();
    let t = create(&dir);
    let first = t.add(&op(0)).unwrap();
    t.ensure_synced(first).unwrap();
    let loc = t.add(&op(1)).unwrap();
    fd.fail_after(1);
    assert!(matches!(t.ensure_synced(loc), Err(Error::Injected { .. })));
    fd.crash(CrashMode::DropUnsynced);
    // The disk works again, but the translog does not trust itself any more.
    assert!(matches!(t.ensure_synced(loc), Err(Error::Closed(_))));
    assert!(matches!(t.add(&op(2)), Err(Error::Closed(_))));
    assert!(matches!(t.sync(), Err(Error::Closed(_))));
    assert!(!t.ensure_synced(first).unwrap(), "durable before the failure");
}

#[test]
fn async_durability_loses_only_unsynced_ops() {
    let (fd, dir) = faulty();
    let config = TranslogConfig {
        durability: Durability::Async,
        sync_interval: Duration::from_millis(10),
        ..TranslogConfig::default()
    };
    let t = Arc::new(Translog::create(dir.clone(), UUID, 1, -1, config.clone()).unwrap());
    let syncer = t.start_async_syncer();
    for i in 0..20 {
        t.add(&op(i)).unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while t.last_synced_checkpoint().num_ops < 20 {
        assert!(Instant::now() < deadline, "the syncer did not sync");
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(syncer);
    for i in 20..25 {
        t.add(&op(i)).unwrap();
    }
    fd.crash(CrashMode::DropUnsynced);
    drop(t);
    let t = Arc::new(Translog::open(dir.clone(), UUID, 1, 1, config, RecoveryPolicy::Strict).unwrap());
    assert_eq!(seqs(&t.snapshot(0).unwrap()), (0..20).collect::<Vec<_>>());
    // The syncer stops by itself when the translog is closed.
    let syncer = t.start_async_syncer();
    t.close().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !syncer.is_finished() {
        assert!(Instant::now() < deadline, "the syncer did not stop");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_large_buffer_is_written_before_sync() {
    let (_, dir) = ram();
    let t = create(&dir);
    let big = Operation::Index {
        id: "big".into(),
        routing: None,
        source: vec![7; 300 * 1024],
        seq_no: 0,
        primary_term: 1,
        version: 1,
    };
    t.add(&big).unwrap();
    assert!(dir.file_len("translog-1.tlog").unwrap() > 300 * 1024, "written out, not yet synced");
    assert_eq!(t.last_synced_checkpoint().num_ops, 0);
    assert_eq!(t.snapshot(0).unwrap(), vec![big]);
}

// ---- golden files ----

fn golden_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/translog")
}

fn golden_ops() -> Vec<Operation> {
    vec![
        Operation::Index {
            id: "1".into(),
            routing: None,
            source: br#"{"title":"hello"}"#.to_vec(),
            seq_no: 0,
            primary_term: 3,
            version: 1,
        },
        Operation::Index {
            id: "2".into(),
            routing: Some("r1".into()),
            source: br#"{"n":2}"#.to_vec(),
            seq_no: 1,
            primary_term: 3,
            version: 1,
        },
        Operation::Delete { id: "1".into(), seq_no: 2, primary_term: 3, version: 2 },
        Operation::NoOp { seq_no: 3, primary_term: 3, reason: "test".into() },
    ]
}

const GOLDEN_UUID: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// The golden translog: generation 1 with four operations, synced, global checkpoint 1.
fn golden_files() -> Vec<(&'static str, Vec<u8>)> {
    let (_, dir) = ram();
    let t = Translog::create(dir.clone(), GOLDEN_UUID, 3, -1, TranslogConfig::default()).unwrap();
    for o in golden_ops() {
        t.add(&o).unwrap();
    }
    t.set_global_checkpoint(1).unwrap();
    t.close().unwrap();
    ["translog-1.tlog", "translog.ckp"].into_iter().map(|n| (n, dir.open(n).unwrap().to_vec())).collect()
}

/// Regenerate with `FATHOM_BLESS_GOLDEN=1 cargo test --lib engine::translog::tests::golden`
/// only when adding a new format version (never overwrite an old version's files).
#[test]
fn golden_files_still_decode() {
    let fresh = golden_files();
    if std::env::var_os("FATHOM_BLESS_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        for (name, bytes) in &fresh {
            std::fs::write(golden_dir().join(name), bytes).unwrap();
        }
    }
    let (rd, dir) = ram();
    for (name, bytes) in &fresh {
        let stored = std::fs::read(golden_dir().join(name)).unwrap();
        assert_eq!(&stored, bytes, "{name}: the encoder no longer writes version-1 bytes");
        rd.overwrite(name, stored);
    }
    let tlog = dir.open("translog-1.tlog").unwrap();
    let ckp = dir.open(CHECKPOINT_FILE).unwrap();
    assert_eq!(
        check_file("translog-1.tlog", &tlog).unwrap(),
        "translog generation [translog-1.tlog]: uuid 000102030405060708090a0b0c0d0e0f, primary term 3, 4 ops in 140 bytes, seq_no [0, 3]"
    );
    assert_eq!(
        check_file("translog.ckp", &ckp).unwrap(),
        "translog checkpoint [translog.ckp]: generation 1, offset 140, 4 ops, seq_no [0, 3], global checkpoint 1, min translog generation 1, trimmed above seq_no -2"
    );
    let t = Translog::open(dir.clone(), GOLDEN_UUID, 1, 3, TranslogConfig::default(), RecoveryPolicy::Strict).unwrap();
    assert_eq!(t.snapshot(0).unwrap(), golden_ops());
    assert_eq!(t.last_synced_checkpoint().global_checkpoint, 1);
    // Damaged copies of the golden files never panic and never decode to something else.
    for (name, bytes) in &fresh {
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] = bad[i].wrapping_add(1 + (i % 200) as u8);
            if let Ok(s) = check_file(name, &bad) {
                assert!(name.ends_with(".tlog") && s.contains("not a valid frame"), "{name} byte {i}: {s}");
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Action {
    Add(u8),
    Sync,
    Roll,
    TrimUnreferenced,
    CrashAndReopen,
    Snapshot(u8),
}

fn arb_action() -> impl Strategy<Value = Action> {
    prop_oneof![
        6 => (1u8..4).prop_map(Action::Add),
        2 => Just(Action::Sync),
        1 => Just(Action::Roll),
        1 => Just(Action::TrimUnreferenced),
        1 => Just(Action::CrashAndReopen),
        1 => any::<u8>().prop_map(Action::Snapshot),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random action sequences against a model: a list of (seq_no, generation) plus how much of
    /// it is durable. A crash loses exactly the undurable suffix; trimming drops old generations.
    #[test]
    fn matches_a_model(actions in proptest::collection::vec(arb_action(), 1..40)) {
        let (fd, dir) = faulty();
        let mut t = create(&dir);
        let mut model: Vec<(i64, u64)> = Vec::new();
        let (mut durable, mut gen, mut min_gen, mut next_seq) = (0usize, 1u64, 1u64, 0i64);
        for a in actions {
            match a {
                Action::Add(n) => {
                    for _ in 0..n {
                        let loc = t.add(&op(next_seq)).unwrap();
                        prop_assert_eq!(loc.generation, gen);
                        model.push((next_seq, gen));
                        next_seq += 1;
                    }
                }
                Action::Sync => {
                    t.sync().unwrap();
                    durable = model.len();
                }
                Action::Roll => {
                    gen = t.roll_generation().unwrap();
                    durable = model.len();
                }
                Action::TrimUnreferenced => {
                    t.trim_unreferenced(gen).unwrap();
                    if gen > min_gen {
                        durable = model.len(); // recording the new minimum syncs
                    }
                    min_gen = gen;
                    let before = model.len();
                    model.retain(|&(_, g)| g >= gen);
                    durable -= before - model.len();
                }
                Action::CrashAndReopen => {
                    fd.crash(CrashMode::DropUnsynced);
                    model.truncate(durable);
                    t = reopen(&dir, min_gen).unwrap();
                    gen = t.current_generation();
                }
                Action::Snapshot(from) => {
                    let from = i64::from(from % 16);
                    let want: Vec<i64> = model.iter().map(|&(s, _)| s).filter(|&s| s >= from).collect();
                    prop_assert_eq!(seqs(&t.snapshot(from).unwrap()), want);
                    durable = model.len();
                }
            }
            let s = t.stats();
            prop_assert_eq!(s.operations, model.len() as u64);
            prop_assert_eq!((s.generation, s.min_generation), (gen, min_gen));
        }
    }
}

#[test]
fn translog_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Translog>();
}
