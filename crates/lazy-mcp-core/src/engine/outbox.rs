//! An owner's outbox, quinn-proto style: an owner (`Servers`, `Clients`,
//! `Registry`, `Trust`) takes inputs through its methods and yields the
//! effects they decide here, in its own memory; the router drains it into the
//! event's effects right after each input (`poll_effects`), so they stay in
//! the order the steps ran. A leaf: it imports only the effect type.

use crate::engine::effects::Effect;

#[derive(Debug, Default)]
pub(in crate::engine) struct Outbox(Vec<Effect>);

impl Outbox {
    #[inline]
    pub(in crate::engine) fn push(&mut self, effect: Effect) {
        self.0.push(effect);
    }

    /// `effects` moved in, in their order (`effects` is left empty).
    pub(in crate::engine) fn append(&mut self, effects: &mut Vec<Effect>) {
        self.0.append(effects);
    }

    /// Everything yielded since the last drain, moved to the end of `out` in
    /// order. Into an empty `out` the buffers are swapped (nothing is copied:
    /// the warm call's one effect); either way no buffer loses its capacity,
    /// so a warm input allocates nothing.
    #[inline]
    pub(in crate::engine) fn drain_into(&mut self, out: &mut Vec<Effect>) {
        if self.0.is_empty() {
        } else if out.is_empty() {
            // Moves, not `mem::swap` (a byte loop where the build optimizes
            // for size): `out`'s spare buffer waits here, the yielded effects
            // go out; the `Vec::new()` `take` left in `out` owns nothing, so
            // it is forgotten rather than dropped (no drop glue).
            let yielded = std::mem::replace(&mut self.0, std::mem::take(out));
            std::mem::forget(std::mem::replace(out, yielded));
        } else {
            out.append(&mut self.0);
        }
    }

    pub(in crate::engine) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::effects::LogLevel;

    fn log(message: &str) -> Effect {
        Effect::Log {
            level: LogLevel::Info,
            server: None,
            message: message.to_string(),
        }
    }

    #[test]
    fn a_drain_moves_every_effect_after_the_ones_already_there_in_order() {
        let mut outbox = Outbox::default();
        outbox.push(log("b"));
        outbox.push(log("c"));
        let mut out = vec![log("a")];
        outbox.drain_into(&mut out);
        assert_eq!(out, vec![log("a"), log("b"), log("c")]);
        assert!(outbox.is_empty());
        // Drained once: a second drain adds nothing.
        outbox.drain_into(&mut out);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn a_drain_into_an_empty_list_hands_over_the_effects_and_keeps_both_buffers() {
        let mut outbox = Outbox::default();
        outbox.push(log("a"));
        outbox.push(log("b"));
        let mut out: Vec<Effect> = Vec::with_capacity(8);
        outbox.drain_into(&mut out);
        assert_eq!(out, vec![log("a"), log("b")]);
        assert!(outbox.is_empty());
        // `out`'s spare buffer now waits in the outbox: the next input's
        // effects need no allocation.
        assert!(outbox.0.capacity() >= 8);
        outbox.push(log("c"));
        outbox.drain_into(&mut out);
        assert_eq!(out, vec![log("a"), log("b"), log("c")]);
    }
}
