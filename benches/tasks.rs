//! What the task manager adds to a request (issue 20's budget: at most 5 µs on a `_search`):
//! in one group, the same small piece of request work (parsing a search body, as every search
//! does) run bare (the baseline) and run as a task the way the HTTP server and a search's shard
//! phase run it: register with its action name and an `X-Opaque-Id` header, enter it on the
//! thread (thread CPU clock, cancel flag), one shard-phase child task, leave and unregister.
//! The manager already holds a few hundred running tasks, as on a busy node.

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fathom::tasks::{child, TaskManager, TaskSpec};

const BODY: &str = r#"{"size": 10, "query": {"bool": {"must": [{"match": {"title": "quick brown fox"}}], "filter": [{"range": {"n": {"gte": 10}}}]}}}"#;

fn work() -> usize {
    let v: serde_json::Value = serde_json::from_str(black_box(BODY)).unwrap_or_default();
    v.as_object().map_or(0, |o| o.len())
}

fn spec() -> TaskSpec {
    TaskSpec {
        action: "indices:data/read/search".into(),
        parent: None,
        cancellable: true,
        headers: vec![("X-Opaque-Id".to_string(), "bench".to_string())],
        description: String::new(),
    }
}

fn bench(c: &mut Criterion) {
    let tm = Arc::new(TaskManager::new("bench-node"));
    let background: Vec<_> = (0..300).map(|_| tm.register(spec())).collect();
    let mut g = c.benchmark_group("task_registration");
    g.bench_function("baseline", |b| b.iter(|| black_box(work())));
    g.bench_function("as_task", |b| {
        b.iter(|| {
            let guard = tm.register(spec());
            let _working = guard.task.enter();
            let _phase = child("indices:data/read/search[phase/query]");
            black_box(work())
        })
    });
    g.finish();
    drop(background);
}

criterion_group!(benches, bench);
criterion_main!(benches);
