//! `AVLTreeDigest.quantile` and `AVLTreeDigest.cdf` over the centroids in order, and
//! `AbstractTDigest.weightedAverage`.

use super::java::{java_max, java_min};

/// The weighted mean, kept within [x1, x2].
pub(super) fn weighted_average(x1: f64, w1: f64, x2: f64, w2: f64) -> f64 {
    if x1 <= x2 {
        weighted_average_sorted(x1, w1, x2, w2)
    } else {
        weighted_average_sorted(x2, w2, x1, w1)
    }
}

fn weighted_average_sorted(x1: f64, w1: f64, x2: f64, w2: f64) -> f64 {
    let x = (x1 * w1 + x2 * w2) / (w1 + w2);
    java_max(x1, java_min(x, x2))
}

/// The q-quantile of `count` samples in centroids `means`/`counts`; NaN when there are none or
/// q is outside [0, 1] (where Java throws).
pub(super) fn quantile(means: &[f64], counts: &[f64], count: f64, min: f64, max: f64, q: f64) -> f64 {
    if !(0.0..=1.0).contains(&q) {
        return f64::NAN;
    }
    let len = means.len();
    if len == 0 {
        return f64::NAN;
    }
    if len == 1 {
        return means[0];
    }
    let index = q * count;
    if index < 1.0 {
        return min;
    }
    if index >= count - 1.0 {
        return max;
    }
    let mut current = 0;
    let mut current_weight = counts[0];
    if current_weight == 2.0 && index <= 2.0 {
        return 2.0 * means[0] - min;
    }
    if counts[len - 1] == 2.0 && index > count - 2.0 {
        return 2.0 * means[len - 1] - max;
    }
    let mut weight_so_far = current_weight / 2.0;
    if index < weight_so_far {
        return weighted_average(min, weight_so_far - index, means[0], index - 1.0);
    }
    for _ in 0..len - 1 {
        let next = current + 1;
        let next_weight = counts[next];
        let dw = (current_weight + next_weight) / 2.0;
        if index < weight_so_far + dw {
            let mut left_exclusion = 0.0;
            let mut right_exclusion = 0.0;
            if current_weight == 1.0 {
                if index < weight_so_far + 0.5 {
                    return means[current];
                }
                left_exclusion = 0.5;
            }
            if next_weight == 1.0 {
                if index >= weight_so_far + dw - 0.5 {
                    return means[next];
                }
                right_exclusion = 0.5;
            }
            let w1 = index - weight_so_far - left_exclusion;
            let w2 = weight_so_far + dw - index - right_exclusion;
            return weighted_average(means[current], w2, means[next], w1);
        }
        weight_so_far += dw;
        current = next;
        current_weight = next_weight;
    }
    let w1 = index - weight_so_far;
    let w2 = count - 1.0 - index;
    weighted_average(means[current], w2, max, w1)
}

/// The fraction of `n` samples at or below x (half of those equal to x); NaN when there are
/// none.
pub(super) fn cdf(means: &[f64], counts: &[f64], n: f64, min: f64, max: f64, x: f64) -> f64 {
    let len = means.len();
    if len == 0 {
        return f64::NAN;
    }
    if len == 1 {
        let m = means[0];
        return if x < m {
            0.0
        } else if x > m {
            1.0
        } else {
            0.5
        };
    }
    if x < min {
        return 0.0;
    }
    if x == min {
        let dw: f64 = means.iter().zip(counts).take_while(|&(&m, _)| m == x).map(|(_, &c)| c).sum();
        return dw / 2.0 / n;
    }
    if x > max {
        return 1.0;
    }
    if x == max {
        let dw: f64 = means.iter().zip(counts).rev().take_while(|&(&m, _)| m == x).map(|(_, &c)| c).sum();
        return (n - dw / 2.0) / n;
    }
    let first_mean = means[0];
    if x > min && x < first_mean {
        return interpolate_tail(counts[0], n, x, first_mean, min);
    }
    let last_mean = means[len - 1];
    if x < max && x > last_mean {
        return 1.0 - interpolate_tail(counts[len - 1], n, x, last_mean, max);
    }
    let mut it = 0;
    let mut a_mean = means[it];
    let mut a_weight = counts[it];
    it += 1;
    if x == a_mean {
        return a_weight / 2.0 / n;
    }
    let mut b_mean = means[it];
    let mut b_weight = counts[it];
    it += 1;
    let mut weight_so_far = 0.0;
    while b_weight > 0.0 {
        if x == b_mean {
            weight_so_far += a_weight;
            while it < len {
                if x == means[it] {
                    b_weight += counts[it];
                    it += 1;
                } else {
                    break;
                }
            }
            return (weight_so_far + b_weight / 2.0) / n;
        }
        if x < b_mean {
            if a_weight == 1.0 {
                if b_weight == 1.0 {
                    return (weight_so_far + 1.0) / n;
                }
                let partial = (x - a_mean) / (b_mean - a_mean) * b_weight / 2.0;
                return (weight_so_far + 1.0 + partial) / n;
            } else if b_weight == 1.0 {
                let partial = (x - a_mean) / (b_mean - a_mean) * a_weight / 2.0;
                return (weight_so_far + a_weight / 2.0 + partial) / n;
            } else {
                let partial = (x - a_mean) / (b_mean - a_mean) * (a_weight + b_weight) / 2.0;
                return (weight_so_far + a_weight / 2.0 + partial) / n;
            }
        }
        weight_so_far += a_weight;
        if it < len {
            a_mean = b_mean;
            a_weight = b_weight;
            b_mean = means[it];
            b_weight = counts[it];
            it += 1;
        } else {
            b_weight = 0.0;
        }
    }
    // Java throws "Ran out of centroids" here, which x <= the last mean rules out.
    1.0
}

fn interpolate_tail(count: f64, n: f64, x: f64, mean: f64, extreme: f64) -> f64 {
    if count == 2.0 {
        1.0 / n
    } else {
        let weight = count / 2.0 - 1.0;
        let partial = (extreme - x) / (extreme - mean) * weight;
        (partial + 1.0) / n
    }
}
