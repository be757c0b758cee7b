//! The coordination simulation: several nodes' real Raft, log and state machine on in-memory
//! directories that forget unsynced bytes when "killed", joined by [`SimNet`], under crashes,
//! partitions, loss and delay chosen by a seed. Time is tokio's paused clock, so elections and
//! timeouts take no wall time. Checked: at most one cluster manager per term, no acknowledged
//! publication lost, every node converges to the same state, a node's applied version never
//! goes back while it runs.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::sim::SimNet;
use super::*;
use crate::engine::store::{CrashMode, FaultyDirectory};

fn node(i: usize) -> ClusterNode {
    ClusterNode {
        node_id: format!("node-{i}"),
        name: format!("n{i}"),
        transport_address: format!("127.0.0.1:{}", 9300 + i),
        roles: vec!["cluster_manager".into(), "data".into()],
        ..Default::default()
    }
}

fn timing() -> Timing {
    Timing { publish_timeout: Duration::from_secs(5), ..Timing::default() }
}

struct Member {
    node: ClusterNode,
    dir: FaultyDirectory,
    coord: Option<Coordinator>,
}

struct Cluster {
    net: Arc<SimNet>,
    members: Vec<Member>,
    /// term → the leader some node reported for it.
    leaders: BTreeMap<u64, RaftId>,
}

impl Cluster {
    async fn new(n: usize, seed: u64) -> Cluster {
        Cluster::with_voters(n, n, seed).await
    }

    /// `n` nodes of which the first `voters` bootstrap the cluster (the others are not members).
    async fn with_voters(n: usize, voters: usize, seed: u64) -> Cluster {
        let net = SimNet::new(seed);
        let mut c = Cluster {
            net,
            members: (0..n).map(|i| Member { node: node(i), dir: FaultyDirectory::new(), coord: None }).collect(),
            leaders: BTreeMap::new(),
        };
        for i in 0..n {
            c.start(i).await;
        }
        let all: Vec<ClusterNode> = c.members.iter().take(voters).map(|m| m.node.clone()).collect();
        c.coord(0).bootstrap(all).await.unwrap();
        c
    }

    async fn start(&mut self, i: usize) {
        let m = &mut self.members[i];
        let dir: Arc<dyn Directory> = Arc::new(m.dir.clone());
        let c = Coordinator::start(dir, m.node.clone(), self.net.wire(&m.node.node_id), timing()).await.unwrap();
        self.net.register(c.clone());
        m.coord = Some(c);
    }

    /// kill -9: the node stops answering and its unsynced bytes are gone.
    async fn kill(&mut self, i: usize) {
        let m = &mut self.members[i];
        if let Some(c) = m.coord.take() {
            self.net.unregister(&m.node.node_id);
            c.shutdown().await;
            m.dir.crash(CrashMode::DropUnsynced);
        }
    }

    fn coord(&self, i: usize) -> &Coordinator {
        self.members[i].coord.as_ref().expect("running")
    }

    fn running(&self) -> Vec<usize> {
        (0..self.members.len()).filter(|i| self.members[*i].coord.is_some()).collect()
    }

    /// Records every node's (term, leader) and fails on two leaders in one term.
    fn check_leaders(&mut self) {
        for m in &self.members {
            let Some(c) = &m.coord else { continue };
            let metrics = c.raft.metrics().borrow().clone();
            if metrics.state == openraft::ServerState::Leader {
                let prev = self.leaders.insert(metrics.current_term, c.id);
                assert!(
                    prev.is_none_or(|p| p == c.id),
                    "two leaders in term {}: {prev:?} and {}",
                    metrics.current_term,
                    c.id
                );
            }
        }
    }

    async fn wait_leader(&mut self, within: Duration) -> RaftId {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            self.check_leaders();
            let running = self.running();
            let leaders: Vec<RaftId> = running
                .iter()
                .filter_map(|i| {
                    let c = self.coord(*i);
                    (c.raft.metrics().borrow().state == openraft::ServerState::Leader).then_some(c.id)
                })
                .collect();
            if leaders.len() == 1 {
                return leaders[0];
            }
            assert!(tokio::time::Instant::now() < deadline, "no single leader within {within:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn append(value: u64) -> impl FnMut(&Published) -> OsResult<(Option<Value>, ())> {
    move |p| {
        let mut list = p.state.get("acked").and_then(Value::as_array).cloned().unwrap_or_default();
        list.push(json!(value));
        Ok((Some(json!({ "acked": list })), ()))
    }
}

fn acked(p: &Published) -> Vec<u64> {
    p.state
        .get("acked")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn three_nodes_elect_one_leader_and_agree() {
    let mut c = Cluster::new(3, 1).await;
    let leader = c.wait_leader(Duration::from_secs(10)).await;
    // Publish from a follower: it goes through the leader and is applied here before returning.
    let follower = (0..3).find(|i| c.coord(*i).id != leader).unwrap();
    let (p, ()) = c.coord(follower).publish(append(7)).await.unwrap();
    assert_eq!(p.version, 1);
    for i in 0..3 {
        let p = c.coord(i).wait_applied(1, Duration::from_secs(5)).await.unwrap();
        assert_eq!(acked(&p), vec![7]);
        assert_eq!(c.coord(i).leader().map(|l| l.0), Some(leader));
    }
    // Nothing to change: no new version.
    let (p, ()) = c.coord(0).publish(|_| Ok((None, ()))).await.unwrap();
    assert_eq!(p.version, 1);
}

#[tokio::test(start_paused = true)]
async fn killed_leader_is_replaced_and_rejoins_with_the_state() {
    let mut c = Cluster::new(3, 2).await;
    let leader = c.wait_leader(Duration::from_secs(10)).await;
    c.coord(0).publish(append(1)).await.unwrap();
    let li = (0..3).find(|i| c.coord(*i).id == leader).unwrap();
    c.kill(li).await;
    let started = tokio::time::Instant::now();
    let next = c.wait_leader(Duration::from_secs(10)).await;
    assert_ne!(next, leader);
    assert!(started.elapsed() < Duration::from_secs(5), "failover took {:?}", started.elapsed());
    let survivor = c.running()[0];
    c.coord(survivor).publish(append(2)).await.unwrap();
    c.start(li).await;
    let p = c.coord(li).wait_applied(2, Duration::from_secs(10)).await.unwrap();
    assert_eq!(acked(&p), vec![1, 2]);
}

#[tokio::test(start_paused = true)]
async fn a_partitioned_minority_publishes_nothing() {
    let mut c = Cluster::new(3, 3).await;
    let leader = c.wait_leader(Duration::from_secs(10)).await;
    let li = (0..3).find(|i| c.coord(*i).id == leader).unwrap();
    let others: Vec<String> = (0..3).filter(|i| *i != li).map(|i| c.members[i].node.node_id.clone()).collect();
    c.net.partition(&c.members[li].node.node_id.clone(), &others);
    // The old leader cannot commit; its publication fails after the timeout.
    let r = c.coord(li).publish(append(9)).await;
    assert!(r.is_err(), "minority publication succeeded: {r:?}");
    // The majority elects a leader and publishes.
    let majority = (0..3).find(|i| *i != li).unwrap();
    c.coord(majority).publish(append(10)).await.unwrap();
    c.net.heal();
    let p = c.coord(li).wait_applied(1, Duration::from_secs(10)).await.unwrap();
    assert_eq!(acked(&p), vec![10], "the minority's value must not appear");
    c.check_leaders();
}

/// The node ids of the committed voting configuration `c` has applied.
fn voters(c: &Coordinator) -> BTreeSet<String> {
    let p = c.state();
    let m = p.membership.membership();
    m.voter_ids().filter_map(|id| m.get_node(&id).map(|n| n.node_id.clone())).collect()
}

#[tokio::test(start_paused = true)]
async fn a_leader_that_leaves_the_voting_configuration_steps_down() {
    let mut c = Cluster::new(3, 4).await;
    let leader = c.wait_leader(Duration::from_secs(10)).await;
    c.coord(0).publish(append(1)).await.unwrap();
    let li = (0..3).find(|i| c.coord(*i).id == leader).unwrap();
    let leader_node = c.members[li].node.node_id.clone();
    // What the cluster manager's reconfiguration wants once it is excluded: the other voter with
    // the smallest id alone.
    let live: Vec<(String, bool)> = c.members.iter().map(|m| (m.node.node_id.clone(), true)).collect();
    let all: BTreeSet<String> = live.iter().map(|(id, _)| id.clone()).collect();
    let retired: BTreeSet<String> = [leader_node.clone()].into_iter().collect();
    let target = reconfigure::reconfigure(&live, &retired, &leader_node, &all, true);
    let expected = all.iter().find(|id| **id != leader_node).unwrap().clone();
    assert_eq!(target, [expected.clone()].into_iter().collect::<BTreeSet<_>>());

    set_voters_until_done(c.coord(li), &target).await;
    let started = tokio::time::Instant::now();
    // From the moment it is no longer the Raft leader, the old leader never names itself.
    let deadline = started + Duration::from_secs(10);
    loop {
        c.check_leaders();
        let old = c.coord(li);
        let state = old.raft.metrics().borrow().state;
        if state != openraft::ServerState::Leader {
            assert!(!old.is_leader(), "a stepped-down leader reports itself as the leader");
            assert_ne!(old.leader().map(|l| l.0), Some(leader));
        }
        let now_leading: Vec<RaftId> = (0..3)
            .filter(|i| c.coord(*i).raft.metrics().borrow().state == openraft::ServerState::Leader)
            .map(|i| c.coord(i).id)
            .collect();
        if now_leading.len() == 1 && now_leading[0] != leader && state != openraft::ServerState::Leader {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no new leader known to the old one: {now_leading:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let next = c.wait_leader(Duration::from_secs(1)).await;
    assert_eq!(next, raft_id(&expected), "the only voter leads");
    // The remaining voter was asked to start an election: no election timeout to wait out.
    assert!(started.elapsed() < Duration::from_millis(1000), "abdication took {:?}", started.elapsed());
    // The old leader left the members; it joins again (as discovery does) as a learner, follows
    // the cluster: its publication goes to the new leader and it applies the result.
    let ni = (0..3).find(|i| c.coord(*i).id == next).unwrap();
    let via = c.members[ni].node.clone();
    c.coord(li).join_via(&via, Duration::from_secs(5)).await.unwrap();
    let (p, ()) = c.coord(li).publish(append(2)).await.unwrap();
    assert_eq!(acked(&p), vec![1, 2]);
    for i in 0..3 {
        assert_eq!(voters(c.coord(i)), target, "node {i}");
    }
    c.check_leaders();
}

/// `set_voters` until it is done: right after an election a membership change may still be in
/// flight (`Retry`), as the voting configuration task retries on its next tick.
async fn set_voters_until_done(c: &Coordinator, target: &BTreeSet<String>) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match c.set_voters(target).await.unwrap() {
            VotersChange::Done => return,
            other => assert!(tokio::time::Instant::now() < deadline, "set_voters: {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_stepped_down_leader_that_hears_of_no_successor_knows_no_leader() {
    let mut c = Cluster::new(3, 7).await;
    let leader = c.wait_leader(Duration::from_secs(10)).await;
    let li = (0..3).find(|i| c.coord(*i).id == leader).unwrap();
    let others: Vec<String> = (0..3).filter(|i| *i != li).map(|i| c.members[i].node.node_id.clone()).collect();
    let target: BTreeSet<String> = others[..1].iter().cloned().collect();
    set_voters_until_done(c.coord(li), &target).await;
    // Cut off at once: no newer vote reaches it, so openraft still names it as the leader.
    c.net.partition(&c.members[li].node.node_id.clone(), &others);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while c.coord(li).raft.metrics().borrow().state == openraft::ServerState::Leader {
        assert!(tokio::time::Instant::now() < deadline, "the excluded leader did not step down");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let old = c.coord(li);
    assert_eq!(old.raft.metrics().borrow().current_leader, Some(leader), "openraft's view of the old leader");
    assert!(old.leader().is_none(), "a stepped-down leader knows no leader: {:?}", old.leader());
    assert!(!old.is_leader());
    use crate::cluster::coordination_view::Coordination;
    assert_eq!(old.view().cluster_manager, None);
    // The remaining voter elects itself; once healed, the old leader follows it.
    let next = c.wait_leader(Duration::from_secs(10)).await;
    assert_eq!(next, raft_id(&others[0]));
    c.net.heal();
    let ni = (0..3).find(|i| c.coord(*i).id == next).unwrap();
    let via = c.members[ni].node.clone();
    c.coord(li).join_via(&via, Duration::from_secs(5)).await.unwrap();
    let (p, ()) = c.coord(li).publish(append(3)).await.unwrap();
    assert_eq!(acked(&p), vec![3]);
    assert_eq!(c.coord(li).leader().map(|l| l.0), Some(next));
}

#[tokio::test(start_paused = true)]
async fn members_join_as_learners_and_the_leader_chooses_the_voters() {
    let mut c = Cluster::with_voters(3, 1, 5).await;
    let leader = c.wait_leader(Duration::from_secs(10)).await;
    assert_eq!(leader, c.coord(0).id);
    c.coord(0).publish(append(1)).await.unwrap();
    for i in 1..3 {
        let node = c.members[i].node.clone();
        c.coord(0).add_member(node.clone()).await.unwrap();
        // Joining twice changes nothing.
        c.coord(0).add_member(node).await.unwrap();
    }
    let only_first: BTreeSet<String> = [c.members[0].node.node_id.clone()].into_iter().collect();
    assert_eq!(voters(c.coord(0)), only_first, "joining does not make a voter");
    for i in 1..3 {
        let p = c.coord(i).wait_applied(1, Duration::from_secs(5)).await.unwrap();
        assert_eq!(acked(&p), vec![1], "a learner receives the states");
    }
    let all: BTreeSet<String> = c.members.iter().map(|m| m.node.node_id.clone()).collect();
    set_voters_until_done(c.coord(0), &all).await;
    assert_eq!(voters(c.coord(0)), all);
    // A node that is not a member cannot vote yet: try again later.
    let mut more = all.clone();
    more.insert("node-9".into());
    assert_eq!(c.coord(0).set_voters(&more).await.unwrap(), VotersChange::Retry);
    // A follower cannot change the voters.
    assert_eq!(c.coord(1).set_voters(&only_first).await.unwrap(), VotersChange::Retry);
    // The voters now elect a new leader when the first one dies.
    c.kill(0).await;
    let next = c.wait_leader(Duration::from_secs(10)).await;
    assert_ne!(next, leader);
    c.coord(1).publish(append(2)).await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn the_join_guard_refuses_a_node() {
    let mut c = Cluster::with_voters(2, 1, 6).await;
    c.wait_leader(Duration::from_secs(10)).await;
    c.coord(0).set_join_guard(Arc::new(
        |n: &ClusterNode| {
            if n.name == "n1" {
                Err(format!("node [{n}] may not join"))
            } else {
                Ok(())
            }
        },
    ));
    let via = c.members[0].node.clone();
    let e = c.coord(1).join_via(&via, Duration::from_secs(5)).await.unwrap_err();
    assert!(e.reason.contains("may not join"), "{}", e.reason);
    assert!(c.coord(0).join_allowed(&c.members[1].node).is_err());
    assert!(c.coord(0).raft.metrics().borrow().membership_config.membership().get_node(&c.coord(1).id).is_none());
    c.coord(0).set_join_guard(Arc::new(|_: &ClusterNode| Ok(())));
    c.coord(1).join_via(&via, Duration::from_secs(5)).await.unwrap();
    assert!(c.coord(0).raft.metrics().borrow().membership_config.membership().get_node(&c.coord(1).id).is_some());
}

/// One seed of the randomized simulation.
async fn simulate(seed: u64, steps: usize) -> usize {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let n = 3;
    let mut c = Cluster::new(n, seed).await;
    c.net.set_noise(next() % 50, Duration::from_millis(next() % 30));
    let mut acknowledged = Vec::new();
    let mut seen_version: HashMap<usize, u64> = HashMap::new();
    for step in 0..steps {
        c.check_leaders();
        for i in c.running() {
            let v = c.coord(i).state().version;
            let prev = seen_version.insert(i, v).unwrap_or(0);
            assert!(v >= prev, "seed {seed}: node {i} went back from version {prev} to {v}");
        }
        match next() % 10 {
            0 if c.running().len() == n => {
                let i = (next() % n as u64) as usize;
                c.kill(i).await;
                seen_version.remove(&i);
            }
            1 => {
                if let Some(i) = (0..n).find(|i| c.members[*i].coord.is_none()) {
                    c.start(i).await;
                }
            }
            2 => {
                let i = (next() % n as u64) as usize;
                let others: Vec<String> =
                    (0..n).filter(|j| *j != i).map(|j| c.members[j].node.node_id.clone()).collect();
                let id = c.members[i].node.node_id.clone();
                c.net.partition(&id, &others);
            }
            3 => c.net.heal(),
            _ => {
                let running = c.running();
                let i = running[(next() % running.len() as u64) as usize];
                let value = step as u64 + 1000 * seed;
                if c.coord(i).publish(append(value)).await.is_ok() {
                    acknowledged.push(value);
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(next() % 500)).await;
    }
    // Heal everything and let the cluster converge.
    c.net.heal();
    c.net.set_noise(0, Duration::ZERO);
    for i in 0..n {
        if c.members[i].coord.is_none() {
            c.start(i).await;
        }
    }
    c.wait_leader(Duration::from_secs(30)).await;
    // A last publication makes every node apply everything committed before it.
    let (last, ()) = c.coord(0).publish(append(u64::MAX)).await.unwrap();
    let mut states = Vec::new();
    for i in 0..n {
        let p = c.coord(i).wait_applied(last.version, Duration::from_secs(30)).await.unwrap();
        states.push(acked(&p));
    }
    for s in &states[1..] {
        assert_eq!(s, &states[0], "seed {seed}: nodes disagree");
    }
    for v in &acknowledged {
        assert!(states[0].contains(v), "seed {seed}: acknowledged {v} lost; final {:?}", states[0]);
    }
    c.check_leaders();
    if std::env::var_os("FATHOM_SIM_VERBOSE").is_some() {
        eprintln!(
            "seed {seed}: {} acknowledged, {} in the final state, {} terms with a leader",
            acknowledged.len(),
            states[0].len(),
            c.leaders.len()
        );
    }
    for i in 0..n {
        c.kill(i).await;
    }
    acknowledged.len()
}

#[test]
fn simulation_under_crashes_partitions_and_noise() {
    let seeds: u64 = std::env::var("FATHOM_SIM_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(20);
    let mut with_acks = 0;
    for seed in 0..seeds {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap();
        if rt.block_on(simulate(seed, 40)) > 0 {
            with_acks += 1;
        }
    }
    // Faults may stop a seed from acknowledging anything; most seeds must make progress.
    assert!(with_acks * 10 >= seeds * 8, "only {with_acks} of {seeds} seeds acknowledged a publication");
}
