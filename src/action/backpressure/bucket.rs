//! OpenSearch's `TokenBucket`: tokens accrue at `rate` per unit of a clock, up to `burst`; a
//! request takes one. The clock is passed in: nanoseconds for the rate limiter, the count of
//! completed tasks for the ratio limiter (tokens per completion).

/// A token bucket, full when made.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenBucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: u64,
}

impl TokenBucket {
    /// A full bucket at clock `now`.
    pub fn new(rate: f64, burst: f64, now: u64) -> TokenBucket {
        TokenBucket { rate, burst, tokens: burst, last: now }
    }

    /// Takes a token at clock `now`, if there is one.
    pub fn request(&mut self, now: u64) -> bool {
        let elapsed = now.saturating_sub(self.last) as f64;
        self.tokens = (self.tokens + self.rate * elapsed).min(self.burst);
        self.last = self.last.max(now);
        if self.tokens < 1.0 {
            return false;
        }
        self.tokens -= 1.0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_gives_its_burst_then_refills_at_its_rate() {
        let mut b = TokenBucket::new(0.5, 2.0, 100);
        assert!(b.request(100));
        assert!(b.request(100));
        assert!(!b.request(100), "burst spent");
        assert!(!b.request(101), "half a token");
        assert!(b.request(102), "one token after two units");
        // Long idle: never more than the burst.
        assert!(b.request(1000));
        assert!(b.request(1000));
        assert!(!b.request(1000));
    }

    #[test]
    fn a_clock_going_back_adds_nothing() {
        let mut b = TokenBucket::new(1.0, 1.0, 10);
        assert!(b.request(10));
        assert!(!b.request(5));
        assert!(!b.request(10));
        assert!(b.request(11));
    }
}
