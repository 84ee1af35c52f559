//! Lifecycle engine: a sans-IO state machine driven by events, answering with effects.
