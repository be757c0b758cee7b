//! A deterministic simulation of replication under random delays, reorderings, lost messages,
//! primary crashes and new replicas, on real shard engines (in-memory stores): the protocol of
//! `cluster/replication.rs` and `cluster/peer_recovery/` reduced to its decisions, with the
//! network, the cluster manager and time replaced by a seeded schedule.
//!
//! Each step does one of: a client write (index or delete, of a known id or an append with a
//! new auto-generated id, which replicas apply without a lookup, and which later writes may
//! update or delete) on the primary, made durable and sent to every copy of the group; the delivery of one pending message to its replica (in random
//! order); a message lost (the primary fails that replica through the "cluster manager", which
//! removes it from the in-sync set; the write then waits for nobody there); a primary crash (an
//! in-sync replica is promoted with term + 1, the other replicas recover again from it, writes
//! not yet acknowledged are abandoned); a new replica recovering from the primary (tracked first,
//! then the translog snapshot, then in sync).
//!
//! Checked for every seed (`FATHOM_SIM_SEEDS`, 20 by default, 200 in CI):
//! - every acknowledged write is on the primary and on every in-sync copy, with the sequence
//!   number it was acknowledged with (or a later write to the same id is);
//! - the copies converge: after every message is delivered, all copies hold the same
//!   documents with the same sequence numbers;
//! - no copy's global checkpoint ever goes back, and it never passes a checkpoint every in-sync
//!   copy has persisted;
//! - at most one primary per term.

#![cfg(test)]

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::engine::{default_config, no_fields_parser, IndexOp, ShardEngine};
use super::versioning::Constraints;
use crate::engine::store::{Directory, RamDirectory};
use crate::engine::translog::Operation;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

struct Copy {
    name: usize,
    engine: ShardEngine,
    /// In the in-sync set (otherwise tracked by a recovery).
    in_sync: bool,
    /// The highest global checkpoint seen on this copy.
    gcp_seen: i64,
    /// Its recovery's translog phase is done: it joins the in-sync set once its checkpoint
    /// reaches the primary's global checkpoint (OpenSearch's `markAllocationIdAsInSync`).
    ready: bool,
}

fn open(term: u64) -> ShardEngine {
    let mut config = default_config(no_fields_parser());
    config.background_merges = false;
    config.primary_term = term;
    let index: Arc<dyn Directory> = Arc::new(RamDirectory::new());
    let translog: Arc<dyn Directory> = Arc::new(RamDirectory::new());
    ShardEngine::open(index, translog, config).expect("engine opens")
}

/// One replica request in flight.
struct Message {
    to: usize,
    ops: Vec<Operation>,
    /// Which of `ops` the primary added as appends (auto-generated ids).
    appended: Vec<bool>,
    term: u64,
    gcp: i64,
    /// The write it replicates, or `None` for a recovery's translog phase (its delivery puts
    /// the copy in sync).
    write: Option<usize>,
}

/// A write waiting for its replicas.
struct Pending {
    id: String,
    seq_no: i64,
    waiting: Vec<usize>,
}

struct Sim {
    rng: Rng,
    copies: Vec<Copy>,
    primary: usize,
    term: u64,
    next_name: usize,
    messages: Vec<Message>,
    pending: Vec<Option<Pending>>,
    /// id → (seq_no) of the last acknowledged write.
    acked: BTreeMap<String, i64>,
    /// The auto-generated ids appended so far.
    auto_ids: Vec<String>,
    terms: HashMap<u64, usize>,
}

impl Sim {
    fn new(seed: u64) -> Sim {
        let mut copies = Vec::new();
        for name in 0..3 {
            copies.push(Copy { name, engine: open(1), in_sync: true, gcp_seen: -2, ready: true });
        }
        // The primary's global checkpoint comes from the group (`cluster/replication.rs`).
        copies[0].engine.set_replicated(true);
        let mut terms = HashMap::new();
        terms.insert(1, 0);
        Sim {
            rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            copies,
            primary: 0,
            term: 1,
            next_name: 3,
            messages: Vec::new(),
            pending: Vec::new(),
            acked: BTreeMap::new(),
            auto_ids: Vec::new(),
            terms,
        }
    }

    fn copy_index(&self, name: usize) -> Option<usize> {
        self.copies.iter().position(|c| c.name == name)
    }

    fn primary(&self) -> &Copy {
        &self.copies[self.primary]
    }

    fn write(&mut self) {
        let mut id = format!("d{}", self.rng.below(12));
        if !self.auto_ids.is_empty() && self.rng.below(3) == 0 {
            // A follow-up write to an appended document (it may overtake the append).
            id = self.auto_ids[self.rng.below(self.auto_ids.len())].clone();
        }
        let append = self.rng.below(4) == 0;
        if append {
            id = format!("a{}", self.auto_ids.len());
            self.auto_ids.push(id.clone());
        }
        let p = &self.copies[self.primary].engine;
        let (w, op) = if append {
            let source = format!("{{\"v\":{}}}", self.rng.next() % 1000).into_bytes();
            let op = IndexOp { id: id.clone(), source, auto_generated_id: true, ..Default::default() };
            p.index_logged(op).expect("append")
        } else if self.rng.below(5) == 0 {
            let w = p.delete(&id, Constraints::default()).expect("delete");
            let op = Operation::Delete {
                id: id.clone(),
                seq_no: w.seq_no,
                primary_term: w.primary_term,
                version: w.version,
            };
            (w, op)
        } else {
            let source = format!("{{\"v\":{}}}", self.rng.next() % 1000).into_bytes();
            p.index_logged(IndexOp { id: id.clone(), source, ..Default::default() }).expect("index")
        };
        p.ensure_synced(w.location, w.seq_no).expect("sync");
        let n = self.pending.len();
        let targets: Vec<usize> =
            self.copies.iter().filter(|c| c.name != self.primary().name).map(|c| c.name).collect();
        for &to in &targets {
            let gcp = self.primary().engine.global_checkpoint();
            let appended = vec![append];
            self.messages.push(Message { to, ops: vec![op.clone()], appended, term: self.term, gcp, write: Some(n) });
        }
        self.pending.push(Some(Pending { id, seq_no: w.seq_no, waiting: targets }));
        self.settle(n);
    }

    /// Acknowledges write `n` once nobody is waited for.
    fn settle(&mut self, n: usize) {
        if self.pending[n].as_ref().is_some_and(|p| p.waiting.is_empty()) {
            let p = self.pending[n].take().expect("pending");
            let e = self.acked.entry(p.id).or_insert(p.seq_no);
            *e = (*e).max(p.seq_no);
            self.update_gcp();
        }
    }

    fn update_gcp(&mut self) {
        let p = self.primary;
        let mut gcp = self.copies[p].engine.persisted_checkpoint();
        for c in self.copies.iter().filter(|c| c.in_sync) {
            gcp = gcp.min(c.engine.persisted_checkpoint());
        }
        self.copies[p].engine.advance_global_checkpoint(gcp).expect("gcp");
    }

    fn deliver(&mut self) {
        if self.messages.is_empty() {
            return;
        }
        let m = self.messages.swap_remove(self.rng.below(self.messages.len()));
        let Some(i) = self.copy_index(m.to) else { return };
        let c = &self.copies[i];
        if m.term < c.engine.term() {
            // A stale primary's request: refused. The sender is gone in this model.
            return;
        }
        c.engine.raise_primary_term(m.term).expect("term");
        c.engine.apply_replica_ops(&m.ops, &|i| m.appended[i]).expect("apply");
        c.engine.sync_replica().expect("sync");
        c.engine.advance_global_checkpoint(m.gcp).expect("gcp");
        if m.term != self.term {
            return;
        }
        match m.write {
            Some(w) => {
                if let Some(p) = self.pending.get_mut(w).and_then(Option::as_mut) {
                    p.waiting.retain(|x| *x != m.to);
                }
                self.settle(w);
            }
            None => self.copies[i].ready = true,
        }
        let gcp = self.primary().engine.global_checkpoint();
        let c = &mut self.copies[i];
        if c.ready && !c.in_sync && c.engine.persisted_checkpoint() >= gcp {
            c.in_sync = true;
            self.update_gcp();
        }
    }

    /// A message is lost: the primary fails that replica (the cluster manager accepts: same term).
    fn lose(&mut self) {
        if self.messages.is_empty() {
            return;
        }
        let m = self.messages.swap_remove(self.rng.below(self.messages.len()));
        if m.term != self.term {
            return;
        }
        let Some(i) = self.copy_index(m.to) else { return };
        self.copies.remove(i);
        if i < self.primary {
            self.primary -= 1;
        }
        self.messages.retain(|x| x.to != m.to);
        for n in 0..self.pending.len() {
            if let Some(p) = self.pending[n].as_mut() {
                p.waiting.retain(|x| *x != m.to);
            }
            self.settle(n);
        }
    }

    /// The primary crashes: an in-sync replica is promoted; the others recover from it.
    fn crash_primary(&mut self) {
        let candidates: Vec<usize> =
            (0..self.copies.len()).filter(|&i| i != self.primary && self.copies[i].in_sync).collect();
        if candidates.is_empty() {
            return;
        }
        let new = candidates[self.rng.below(candidates.len())];
        let new_name = self.copies[new].name;
        self.copies.remove(self.primary);
        self.primary = self.copy_index(new_name).expect("promoted copy");
        self.term += 1;
        assert!(self.terms.insert(self.term, new_name).is_none(), "two primaries in term {}", self.term);
        self.copies[self.primary].engine.raise_primary_term(self.term).expect("promote");
        self.copies[self.primary].engine.fill_seq_no_gaps().expect("fill gaps");
        self.copies[self.primary].engine.set_replicated(true);
        // Writes not acknowledged are abandoned; messages of the old term are refused.
        for p in self.pending.iter_mut() {
            *p = None;
        }
        // The other replicas recover again from the new primary.
        let others: Vec<usize> = self.copies.iter().filter(|c| c.name != new_name).map(|c| c.name).collect();
        for name in others {
            let i = self.copy_index(name).expect("copy");
            self.copies.remove(i);
            if i < self.primary {
                self.primary -= 1;
            }
            self.recover_new();
        }
        self.update_gcp();
    }

    /// A new replica: tracked (gets new writes), then the primary's operations, then in sync.
    fn recover_new(&mut self) {
        if self.copies.len() >= 3 {
            return;
        }
        let name = self.next_name;
        self.next_name += 1;
        let engine = open(self.term);
        // Tracked first (later writes go to it too), then the snapshot, delivered like any
        // message, possibly after writes that came later.
        self.copies.push(Copy { name, engine, in_sync: false, gcp_seen: -2, ready: false });
        let ops = self.primary().engine.operations_from(0).expect("snapshot");
        let gcp = self.primary().engine.global_checkpoint();
        let appended = vec![false; ops.len()];
        self.messages.push(Message { to: name, ops, appended, term: self.term, gcp, write: None });
    }

    fn check_gcp(&mut self) {
        let min_persisted =
            self.copies.iter().filter(|c| c.in_sync).map(|c| c.engine.persisted_checkpoint()).min().unwrap_or(-1);
        let p = self.primary;
        for (i, c) in self.copies.iter_mut().enumerate() {
            let g = c.engine.global_checkpoint();
            assert!(g >= c.gcp_seen, "copy {}'s global checkpoint went back: {} -> {g}", c.name, c.gcp_seen);
            c.gcp_seen = g;
            if i == p {
                assert!(g <= min_persisted, "the global checkpoint {g} passed an in-sync copy's {min_persisted}");
            }
        }
    }

    fn docs(c: &Copy, ids: impl Iterator<Item = String>) -> BTreeMap<String, Option<(i64, Vec<u8>)>> {
        ids.map(|id| {
            let d = c.engine.get(&id).expect("get").map(|d| (d.seq_no, d.source));
            (id, d)
        })
        .collect()
    }

    fn check_final(&mut self) {
        let mut rounds = 0;
        while !self.messages.is_empty() && rounds < 100_000 {
            self.deliver();
            rounds += 1;
        }
        let auto = self.auto_ids.clone();
        let ids = || (0..12).map(|i| format!("d{i}")).chain(auto.iter().cloned());
        let p = Sim::docs(self.primary(), ids());
        for (id, seq) in &self.acked {
            // The document, or its tombstone: the acknowledged write or a later one.
            for c in &self.copies {
                let cur = c.engine.current(id).expect("lookup").map_or(-1, |x| x.seq_no);
                assert!(cur >= *seq, "{id}: copy {} holds seq_no {cur}, below the acknowledged {seq}", c.name);
            }
        }
        let live = p.values().filter(|d| d.is_some()).count() as u64;
        for c in &self.copies {
            assert_eq!(Sim::docs(c, ids()), p, "copy {} differs from the primary {}", c.name, self.primary().name);
            // And no id twice (an append applied over a copy it should have looked up).
            c.engine.refresh().expect("refresh");
            let n = c.engine.reader().expect("reader").num_docs();
            assert_eq!(n, live, "copy {} holds {n} documents for {live} live ids", c.name);
        }
    }
}

fn run(seed: u64) {
    let mut s = Sim::new(seed);
    for _ in 0..300 {
        match s.rng.below(100) {
            0..=44 => s.write(),
            45..=84 => s.deliver(),
            85..=89 => s.lose(),
            90..=93 => s.crash_primary(),
            _ => s.recover_new(),
        }
        s.check_gcp();
    }
    s.check_final();
    s.check_gcp();
}

#[test]
fn replication_keeps_acknowledged_writes_and_converges() {
    let seeds: u64 = std::env::var("FATHOM_SIM_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(20);
    for seed in 0..seeds {
        let r = std::panic::catch_unwind(|| run(seed));
        assert!(r.is_ok(), "seed {seed} failed");
    }
}
