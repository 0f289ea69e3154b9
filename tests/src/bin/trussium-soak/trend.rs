//! Whether a series stays flat: the least-squares slope of its samples.

/// The slope of `points` (x, y) in y per unit of x; `None` with fewer than
/// three points or no spread in x.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 3 {
        return None;
    }
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let spread: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    if spread == 0.0 {
        return None;
    }
    let covariance: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    Some(covariance / spread)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slopes() {
        let line: Vec<(f64, f64)> = (0..10)
            .map(|x| (f64::from(x), 3.0 * f64::from(x) + 7.0))
            .collect();
        assert!(slope(&line).is_some_and(|s| (s - 3.0).abs() < 1e-9));
        let flat: Vec<(f64, f64)> = (0..10)
            .map(|x| (f64::from(x), if x % 2 == 0 { 5.0 } else { 6.0 }))
            .collect();
        assert!(slope(&flat).is_some_and(|s| s.abs() < 0.1));
        assert_eq!(slope(&line[..2]), None);
        assert_eq!(slope(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]), None);
    }
}
