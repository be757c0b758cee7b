//! The node's fielddata cache (OpenSearch's `IndicesFieldDataCache`): text fields with
//! `fielddata: true` uninverted per segment, kept while the segment is open and shared by
//! every search of it. Each entry holds its bytes under the `fielddata` circuit breaker, so
//! loading one that would pass the limit fails the search with a 429 instead of filling the
//! memory; clearing (`_cache/clear?fielddata`) or the segment closing gives them back.
//! Figures per shard copy and field feed `_stats`' `fielddata` and `_cat/fielddata`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::breakers::{Breakers, Kind, Reservation};
use crate::engine::query::global_ords::GlobalOrdinals;
use crate::engine::query::uninverted::Uninverted;
use crate::engine::query::SegmentView;
use crate::error::{OsError, OsResult};

struct Entry {
    value: Arc<Uninverted>,
    alive: std::sync::Weak<()>,
    /// (index uuid, shard) of the copy that loaded it.
    shard: (String, u32),
    field: String,
    _held: Reservation,
}

/// Fielddata figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FielddataStats {
    pub memory_size_in_bytes: u64,
    pub evictions: u64,
    /// Bytes per field.
    pub fields: std::collections::BTreeMap<String, u64>,
}

/// Global ordinals of a field over one reader's segments.
struct GlobalEntry {
    value: Arc<GlobalOrdinals>,
    /// One per segment of the reader: the entry is good while every one is alive.
    alive: Vec<std::sync::Weak<()>>,
    shard: (String, u32),
    field: String,
    /// When it was last used (the cache's use counter).
    used: u64,
    _held: Reservation,
}

impl GlobalEntry {
    fn alive(&self) -> bool {
        self.alive.iter().all(|a| a.strong_count() > 0)
    }
}

/// How many readers' global ordinals a copy keeps per field: the newest reader's and one older
/// (a point in time or scroll on the previous reader), so that alternating searches do not
/// rebuild them each time while a refreshed-away reader's are not kept for long.
const GLOBALS_PER_FIELD: usize = 2;

/// The node's fielddata cache.
#[derive(Default)]
pub struct FielddataCache {
    /// By (segment core id, field).
    entries: Mutex<HashMap<(u64, String), Entry>>,
    /// By (field, the reader's segment core ids in order).
    globals: Mutex<(u64, HashMap<(String, Vec<u64>), GlobalEntry>)>,
}

impl std::fmt::Debug for FielddataCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FielddataCache").finish_non_exhaustive()
    }
}

impl FielddataCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, String), Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `field` uninverted on `seg`: from the cache, or loaded (under the `fielddata` breaker)
    /// and kept when the segment can be cached. `shard` is the copy's (index uuid, shard).
    pub fn load(
        &self,
        breakers: &Arc<Breakers>,
        seg: &dyn SegmentView,
        shard: (&str, u32),
        field: &str,
    ) -> OsResult<Arc<Uninverted>> {
        let key = seg.core_key();
        if let Some(k) = &key {
            if let Some(e) = self.lock().get(&(k.id, field.to_string())) {
                if e.alive.strong_count() > 0 {
                    return Ok(e.value.clone());
                }
            }
        }
        let u = Arc::new(Uninverted::build(seg, field).map_err(OsError::from)?);
        let held = breakers.reserve(Kind::Fielddata, u.mem_bytes(), field)?;
        let Some(k) = key else { return Ok(u) };
        let mut g = self.lock();
        g.retain(|_, e| e.alive.strong_count() > 0);
        let e = g.entry((k.id, field.to_string())).or_insert(Entry {
            value: u,
            alive: k.alive,
            shard: (shard.0.to_string(), shard.1),
            field: field.to_string(),
            _held: held,
        });
        Ok(e.value.clone())
    }

    fn lock_globals(&self) -> std::sync::MutexGuard<'_, (u64, HashMap<(String, Vec<u64>), GlobalEntry>)> {
        self.globals.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The global ordinals of `field` over `segs` (a reader's segments, in order): from the
    /// cache, or made by `build` (under the `fielddata` breaker) and kept when every segment
    /// can be cached. `build` answers `None` when the work was cancelled (nothing is kept).
    pub fn load_global(
        &self,
        breakers: &Arc<Breakers>,
        segs: &[&dyn SegmentView],
        shard: (&str, u32),
        field: &str,
        build: impl FnOnce() -> OsResult<Option<GlobalOrdinals>>,
    ) -> OsResult<Option<Arc<GlobalOrdinals>>> {
        let keys: Option<Vec<_>> = segs.iter().map(|s| s.core_key()).collect();
        let ids: Option<Vec<u64>> = keys.as_ref().map(|k| k.iter().map(|k| k.id).collect());
        if let Some(ids) = &ids {
            let mut g = self.lock_globals();
            g.0 += 1;
            let now = g.0;
            if let Some(e) = g.1.get_mut(&(field.to_string(), ids.clone())) {
                if e.alive() {
                    e.used = now;
                    return Ok(Some(e.value.clone()));
                }
            }
        }
        let Some(built) = build()? else { return Ok(None) };
        let value = Arc::new(built);
        let held = breakers.reserve(Kind::Fielddata, value.mem_bytes(), field)?;
        let (Some(keys), Some(ids)) = (keys, ids) else { return Ok(Some(value)) };
        let mut g = self.lock_globals();
        g.0 += 1;
        let now = g.0;
        g.1.retain(|_, e| e.alive());
        // Older readers' entries of the copy's field beyond the newest few go.
        let mut same: Vec<(u64, Vec<u64>)> =
            g.1.iter()
                .filter(|((f, _), e)| f == field && e.shard.0 == shard.0 && e.shard.1 == shard.1)
                .map(|((_, k), e)| (e.used, k.clone()))
                .collect();
        same.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        for (_, k) in same.into_iter().skip(GLOBALS_PER_FIELD - 1) {
            g.1.remove(&(field.to_string(), k));
        }
        let e = g.1.entry((field.to_string(), ids)).or_insert(GlobalEntry {
            value,
            alive: keys.into_iter().map(|k| k.alive).collect(),
            shard: (shard.0.to_string(), shard.1),
            field: field.to_string(),
            used: now,
            _held: held,
        });
        Ok(Some(e.value.clone()))
    }

    /// The figures of the copy (index uuid, shard), or of every copy with `None`.
    pub fn stats(&self, shard: Option<(&str, u32)>) -> FielddataStats {
        let mut s = FielddataStats::default();
        let mine = |c: &(String, u32)| shard.is_none_or(|(u, n)| c.0 == u && c.1 == n);
        {
            let mut g = self.lock();
            g.retain(|_, e| e.alive.strong_count() > 0);
            for e in g.values().filter(|e| mine(&e.shard)) {
                let b = e.value.mem_bytes();
                s.memory_size_in_bytes += b;
                *s.fields.entry(e.field.clone()).or_default() += b;
            }
        }
        let mut g = self.lock_globals();
        g.1.retain(|_, e| e.alive());
        for e in g.1.values().filter(|e| mine(&e.shard)) {
            let b = e.value.mem_bytes();
            s.memory_size_in_bytes += b;
            *s.fields.entry(e.field.clone()).or_default() += b;
        }
        s
    }

    /// Drops the entries of the copy (index uuid, shard), of `fields` only when given
    /// (`_cache/clear?fielddata&fields=`); their bytes leave the breaker.
    pub fn clear(&self, shard: (&str, u32), fields: Option<&[String]>) {
        let mut g = self.lock();
        g.retain(|_, e| {
            let mine = e.shard.0 == shard.0 && e.shard.1 == shard.1;
            let named = fields.is_none_or(|f| f.iter().any(|p| crate::cluster::resolve::glob(p, &e.field)));
            e.alive.strong_count() > 0 && !(mine && named)
        });
        drop(g);
        self.lock_globals().1.retain(|_, e| {
            let mine = e.shard.0 == shard.0 && e.shard.1 == shard.1;
            let named = fields.is_none_or(|f| f.iter().any(|p| crate::cluster::resolve::glob(p, &e.field)));
            e.alive() && !(mine && named)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::query::model::{MDoc, ModelSegment};
    use crate::engine::query::view::CoreToken;

    fn seg(words: &[&str]) -> ModelSegment {
        let mut d = MDoc::default();
        d.text.push(("t".into(), words.iter().map(|w| w.to_string()).collect()));
        ModelSegment::new(vec![d], &[], 1)
    }

    #[test]
    fn loads_once_per_segment_and_holds_breaker_bytes() {
        let b = Arc::new(Breakers::new(1 << 30));
        let c = FielddataCache::default();
        let mut view = seg(&["a", "b"]);
        // Without a core key: loaded, not kept.
        let u = c.load(&b, &view, ("uuid", 0), "t").unwrap();
        assert_eq!(u.value_count(), 2);
        assert_eq!(c.stats(None), FielddataStats::default());
        assert_eq!(b.used(Kind::Fielddata), 0);
        view.core = Some(CoreToken::default());
        let first = c.load(&b, &view, ("uuid", 0), "t").unwrap();
        let again = c.load(&b, &view, ("uuid", 0), "t").unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let st = c.stats(Some(("uuid", 0)));
        assert_eq!(st.memory_size_in_bytes, first.mem_bytes());
        assert_eq!(st.fields.get("t"), Some(&first.mem_bytes()));
        assert!(b.used(Kind::Fielddata) >= first.mem_bytes());
        assert_eq!(c.stats(Some(("other", 0))).memory_size_in_bytes, 0);
        c.clear(("uuid", 0), Some(&["x*".to_string()]));
        assert_eq!(c.stats(None).memory_size_in_bytes, first.mem_bytes());
        c.clear(("uuid", 0), None);
        assert_eq!(c.stats(None).memory_size_in_bytes, 0);
        assert_eq!(b.used(Kind::Fielddata), 0);
        // A segment that closed: its entry goes, with its bytes.
        c.load(&b, &view, ("uuid", 0), "t").unwrap();
        view.core = None;
        assert_eq!(c.stats(None).memory_size_in_bytes, 0);
        assert_eq!(b.used(Kind::Fielddata), 0);
    }

    #[test]
    fn global_ordinals_are_kept_per_reader_for_the_newest_readers() {
        let b = Arc::new(Breakers::new(1 << 30));
        let c = FielddataCache::default();
        let mut segs: Vec<ModelSegment> = (0..4).map(|i| seg(&["a", if i % 2 == 0 { "b" } else { "c" }])).collect();
        for s in &mut segs {
            s.core = Some(CoreToken::default());
        }
        let views = |r: std::ops::Range<usize>| -> Vec<&dyn SegmentView> {
            segs[r].iter().map(|s| s as &dyn SegmentView).collect()
        };
        let mut builds = 0;
        let load = |r: std::ops::Range<usize>, builds: &mut i32| {
            c.load_global(&b, &views(r.clone()), ("uuid", 0), "t", || {
                *builds += 1;
                Ok(Some(GlobalOrdinals::build(&vec![2; r.len()], &mut |_, o| Ok(vec![b'a' + o as u8]))?.unwrap()))
            })
            .unwrap()
            .unwrap()
        };
        let first = load(0..2, &mut builds);
        let again = load(0..2, &mut builds);
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(builds, 1);
        assert_eq!(c.stats(Some(("uuid", 0))).fields.get("t"), Some(&first.mem_bytes()));
        assert!(b.used(Kind::Fielddata) >= first.mem_bytes());
        // Readers after refreshes: the newest two are kept.
        load(0..3, &mut builds);
        load(0..4, &mut builds);
        assert_eq!(builds, 3);
        load(0..3, &mut builds);
        assert_eq!(builds, 3, "the previous reader's are still kept");
        load(0..2, &mut builds);
        assert_eq!(builds, 4, "the oldest reader's were dropped");
        c.clear(("uuid", 0), None);
        assert_eq!(c.stats(None).memory_size_in_bytes, 0);
        assert_eq!(b.used(Kind::Fielddata), 0);
        // A cancelled build keeps nothing.
        let none = c.load_global(&b, &views(0..2), ("uuid", 0), "t", || Ok(None)).unwrap();
        assert!(none.is_none());
        assert_eq!(c.stats(None).memory_size_in_bytes, 0);
    }

    #[test]
    fn the_breaker_refuses_a_load_past_its_limit() {
        let b = Arc::new(Breakers::new(1000));
        let m = serde_json::json!({"indices.breaker.fielddata.limit": "10b"}).as_object().cloned().unwrap();
        b.refresh_limits(1, || m);
        let c = FielddataCache::default();
        let s = seg(&["alpha", "beta", "gamma"]);
        let e = c.load(&b, &s, ("uuid", 0), "t").unwrap_err();
        assert_eq!(e.status, 429);
        assert!(e.reason.starts_with("[fielddata] Data too large, data for [t] would be ["), "{}", e.reason);
    }
}
