//! The tiered merge policy (after Lucene's `TieredMergePolicy`, with OpenSearch's defaults): keep
//! the number of segments near `segments_per_tier` per size tier by merging up to
//! `max_merge_at_once` segments of similar size, preferring merges that reclaim deletes, never
//! producing a segment above `max_merged_segment_bytes` (except forced merges).

/// A segment as the policy sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeCandidate {
    /// Segment name.
    pub name: String,
    /// Bytes on disk.
    pub size_bytes: u64,
    /// Documents, deleted or not.
    pub max_doc: u32,
    /// Deleted documents.
    pub del_count: u32,
}

impl MergeCandidate {
    fn live_ratio(&self) -> f64 {
        if self.max_doc == 0 {
            1.0
        } else {
            1.0 - self.del_count as f64 / self.max_doc as f64
        }
    }
    /// Size discounted by deletes: what the segment will weigh after a merge.
    fn live_size(&self) -> u64 {
        (self.size_bytes as f64 * self.live_ratio()) as u64
    }
}

/// Settings (`index.merge.policy.*`), with OpenSearch's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct TieredMergePolicy {
    /// `max_merge_at_once`, default 10.
    pub max_merge_at_once: usize,
    /// `segments_per_tier`, default 10.
    pub segments_per_tier: f64,
    /// `max_merged_segment`, default 5 GiB.
    pub max_merged_segment_bytes: u64,
    /// `floor_segment`, default 2 MiB: smaller segments count as this size.
    pub floor_segment_bytes: u64,
    /// `deletes_pct_allowed`, default 20 (%).
    pub deletes_pct_allowed: f64,
}

impl Default for TieredMergePolicy {
    fn default() -> Self {
        TieredMergePolicy {
            max_merge_at_once: 10,
            segments_per_tier: 10.0,
            max_merged_segment_bytes: 5 << 30,
            floor_segment_bytes: 2 << 20,
            deletes_pct_allowed: 20.0,
        }
    }
}

impl TieredMergePolicy {
    /// Picks at most one merge among `segments` (those not already merging); returns the names.
    pub fn find_merge(&self, segments: &[MergeCandidate]) -> Option<Vec<String>> {
        if segments.len() < 2 {
            return None;
        }
        let mut sorted: Vec<&MergeCandidate> = segments.iter().collect();
        sorted.sort_by(|a, b| b.live_size().cmp(&a.live_size()).then_with(|| a.name.cmp(&b.name)));
        let total: u64 = sorted.iter().map(|s| s.live_size()).sum();
        let total_docs: u64 = sorted.iter().map(|s| s.max_doc as u64).sum();
        let total_del: u64 = sorted.iter().map(|s| s.del_count as u64).sum();

        // Segments already near the maximum size are left alone unless they carry many deletes.
        let too_big = |s: &MergeCandidate| s.live_size() > self.max_merged_segment_bytes / 2;
        let eligible: Vec<&MergeCandidate> = sorted.iter().copied().filter(|s| !too_big(s)).collect();

        let allowed = self.allowed_segment_count(
            eligible.iter().map(|s| s.live_size()).sum(),
            eligible.iter().map(|s| s.live_size()).min().unwrap_or(0),
        );
        let del_pct = if total_docs == 0 { 0.0 } else { total_del as f64 * 100.0 / total_docs as f64 };
        if (eligible.len() as f64) <= allowed && del_pct <= self.deletes_pct_allowed {
            return None;
        }
        let _ = total;

        let mut best: Option<(f64, Vec<&MergeCandidate>)> = None;
        for start in 0..eligible.len() {
            let mut window = Vec::new();
            let mut bytes = 0u64;
            for s in &eligible[start..] {
                if window.len() >= self.max_merge_at_once {
                    break;
                }
                if bytes + s.live_size() > self.max_merged_segment_bytes {
                    continue;
                }
                bytes += s.live_size();
                window.push(*s);
            }
            if window.len() < 2 {
                continue;
            }
            let score = self.score(&window);
            if best.as_ref().is_none_or(|(b, _)| score < *b) {
                best = Some((score, window));
            }
        }
        best.map(|(_, w)| w.into_iter().map(|s| s.name.clone()).collect())
    }

    /// How many segments the index may have before merging (Lucene's tier computation).
    fn allowed_segment_count(&self, total_bytes: u64, min_bytes: u64) -> f64 {
        let mut level = min_bytes.max(self.floor_segment_bytes) as f64;
        let mut left = total_bytes as f64;
        let mut allowed = 0.0;
        for _ in 0..64 {
            let at_level = left / level;
            if at_level < self.segments_per_tier || level >= self.max_merged_segment_bytes as f64 {
                allowed += at_level.ceil();
                break;
            }
            allowed += self.segments_per_tier;
            left -= self.segments_per_tier * level;
            level *= self.max_merge_at_once as f64;
        }
        allowed.max(self.segments_per_tier)
    }

    /// Lower is better: balanced merges (low skew) that are small and reclaim deletes.
    fn score(&self, window: &[&MergeCandidate]) -> f64 {
        let floored = |s: &MergeCandidate| s.live_size().max(self.floor_segment_bytes) as f64;
        let total: f64 = window.iter().map(|s| floored(s)).sum();
        let largest = window.iter().map(|s| floored(s)).fold(0.0, f64::max);
        let skew = largest / total;
        let before: f64 = window.iter().map(|s| s.size_bytes as f64).sum();
        let after: f64 = window.iter().map(|s| s.live_size() as f64).sum();
        let non_del = if before == 0.0 { 1.0 } else { after / before };
        skew * total.powf(0.05) * non_del * non_del
    }

    /// For `_forcemerge?max_num_segments=n`: the segments to merge into one, or `None` when the
    /// index already has at most `n` segments and no deletes (`only_expunge_deletes` aside).
    pub fn find_forced_merge(&self, segments: &[MergeCandidate], max_num_segments: usize) -> Option<Vec<String>> {
        let has_deletes = segments.iter().any(|s| s.del_count > 0);
        if segments.len() <= max_num_segments.max(1) && !(segments.len() == 1 && has_deletes) {
            return None;
        }
        if segments.is_empty() {
            return None;
        }
        if max_num_segments <= 1 {
            return Some(segments.iter().map(|s| s.name.clone()).collect());
        }
        // Merge the smallest segments together until the count fits.
        let mut sorted: Vec<&MergeCandidate> = segments.iter().collect();
        sorted.sort_by_key(|s| s.live_size());
        let n = segments.len() - max_num_segments + 1;
        Some(sorted[..n].iter().map(|s| s.name.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(name: &str, mb: u64, del: u32) -> MergeCandidate {
        MergeCandidate { name: name.into(), size_bytes: mb << 20, max_doc: 1000, del_count: del }
    }

    #[test]
    fn few_segments_are_left_alone() {
        let p = TieredMergePolicy::default();
        let segs: Vec<_> = (0..5).map(|i| seg(&format!("_{i}"), 1, 0)).collect();
        assert_eq!(p.find_merge(&segs), None);
    }

    #[test]
    fn many_small_segments_merge_at_most_ten() {
        let p = TieredMergePolicy::default();
        let segs: Vec<_> = (0..25).map(|i| seg(&format!("_{i}"), 1, 0)).collect();
        let m = p.find_merge(&segs).expect("too many segments");
        assert!(m.len() >= 2 && m.len() <= 10, "{m:?}");
    }

    #[test]
    fn deletes_make_a_merge_worthwhile() {
        let p = TieredMergePolicy::default();
        let segs = vec![seg("_0", 10, 600), seg("_1", 10, 500), seg("_2", 10, 0)];
        assert!(p.find_merge(&segs).is_some());
    }

    #[test]
    fn forced_merge_to_one() {
        let p = TieredMergePolicy::default();
        let segs = vec![seg("_0", 10, 0), seg("_1", 1, 0), seg("_2", 1, 0)];
        assert_eq!(p.find_forced_merge(&segs, 1).unwrap().len(), 3);
        assert_eq!(p.find_forced_merge(&segs, 2).unwrap(), vec!["_1".to_string(), "_2".to_string()]);
        assert_eq!(p.find_forced_merge(&segs[..1], 1), None);
        assert!(p.find_forced_merge(&[seg("_0", 1, 5)], 1).is_some());
    }
}
