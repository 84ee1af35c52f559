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

    /// What was yielded and not yet drained, to read.
    pub(in crate::engine) fn pending(&self) -> &[Effect] {
        &self.0
    }

    /// Everything yielded since the last drain, moved to the end of `out` in
    /// order. The buffer keeps its capacity, so a warm input allocates nothing.
    #[inline]
    pub(in crate::engine) fn drain_into(&mut self, out: &mut Vec<Effect>) {
        if !self.0.is_empty() {
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
}
