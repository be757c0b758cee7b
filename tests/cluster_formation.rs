//! Three `fathom` processes on loopback form one cluster: seed-host discovery, bootstrap from
//! `cluster.initial_cluster_manager_nodes`, one elected cluster manager that every node reports;
//! after kill -9 of the manager the others elect a new one, and the killed node rejoins on
//! restart with its data.

mod common;

use std::time::{Duration, Instant};

use common::cluster::{free_port, local_id, start, view, wait_agreement, Proc};
use common::http::get;

#[test]
fn three_processes_form_a_cluster_and_survive_the_loss_of_the_manager() {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let seeds = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect::<Vec<_>>().join(",");
    let names = ["n0", "n1", "n2"];
    let initial = names.join(",");
    let mut procs: Vec<Option<Proc>> =
        (0..3).map(|i| Some(start(dirs[i].path(), names[i], ports[i], &seeds, &initial))).collect();
    let all: Vec<&Proc> = procs.iter().map(|p| p.as_ref().unwrap()).collect();
    let manager = wait_agreement(&all, 3, Duration::from_secs(60));
    for p in &all {
        let h = get(p.http, "/_cluster/health?wait_for_nodes=3&timeout=10s").json();
        assert_eq!(h["number_of_nodes"], 3, "{h}");
        assert_eq!(h["number_of_data_nodes"], 3, "{h}");
        assert_eq!(h["discovered_cluster_manager"], true, "{h}");
    }
    let ids: Vec<String> = all.iter().map(|p| local_id(p)).collect();
    let mi = ids.iter().position(|i| *i == manager).expect("the manager is one of the nodes");

    // kill -9 the manager: the two others elect another one.
    drop(procs[mi].take());
    let killed_at = Instant::now();
    let survivors: Vec<&Proc> = procs.iter().flatten().collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    let next = loop {
        let views: Vec<_> = survivors.iter().map(|p| view(p)).collect();
        if let (Some(Some(a)), Some(Some(b))) = (views.first(), views.get(1)) {
            if a.0 == b.0 && a.0 != manager {
                break a.0.clone();
            }
        }
        assert!(Instant::now() < deadline, "no new manager: {views:?}");
        std::thread::sleep(Duration::from_millis(50));
    };
    eprintln!("new cluster manager {next} elected {:?} after kill -9 of {manager}", killed_at.elapsed());

    // The killed node restarts on its data and port: it keeps its id and rejoins.
    procs[mi] = Some(start(dirs[mi].path(), names[mi], ports[mi], &seeds, &initial));
    let all: Vec<&Proc> = procs.iter().flatten().collect();
    let after = wait_agreement(&all, 3, Duration::from_secs(60));
    assert_eq!(after, next, "the restarted node follows the new manager");
    assert_eq!(local_id(procs[mi].as_ref().unwrap()), manager, "the node id survives the restart");
}
