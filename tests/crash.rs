//! Power-loss simulation of a whole shard (the T2 design of `shared/reference/reliability.md`).
//!
//! For each seed: run a seeded workload of index / create / delete / auto-id appends, refreshes,
//! flushes and merges on a `FaultyDirectory` with `request` durability, recording every write that
//! was acknowledged (returned Ok and its translog location was synced). The N-th I/O call (N seeded,
//! within the workload's I/O count) fails, which stops the workload like a dead process; then the
//! directory loses everything not fsynced (dropping or tearing un-synced tails) and the shard is
//! reopened. The oracle:
//!
//! 1. every acknowledged write is present with the same source; acknowledged deletes are absent;
//! 2. the one write in flight when the fault fired is either fully present or absent;
//! 3. nothing else is present (no phantoms);
//! 4. after recovery the local checkpoint equals max_seq_no, and `_seq_no`s are unique.
//!
//! `FATHOM_CRASH_SEEDS` sets the number of seeds (CI runs 200).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use fathom::engine::index::writer::read_document;
use fathom::engine::store::{CrashMode, Directory, FaultyDirectory};
use fathom::engine::Error;
use fathom::shard::engine::{default_config, no_fields_parser};
use fathom::shard::versioning::Constraints;
use fathom::shard::{IndexOp, ShardEngine};

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
        self.next() % n
    }
}

#[derive(Debug, Clone)]
enum Write {
    Index { id: String, source: Vec<u8>, create: bool, auto: bool },
    Delete { id: String },
}

impl Write {
    fn id(&self) -> &str {
        match self {
            Write::Index { id, .. } | Write::Delete { id } => id,
        }
    }
    /// The document state after this write (None = absent).
    fn effect(&self) -> Option<Vec<u8>> {
        match self {
            Write::Index { source, .. } => Some(source.clone()),
            Write::Delete { .. } => None,
        }
    }
}

fn open(root: &FaultyDirectory) -> Result<ShardEngine, Error> {
    let index: Arc<dyn Directory> = Arc::new(root.sub("index"));
    let translog: Arc<dyn Directory> = Arc::new(root.sub("translog"));
    let mut config = default_config(no_fields_parser());
    // Merges run inline (maybe_merge / force_merge) so each seed replays exactly.
    config.background_merges = false;
    // Small buffers and eager merges so that refreshes, merges and commits all happen often.
    config.writer.ram_buffer_bytes = 4096;
    config.writer.merge_policy.segments_per_tier = 2.0;
    config.writer.merge_policy.max_merge_at_once = 2;
    ShardEngine::open(index, translog, config)
}

struct Outcome {
    acked: BTreeMap<String, Option<Vec<u8>>>,
    in_flight: Option<Write>,
    ops: usize,
}

/// Runs the workload of `seed` until it ends or an I/O call fails.
fn workload(engine: &ShardEngine, seed: u64) -> Outcome {
    let mut rng = Rng(seed);
    let mut acked: BTreeMap<String, Option<Vec<u8>>> = BTreeMap::new();
    let n_ops = 40 + rng.below(60) as usize;
    for k in 0..n_ops {
        let roll = rng.below(100);
        let write = match roll {
            0..=44 => {
                let id = format!("d{}", rng.below(12));
                Write::Index {
                    id,
                    source: format!("{{\"k\":{k},\"seed\":{seed}}}").into_bytes(),
                    create: false,
                    auto: false,
                }
            }
            45..=54 => {
                let id = format!("d{}", rng.below(12));
                Write::Index { id, source: format!("{{\"create\":{k}}}").into_bytes(), create: true, auto: false }
            }
            55..=64 => Write::Index {
                id: format!("auto{k}"),
                source: format!("{{\"auto\":{k}}}").into_bytes(),
                create: false,
                auto: true,
            },
            65..=79 => Write::Delete { id: format!("d{}", rng.below(12)) },
            80..=87 => {
                if engine.refresh().is_err() {
                    return Outcome { acked, in_flight: None, ops: k };
                }
                continue;
            }
            88..=94 => {
                if engine.flush().is_err() {
                    return Outcome { acked, in_flight: None, ops: k };
                }
                continue;
            }
            _ => {
                let r = if roll % 2 == 0 { engine.force_merge(1) } else { engine.maybe_merge().map(|_| ()) };
                if r.is_err() {
                    return Outcome { acked, in_flight: None, ops: k };
                }
                continue;
            }
        };
        let result = match &write {
            Write::Index { id, source, create, auto } => engine.index(IndexOp {
                id: id.clone(),
                routing: None,
                source: source.clone(),
                fields: Vec::new(),
                nested: Vec::new(),
                constraints: Constraints { create: *create, ..Default::default() },
                auto_generated_id: *auto,
            }),
            Write::Delete { id } => engine.delete(id, Constraints::default()),
        };
        match result {
            Ok(r) => match engine.ensure_synced(r.location, r.seq_no) {
                Ok(()) => {
                    acked.insert(write.id().to_string(), write.effect());
                }
                Err(_) => return Outcome { acked, in_flight: Some(write), ops: k },
            },
            Err(Error::VersionConflict { .. }) => {}
            Err(_) => return Outcome { acked, in_flight: Some(write), ops: k },
        }
    }
    Outcome { acked, in_flight: None, ops: n_ops }
}

/// Every live document of the shard: id → source, with `_seq_no` uniqueness checked.
fn contents(engine: &ShardEngine) -> BTreeMap<String, Vec<u8>> {
    engine.refresh().expect("refresh after recovery");
    let searcher = engine.reader().expect("searcher");
    let mut docs = BTreeMap::new();
    let mut seq_nos = BTreeSet::new();
    for leaf in searcher.leaves() {
        for d in 0..leaf.reader.max_doc() {
            if !leaf.live.is_live(d) {
                continue;
            }
            let doc = read_document(&leaf.reader, d).expect("stored document");
            assert!(seq_nos.insert(doc.seq_no), "duplicate _seq_no {}", doc.seq_no);
            assert!(docs.insert(doc.id.clone(), doc.source).is_none(), "two live copies of [{}]", doc.id);
        }
    }
    docs
}

#[derive(Default, Debug)]
struct Figures {
    seeds: u64,
    acked_writes: usize,
    in_flight_present: usize,
    in_flight_absent: usize,
    faults_in_maintenance: usize,
    replayed_ops: u64,
}

fn check(seed: u64, mode: CrashMode, fig: &mut Figures) {
    // A clean run to learn how many I/O calls the workload makes.
    let probe = FaultyDirectory::new();
    let engine = open(&probe).expect("open empty shard");
    let start = probe.io_count();
    workload(&engine, seed);
    let total = probe.io_count() - start;
    drop(engine);

    let root = FaultyDirectory::new();
    let engine = open(&root).expect("open empty shard");
    let mut rng = Rng(seed ^ 0xC0FFEE);
    let n = 1 + rng.below(total.max(1));
    root.fail_after(n);
    let outcome = workload(&engine, seed);
    drop(engine);
    root.crash(mode);

    let engine = open(&root).unwrap_or_else(|e| panic!("seed {seed} {mode:?}: reopen after crash at I/O {n}: {e}"));
    assert_eq!(engine.local_checkpoint(), engine.max_seq_no(), "seed {seed}: checkpoint gap after recovery");
    let got = contents(&engine);
    fig.seeds += 1;
    fig.acked_writes += outcome.acked.len();
    fig.replayed_ops += engine.recovery_state().translog.recovered;
    if outcome.in_flight.is_none() && outcome.ops < 100 {
        fig.faults_in_maintenance += 1;
    }

    let mut expected: BTreeMap<String, Vec<u8>> =
        outcome.acked.iter().filter_map(|(id, s)| s.clone().map(|s| (id.clone(), s))).collect();
    if let Some(w) = &outcome.in_flight {
        let id = w.id().to_string();
        let with = w.effect();
        let without = expected.get(&id).cloned();
        let actual = got.get(&id).cloned();
        assert!(
            actual == with || actual == without,
            "seed {seed} {mode:?} (crash at I/O {n} after {} ops): in-flight write on [{id}] is partial: {actual:?}",
            outcome.ops
        );
        if actual == with {
            fig.in_flight_present += 1;
        } else {
            fig.in_flight_absent += 1;
        }
        match actual {
            Some(s) => expected.insert(id, s),
            None => expected.remove(&id),
        };
    }
    for (id, src) in &expected {
        assert_eq!(
            got.get(id),
            Some(src),
            "seed {seed} {mode:?} (crash at I/O {n} after {} ops): acknowledged document [{id}] lost or changed",
            outcome.ops
        );
    }
    for id in got.keys() {
        assert!(expected.contains_key(id), "seed {seed} {mode:?}: phantom document [{id}]");
    }
    // Realtime get agrees with the segments.
    for (id, src) in &expected {
        assert_eq!(engine.get(id).expect("get").map(|d| d.source), Some(src.clone()));
    }
}

#[test]
fn power_loss_at_any_io_loses_no_acknowledged_write() {
    let seeds: u64 = std::env::var("FATHOM_CRASH_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let mut fig = Figures::default();
    for seed in 0..seeds {
        let mode = if seed % 2 == 0 { CrashMode::DropUnsynced } else { CrashMode::TornTail { seed } };
        check(seed, mode, &mut fig);
    }
    eprintln!("crash figures: {fig:?} (lost acknowledged writes: 0, phantoms: 0)");
    assert_eq!(fig.seeds, seeds);
    assert!(fig.in_flight_present + fig.in_flight_absent > 0 || seeds < 10, "faults never hit a write in flight");
}

#[test]
fn clean_restart_keeps_everything() {
    let root = FaultyDirectory::new();
    let engine = open(&root).expect("open");
    let outcome = workload(&engine, 12345);
    assert!(outcome.in_flight.is_none());
    engine.close().expect("close");
    drop(engine);
    root.crash(CrashMode::DropUnsynced);
    let engine = open(&root).expect("reopen");
    let got = contents(&engine);
    let expected: BTreeMap<String, Vec<u8>> =
        outcome.acked.into_iter().filter_map(|(id, s)| s.map(|s| (id, s))).collect();
    assert_eq!(got, expected);
    let rs = engine.recovery_state();
    assert_eq!(rs.stage().name(), "DONE");
    assert_eq!(rs.source.name(), "EXISTING_STORE");
}

fn sync(engine: &ShardEngine, r: fathom::shard::WriteResult) {
    engine.ensure_synced(r.location, r.seq_no).expect("sync");
}

/// A durable store whose committed segment has deletes (a `.liv` generation) and whose translog
/// holds acknowledged deletes and updates of committed documents.
fn prepared() -> (FaultyDirectory, BTreeMap<String, Vec<u8>>) {
    let root = FaultyDirectory::new();
    let engine = open(&root).expect("open");
    let mut expected = BTreeMap::new();
    for i in 0..20 {
        let src = format!("{{\"i\":{i}}}").into_bytes();
        sync(
            &engine,
            engine.index(IndexOp { id: format!("d{i}"), source: src.clone(), ..Default::default() }).unwrap(),
        );
        expected.insert(format!("d{i}"), src);
    }
    engine.flush().unwrap();
    sync(&engine, engine.delete("d3", Constraints::default()).unwrap());
    expected.remove("d3");
    engine.flush().unwrap();
    sync(&engine, engine.delete("d5", Constraints::default()).unwrap());
    expected.remove("d5");
    let src = b"{\"updated\":true}".to_vec();
    sync(&engine, engine.index(IndexOp { id: "d7".into(), source: src.clone(), ..Default::default() }).unwrap());
    expected.insert("d7".into(), src);
    drop(engine);
    root.crash(CrashMode::DropUnsynced);
    (root, expected)
}

/// Crashes at every I/O call of `open` itself — creating an empty store, and recovering a store
/// (translog replay that deletes committed documents, then the recovery flush that writes a new
/// `.liv` generation) — then checks that the next open succeeds with exactly the acknowledged data.
#[test]
fn power_loss_during_open_and_recovery() {
    let modes = |n: u64| [CrashMode::DropUnsynced, CrashMode::TornTail { seed: n }];
    // An empty store being initialised.
    let probe = FaultyDirectory::new();
    drop(open(&probe).expect("open"));
    for n in 1..=probe.io_count() + 1 {
        for mode in modes(n) {
            let root = FaultyDirectory::new();
            root.fail_after(n);
            drop(open(&root));
            root.crash(mode);
            let engine = open(&root).unwrap_or_else(|e| panic!("init crash at I/O {n} {mode:?}: reopen failed: {e}"));
            assert!(contents(&engine).is_empty());
        }
    }
    // A store recovering from its translog.
    let (probe, _) = prepared();
    let before = probe.io_count();
    drop(open(&probe).expect("recover"));
    let steps = probe.io_count() - before;
    for n in 1..=steps + 1 {
        for mode in modes(n) {
            let (root, expected) = prepared();
            root.fail_after(n);
            drop(open(&root));
            root.crash(mode);
            let engine = open(&root)
                .unwrap_or_else(|e| panic!("recovery crash at I/O {n}/{steps} {mode:?}: reopen failed: {e}"));
            assert_eq!(contents(&engine), expected, "recovery crash at I/O {n} {mode:?}");
        }
    }
}
