//! Which idle ceiling a server has: its own (`serverIdleTimeoutMinutes`,
//! `--server-idle-timeout NAME=MS`) when the user set one, else the user's
//! `idleTimeoutMs`. The tiers under it are `crate::idle_tiers`'s (the owner of
//! shared servers uses the same ones).

use crate::engine::server::machines::idle::machine::IdleCeiling;
use crate::engine::settings::Settings;

/// `server`'s ceiling under `settings` (shared and isolated alike).
pub(in crate::engine) fn server_ceiling(settings: &Settings, server: &str) -> IdleCeiling {
    // A forward loop (the last one wins): reading the lines from the end costs
    // the `.wasm` a reverse searcher.
    let mut idle_timeout_ms = settings.idle_timeout_ms;
    for (name, ms) in settings
        .idle_timeout_by_server
        .split('\n')
        .filter_map(|item| item.split_once('='))
    {
        if let (true, Ok(ms)) = (name == server, ms.parse()) {
            idle_timeout_ms = ms;
        }
    }
    IdleCeiling {
        idle_timeout_ms,
        adaptive: settings.adaptive_idle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_own_setting_is_its_ceiling_and_the_users_the_rest() {
        let settings = Settings {
            idle_timeout_ms: 600_000,
            idle_timeout_by_server: "memory=1\nmemory=120000\ndb=0\nbad=x\nmem=5".into(),
            ..Settings::default()
        };
        assert_eq!(server_ceiling(&settings, "memory").idle_timeout_ms, 120_000);
        assert_eq!(server_ceiling(&settings, "db").idle_timeout_ms, 0);
        assert_eq!(server_ceiling(&settings, "other").idle_timeout_ms, 600_000);
        assert_eq!(server_ceiling(&settings, "bad").idle_timeout_ms, 600_000);
        assert!(server_ceiling(&settings, "memory").adaptive);
    }
}
