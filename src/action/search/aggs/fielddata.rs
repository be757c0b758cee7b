//! Fielddata for the aggregations of one shard's collection: the shard's node cache and
//! breakers are set for the thread running the collection ([`with_shard`]), and a text field's
//! source loads its uninverted terms per segment through them ([`load`]). A load the
//! `fielddata` breaker refuses is recorded as the collection's failure (the source then reads
//! no values, and the collection ends with the error after the segment).

use std::cell::RefCell;
use std::sync::Arc;

use crate::action::search::context::ShardContext;
use crate::cluster::breakers::Breakers;
use crate::cluster::fielddata_cache::FielddataCache;
use crate::engine::query::global_ords::GlobalOrdinals;
use crate::engine::query::uninverted::Uninverted;
use crate::engine::query::SegmentView;

struct Scope {
    cache: Arc<FielddataCache>,
    breakers: Arc<Breakers>,
    shard: (String, u32),
}

thread_local! {
    static SCOPE: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// Runs `f` with `ctx`'s node cache and breakers as this thread's fielddata scope.
pub fn with_shard<R>(ctx: &ShardContext, f: impl FnOnce() -> R) -> R {
    let scope = match (&ctx.fielddata, &ctx.breakers) {
        (Some(cache), Some(breakers)) => {
            Some(Scope { cache: cache.clone(), breakers: breakers.clone(), shard: (ctx.index_uuid.clone(), ctx.shard) })
        }
        _ => None,
    };
    let prev = SCOPE.with(|s| std::mem::replace(&mut *s.borrow_mut(), scope));
    struct Restore(Option<Option<Scope>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let prev = self.0.take().flatten();
            SCOPE.with(|s| *s.borrow_mut() = prev);
        }
    }
    let _restore = Restore(Some(prev));
    f()
}

/// `field` uninverted on `seg`: through the shard's cache when a scope is set, built for this
/// use alone otherwise (tests without a node). `None` after a failure, which is recorded.
pub fn load(seg: &dyn SegmentView, field: &str) -> Option<Arc<Uninverted>> {
    let r = SCOPE.with(|s| match &*s.borrow() {
        Some(sc) => sc.cache.load(&sc.breakers, seg, (&sc.shard.0, sc.shard.1), field),
        None => Uninverted::build(seg, field).map(Arc::new).map_err(crate::error::OsError::from),
    });
    match r {
        Ok(u) => Some(u),
        Err(e) => {
            super::script_source::record_failure(e);
            None
        }
    }
}

/// The global ordinals of `field` over `segs` (the shard reader's segments): through the
/// shard's cache when a scope is set, built for this use alone otherwise. `None` when the
/// build was cancelled or failed (a failure is recorded).
pub fn load_global(
    segs: &[&dyn SegmentView],
    field: &str,
    build: impl FnOnce() -> crate::error::OsResult<Option<GlobalOrdinals>>,
) -> Option<Arc<GlobalOrdinals>> {
    let scope = SCOPE.with(|s| s.borrow().as_ref().map(|sc| (sc.cache.clone(), sc.breakers.clone(), sc.shard.clone())));
    let r = match scope {
        Some((cache, breakers, shard)) => cache.load_global(&breakers, segs, (&shard.0, shard.1), field, build),
        None => build().map(|g| g.map(Arc::new)),
    };
    match r {
        Ok(g) => g,
        Err(e) => {
            super::script_source::record_failure(e);
            None
        }
    }
}
