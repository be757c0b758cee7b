//! The voting configuration follows the cluster (OpenSearch's `Reconfigurator`): six
//! cluster-manager-eligible processes bootstrapped by three grow it to five voters (a seventh,
//! data-only node never votes); a voter that dies — a plain one, then the cluster manager
//! itself — is replaced by the spare live eligible node once the follower checks remove it; a
//! restarted node comes back as a non-voter.

mod common;

use std::time::{Duration, Instant};

use common::cluster::{
    free_port, local_id, one_cluster_at_a_time, start_with, view, wait_agreement, wait_committed_config, Proc,
};

/// Faster fault detection than OpenSearch's defaults, so the tests wait less.
const FAST: &[(&str, &str)] = &[
    ("cluster.fault_detection.follower_check.interval", "500ms"),
    ("cluster.fault_detection.follower_check.timeout", "1s"),
    ("cluster.fault_detection.follower_check.retry_count", "3"),
    ("cluster.publish.timeout", "5s"),
];

/// Waits until the running nodes agree on a manager other than `not` and on `members` nodes.
fn wait_new_manager(procs: &[&Proc], not: &str, members: usize, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let views: Vec<_> = procs.iter().map(|p| view(p)).collect();
        if let Some(Some(first)) = views.first() {
            if first.0 != not && first.1.len() == members && views.iter().all(|v| v.as_ref() == Some(first)) {
                return first.0.clone();
            }
        }
        assert!(Instant::now() < deadline, "no new manager within {within:?}: {views:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn six_eligible_nodes_keep_five_live_voters() {
    let _turn = one_cluster_at_a_time();
    let n = 7;
    let dirs: Vec<_> = (0..n).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
    let initial = "v0,v1,v2";
    let data_only: Vec<(&str, &str)> = FAST.iter().copied().chain([("node.roles", "data")]).collect();
    let settings = |i: usize| if i == n - 1 { &data_only[..] } else { FAST };
    let mut procs: Vec<Option<Proc>> =
        (0..n).map(|i| Some(start_with(dirs[i].path(), &names[i], ports[i], &seeds, initial, settings(i)))).collect();
    let all: Vec<&Proc> = procs.iter().flatten().collect();
    let manager = wait_agreement(&all, n, Duration::from_secs(60));
    let ids: Vec<String> = all.iter().map(|p| local_id(p)).collect();
    let data_id = ids[n - 1].clone();

    // Three initial voters grow to five (the largest odd number of live eligible nodes).
    let config = wait_committed_config(&all, Duration::from_secs(30), |c| c.len() == 5);
    assert!(config.iter().all(|id| ids.contains(id)), "{config:?} ⊄ {ids:?}");
    assert!(config.contains(&manager), "the manager votes: {config:?}");
    assert!(!config.contains(&data_id), "a data-only node votes: {config:?}");
    let spare = ids[..n - 1].iter().find(|id| !config.contains(id)).unwrap().clone();

    // kill -9 a voter that is not the manager: the spare takes its place.
    let victim = config.iter().find(|id| **id != manager).unwrap().clone();
    let vi = ids.iter().position(|id| *id == victim).unwrap();
    drop(procs[vi].take());
    let killed_at = Instant::now();
    let live: Vec<&Proc> = procs.iter().flatten().collect();
    let config = wait_committed_config(&live, Duration::from_secs(20), |c| c.len() == 5 && !c.contains(&victim));
    eprintln!("voter {victim} replaced after {:?}: {config:?}", killed_at.elapsed());
    assert!(killed_at.elapsed() < Duration::from_secs(12), "replacement took {:?}", killed_at.elapsed());
    assert!(config.contains(&spare), "the spare live eligible node votes now: {config:?}");
    assert!(!config.contains(&data_id), "a data-only node votes: {config:?}");
    assert_eq!(view(live[0]).unwrap().0, manager, "the manager did not change");

    // It restarts on its data: it rejoins as a non-voter (five live voters stay).
    procs[vi] = Some(start_with(dirs[vi].path(), &names[vi], ports[vi], &seeds, initial, settings(vi)));
    let all: Vec<&Proc> = procs.iter().flatten().collect();
    wait_agreement(&all, n, Duration::from_secs(60));
    let again = wait_committed_config(&all, Duration::from_secs(10), |c| c.len() == 5);
    assert_eq!(again, config, "a returning node does not displace a live voter");

    // kill -9 the manager: the others elect one, and the new manager replaces the old one's vote
    // with the node that came back.
    let mi = ids.iter().position(|id| *id == manager).unwrap();
    drop(procs[mi].take());
    let killed_at = Instant::now();
    let live: Vec<&Proc> = procs.iter().flatten().collect();
    let next = wait_new_manager(&live, &manager, n - 1, Duration::from_secs(30));
    let config = wait_committed_config(&live, Duration::from_secs(20), |c| c.len() == 5 && !c.contains(&manager));
    eprintln!("manager {manager} replaced by {next}, configuration {config:?} after {:?}", killed_at.elapsed());
    assert!(config.contains(&next) && config.contains(&victim), "{config:?}");
    assert!(!config.contains(&data_id), "a data-only node votes: {config:?}");
}

#[test]
fn three_nodes_keep_three_voters_through_the_loss_of_one() {
    let _turn = one_cluster_at_a_time();
    let n = 3;
    let dirs: Vec<_> = (0..n).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..n).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let initial = names.join(",");
    let mut procs: Vec<Option<Proc>> =
        (0..n).map(|i| Some(start_with(dirs[i].path(), &names[i], ports[i], &seeds, &initial, FAST))).collect();
    let all: Vec<&Proc> = procs.iter().flatten().collect();
    let manager = wait_agreement(&all, n, Duration::from_secs(60));
    let mut ids: Vec<String> = all.iter().map(|p| local_id(p)).collect();
    let config = wait_committed_config(&all, Duration::from_secs(10), |c| c.len() == 3);
    let victim = ids.iter().find(|id| **id != manager).unwrap().clone();
    let vi = ids.iter().position(|id| *id == victim).unwrap();
    drop(procs[vi].take());
    let live: Vec<&Proc> = procs.iter().flatten().collect();
    // The follower checks remove it from the nodes; the configuration keeps its vote (two live
    // nodes of three: shrinking below three would not make the cluster safer).
    wait_agreement(&live, n - 1, Duration::from_secs(20));
    std::thread::sleep(Duration::from_secs(2));
    let after = wait_committed_config(&live, Duration::from_secs(10), |c| c.len() == 3);
    ids.sort();
    assert_eq!(after, config);
    assert_eq!(after, ids, "every node of three votes");
}
