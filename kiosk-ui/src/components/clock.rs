//! The move clock (M3.7): counts down locally from the duration the server sent, and turns
//! urgent in its last seconds.

use gloo::timers::callback::Interval;
use protocol::ClockView;
use yew::prelude::*;

use crate::dom;
use crate::i18n::{T, mark};

use super::context::use_ctx;

/// Whole seconds left, rounded up, never negative.
pub fn seconds_left(clock: &ClockView, received_ms: f64, now_ms: f64) -> u32 {
    let left = f64::from(clock.remaining_ms) - (now_ms - received_ms).max(0.0);
    if left <= 0.0 {
        0
    } else {
        (left / 1000.0).ceil() as u32
    }
}

/// The last seconds are urgent: 5 s of a short clock, 10 s of a long one.
pub fn urgent(clock: &ClockView, seconds: u32) -> bool {
    let threshold = if clock.per_move_ms <= 10_000 { 3 } else { 10 };
    seconds <= threshold
}

#[derive(Debug, Properties, PartialEq)]
pub struct ClockProps {
    pub clock: ClockView,
    pub received_ms: f64,
}

#[component]
pub fn Clock(props: &ClockProps) -> Html {
    let ctx = use_ctx();
    let now = use_state(dom::now_ms);
    {
        let now = now.clone();
        use_effect_with((), move |_| {
            let tick = Interval::new(250, move || now.set(dom::now_ms()));
            move || drop(tick)
        });
    }
    let secs = seconds_left(&props.clock, props.received_ms, *now);
    let what = ctx.t(if props.clock.forfeit {
        T::ClockForfeit
    } else {
        T::ClockAutoMove
    });
    let label = format!(
        "{} {}: {}, {}",
        ctx.t(T::ClockLabel),
        mark(props.clock.mark),
        ctx.lang().f(T::Seconds, &[&ctx.lang().num(secs)]),
        what
    );
    html! {
        <span class={classes!("clock", urgent(&props.clock, secs).then_some("urgent"))}
            role="timer" aria-label={label}>
            { ctx.lang().f(T::Seconds, &[&ctx.lang().num(secs)]) }
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Mark;

    fn clock(remaining_ms: u32, per_move_ms: u32) -> ClockView {
        ClockView {
            mark: Mark::X,
            remaining_ms,
            per_move_ms,
            forfeit: false,
        }
    }

    #[test]
    fn counts_down_from_the_servers_duration() {
        let c = clock(7_000, 10_000);
        assert_eq!(seconds_left(&c, 1_000.0, 1_000.0), 7);
        assert_eq!(seconds_left(&c, 1_000.0, 1_500.0), 7);
        assert_eq!(seconds_left(&c, 1_000.0, 2_100.0), 6);
        assert_eq!(seconds_left(&c, 1_000.0, 9_000.0), 0);
    }

    #[test]
    fn the_last_seconds_are_urgent() {
        assert!(urgent(&clock(3_000, 10_000), 3));
        assert!(!urgent(&clock(4_000, 10_000), 4));
        assert!(urgent(&clock(9_000, 120_000), 9));
    }
}
