use std::sync::Arc;
use std::time::Duration;

use super::*;

fn spec(action: &'static str, parent: Option<TaskId>) -> TaskSpec {
    TaskSpec { action: action.into(), parent, cancellable: true, ..TaskSpec::default() }
}

#[test]
fn ids_parse_and_print() {
    let id = TaskId::parse("abc:12").unwrap();
    assert_eq!(id, TaskId { node: "abc".into(), id: 12 });
    assert_eq!(id.to_string(), "abc:12");
    assert!(TaskId::parse("abc").is_err());
    assert!(TaskId::parse(":1").is_err());
    assert!(TaskId::parse("a:x").is_err());
}

#[test]
fn tasks_are_listed_while_registered() {
    let m = Arc::new(TaskManager::new("n"));
    let a = m.register(spec("indices:data/read/search", None));
    let b = m.register(spec("cluster:monitor/health", None));
    assert_eq!(m.list(&Filter::default()).len(), 2);
    let f = Filter { actions: vec!["indices:data/*".into()], ..Filter::default() };
    assert_eq!(m.list(&f).len(), 1);
    assert_eq!(a.id().to_string(), format!("n:{}", a.task.id));
    drop(b);
    assert_eq!(m.list(&Filter::default()).len(), 1);
    drop(a);
    assert!(m.list(&Filter::default()).is_empty());
}

#[test]
fn cancelling_a_parent_cancels_its_children_now_and_later() {
    let m = Arc::new(TaskManager::new("n"));
    let parent = m.register(spec("p", None));
    let child = m.register(spec("c", Some(parent.id())));
    let cancelled = m.cancel(&Filter { id: Some(parent.task.id), ..Filter::default() }, BY_USER_REQUEST);
    assert_eq!(cancelled.len(), 1);
    assert!(parent.task.is_cancelled() && child.task.is_cancelled());
    let late = m.register(spec("c", Some(parent.id())));
    assert!(late.task.is_cancelled(), "a child registered after the ban starts cancelled");
    // The ban ends with its parent.
    let pid = parent.id();
    drop(parent);
    assert!(!m.register(spec("c", Some(pid))).task.is_cancelled());
}

#[test]
fn executions_set_the_current_task_and_the_engine_flag() {
    let m = Arc::new(TaskManager::new("n"));
    let g = m.register(spec("p", None));
    assert!(current().is_none());
    {
        let _e = g.task.enter();
        assert_eq!(current().map(|t| t.id), Some(g.task.id));
        assert!(check_cancelled().is_ok());
        g.task.cancel("because");
        assert!(crate::engine::cancel::requested());
        let e = check_cancelled().unwrap_err();
        assert_eq!(e.kind, ErrorKind::TaskCancelled);
        assert_eq!(e.reason, "task cancelled [because]");
        assert_eq!(g.task.usage().executions, 1, "the running execution counts");
    }
    assert!(current().is_none() && !crate::engine::cancel::requested());
    let u = g.task.usage();
    assert_eq!((u.executions, u.active_threads), (1, 0));
}

#[test]
fn waiting_ends_when_the_task_ends() {
    let m = Arc::new(TaskManager::new("n"));
    let g = m.register(spec("p", None));
    let id = g.task.id;
    assert!(m.wait_for(id, Duration::from_millis(10)).is_err());
    let t = std::thread::spawn(move || drop(g));
    m.wait_for(id, Duration::from_secs(30)).unwrap();
    t.join().unwrap();
}

#[test]
fn a_child_of_the_current_task_is_cancelled_with_it() {
    let m = Arc::new(TaskManager::new("n"));
    let g = m.register(spec("indices:data/read/search", None));
    let _e = g.task.enter();
    let c = child("indices:data/read/search[phase/query]").expect("a current task");
    let kids = m.list(&Filter { parent: Some(g.id()), ..Filter::default() });
    assert_eq!(kids.len(), 1);
    assert_eq!(kids[0].action, "indices:data/read/search[phase/query]");
    assert_eq!(current().map(|t| t.id), Some(kids[0].id), "the child is the thread's task now");
    m.cancel(&Filter { id: Some(g.task.id), ..Filter::default() }, "stop");
    assert!(kids[0].is_cancelled() && crate::engine::cancel::requested());
    drop(c);
    assert_eq!(current().map(|t| t.id), Some(g.task.id));
    assert!(m.list(&Filter { parent: Some(g.id()), ..Filter::default() }).is_empty(), "the child ended");
}

#[test]
fn only_searches_by_query_and_node_stats_are_cancellable() {
    assert!(cancellable("indices:data/read/search"));
    assert!(cancellable("indices:data/read/search[phase/query]"));
    assert!(cancellable("indices:data/write/delete/byquery"));
    assert!(!cancellable("indices:data/write/bulk"));
    assert!(!cancellable("cluster:monitor/tasks/lists"));
}
