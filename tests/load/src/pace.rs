//! Keeps one connection within the server's message rate (`max_messages_per_s` in its hello):
//! a token bucket refilled at that rate, holding at most a quarter of a second's worth, so a
//! client never needs the server's own burst allowance.

use std::time::Duration;

use tokio::time::Instant;

#[derive(Debug)]
pub struct Pacer {
    /// Messages per second; 0: unpaced.
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl Pacer {
    /// `rate` messages per second sustained; 0 means no pacing at all.
    pub fn new(rate: u32) -> Pacer {
        let rate = f64::from(rate);
        let burst = (rate / 4.0).clamp(1.0, 10.0);
        Pacer {
            rate,
            burst,
            tokens: burst,
            last: Instant::now(),
        }
    }

    /// Waits until one more message may be sent, and takes it.
    pub async fn take(&mut self) {
        if self.rate <= 0.0 {
            return;
        }
        self.refill();
        if self.tokens < 1.0 {
            tokio::time::sleep(Duration::from_secs_f64((1.0 - self.tokens) / self.rate)).await;
            self.refill();
        }
        self.tokens -= 1.0;
    }

    fn refill(&mut self) {
        let now = Instant::now();
        let elapsed = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_paced_client_stays_within_the_rate() {
        let mut pacer = Pacer::new(20);
        let start = Instant::now();
        for _ in 0..45 {
            pacer.take().await;
        }
        // A burst of 5, then 40 more at 20 per second.
        let took = start.elapsed().as_secs_f64();
        assert!((1.99..2.1).contains(&took), "{took}");
        let mut unpaced = Pacer::new(0);
        let start = Instant::now();
        for _ in 0..1000 {
            unpaced.take().await;
        }
        assert_eq!(start.elapsed(), Duration::ZERO);
    }
}
