//! Competitive impacts: the (freq, norm byte) pairs of a block (or a whole term) that no other
//! pair dominates (freq at least as high with a norm at least as low). BM25 grows with freq and
//! shrinks with the norm, so the best score over these pairs is the best score of the block.
//! Layout of a list (`format/postings.md`, "Impacts"): `NumPairs u8`, then per pair in increasing
//! freq (and so increasing norm) `FreqDelta vu32, Norm u8`.

use crate::engine::codec::put_vu64;

/// Most pairs stored per list; longer sets are merged into dominating pairs (a safe superset).
pub const MAX_IMPACTS: usize = 16;

/// Reduces `pairs` (any order, any duplicates) to its Pareto set sorted by increasing freq and
/// norm, then merges neighbours until at most [`MAX_IMPACTS`] remain. Every input pair stays
/// dominated by some output pair; every output freq and norm is attained by some input pair.
pub(crate) fn competitive(pairs: &mut Vec<(u32, u8)>) {
    // Increasing norm; for equal norms the largest freq first.
    pairs.sort_unstable_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)));
    let mut best = 0u32;
    pairs.retain(|&(f, _)| {
        let keep = f > best;
        best = best.max(f);
        keep
    });
    while pairs.len() > MAX_IMPACTS {
        // Merge the neighbours closest in norm (norm bytes are log-scaled lengths): (f2, n1)
        // dominates both (f1, n1) and (f2, n2).
        let i = (0..pairs.len() - 1).min_by_key(|&i| pairs[i + 1].1 - pairs[i].1).expect("more than MAX_IMPACTS pairs");
        pairs[i].0 = pairs[i + 1].0;
        pairs.remove(i + 1);
    }
}

/// Appends the encoding of a list produced by [`competitive`] (1 to [`MAX_IMPACTS`] pairs).
pub(crate) fn encode(pairs: &[(u32, u8)], out: &mut Vec<u8>) {
    debug_assert!((1..=MAX_IMPACTS).contains(&pairs.len()), "impact lists hold 1..=MAX_IMPACTS pairs");
    out.push(pairs.len() as u8);
    let mut prev = 0u32;
    for &(f, n) in pairs {
        put_vu64(out, (f - prev) as u64);
        out.push(n);
        prev = f;
    }
}

/// Decodes one list from the front of `bytes` into `out` (cleared first); returns the bytes
/// used, or a description of the damage. Checks: 1..=MAX_IMPACTS pairs, freqs >= 1 and norms
/// strictly increasing, no overflow.
pub(crate) fn decode(bytes: &[u8], out: &mut Vec<(u32, u8)>) -> Result<usize, String> {
    out.clear();
    let n = *bytes.first().ok_or("impacts past end")? as usize;
    if n == 0 || n > MAX_IMPACTS {
        return Err(format!("impact list of {n} pairs, expected 1..={MAX_IMPACTS}"));
    }
    let mut at = 1usize;
    let mut prev = (0u32, 0u8);
    for i in 0..n {
        let mut delta = 0u64;
        let mut shift = 0u32;
        loop {
            let b = *bytes.get(at).ok_or("impacts past end")?;
            at += 1;
            if shift > 28 {
                return Err("impact freq varint too long".into());
            }
            delta |= ((b & 0x7f) as u64) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        let norm = *bytes.get(at).ok_or("impacts past end")?;
        at += 1;
        let f =
            (prev.0 as u64).checked_add(delta).filter(|&f| f <= u32::MAX as u64).ok_or("impact freq overflows")? as u32;
        if delta == 0 || (i > 0 && norm <= prev.1) {
            return Err(format!(
                "impact pair {i} ({f}, {norm}) does not follow ({}, {}) in increasing order",
                prev.0, prev.1
            ));
        }
        out.push((f, norm));
        prev = (f, norm);
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A monotone score: increasing in freq, decreasing in norm (BM25-like).
    fn score(f: u32, n: u8, k: f64, b: f64) -> f64 {
        let len = 1.0 + n as f64 * b;
        f as f64 / (f as f64 + k * len)
    }

    proptest! {
        #[test]
        fn competitive_bounds_every_pair_and_is_attained(
            pairs in prop::collection::vec((1u32..300, any::<u8>()), 1..128),
            k in 0.1f64..3.0, b in 0.0f64..2.0,
        ) {
            let mut c = pairs.clone();
            competitive(&mut c);
            prop_assert!(!c.is_empty() && c.len() <= MAX_IMPACTS);
            prop_assert!(c.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
            let best = c.iter().map(|&(f, n)| score(f, n, k, b)).fold(f64::MIN, f64::max);
            for &(f, n) in &pairs {
                prop_assert!(c.iter().any(|&(cf, cn)| cf >= f && cn <= n), "({f}, {n}) not dominated");
                prop_assert!(best >= score(f, n, k, b));
            }
            for &(cf, cn) in &c {
                prop_assert!(pairs.iter().any(|&(f, _)| f == cf) && pairs.iter().any(|&(_, n)| n == cn));
                if c.len() < MAX_IMPACTS {
                    // Not merged: the exact Pareto set, every pair attained by one input pair.
                    prop_assert!(pairs.contains(&(cf, cn)));
                }
            }
            let mut enc = vec![9];
            encode(&c, &mut enc);
            let mut dec = Vec::new();
            prop_assert_eq!(decode(&enc[1..], &mut dec), Ok(enc.len() - 1));
            prop_assert_eq!(dec, c);
        }
    }

    #[test]
    fn damaged_lists_are_errors() {
        let mut out = Vec::new();
        for bad in [
            &[][..],
            &[0],
            &[17],
            &[1, 0x80],
            &[1, 1],
            &[2, 1, 5, 1, 5],
            &[2, 1, 5, 0, 6],
            &[1, 0xff, 0xff, 0xff, 0xff, 0x7f, 0],
        ] {
            assert!(decode(bad, &mut out).is_err(), "{bad:?}");
        }
        assert_eq!(decode(&[2, 1, 5, 2, 6, 99], &mut out), Ok(5));
        assert_eq!(out, vec![(1, 5), (3, 6)]);
    }
}
