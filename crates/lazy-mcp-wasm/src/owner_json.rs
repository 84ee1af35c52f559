//! The owner's JSON other than messages, written by hand: the effects a step
//! gives besides messages (spawn, opened, sharing, …) and `lazy-mcp daemon
//! status`'s rows. The same JSON as the core's serde derives (a test holds them
//! equal), which are left out of the `.wasm` this way (bench/README.md "WASM size").

use lazy_mcp_core::shared::launch::SharedHolder;
use lazy_mcp_core::shared::mux::{MuxEffect, ProcessStatus};
use serde_json::Value;
use std::fmt::{Display, Formatter, Result, Write};

/// A string as JSON.
struct Text<'a>(&'a str);

impl Display for Text<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> Result {
        Display::fmt(&Value::from(self.0), f)
    }
}

/// `null` or the value.
struct OrNull<T>(Option<T>);

impl<T: Display> Display for OrNull<T> {
    fn fmt(&self, f: &mut Formatter<'_>) -> Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => f.write_str("null"),
        }
    }
}

/// Who holds a process: `[{"label","sinceMs"}, …]`.
struct Holders<'a>(&'a [SharedHolder]);

impl Display for Holders<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> Result {
        f.write_str("[")?;
        for (i, h) in self.0.iter().enumerate() {
            let comma = if i > 0 { "," } else { "" };
            write!(
                f,
                r#"{comma}{{"label":{},"sinceMs":{}}}"#,
                Text(&h.label),
                h.since_ms
            )?;
        }
        f.write_str("]")
    }
}

/// One object onto `out`: its fields in order, each value already JSON.
fn object(out: &mut String, fields: &[(&str, &dyn Display)]) {
    out.push('{');
    for (i, (key, value)) in fields.iter().enumerate() {
        let comma = if i > 0 { "," } else { "" };
        let _ = write!(out, r#"{comma}"{key}":{value}"#);
    }
    out.push('}');
}

/// A non-message effect as JSON onto `out` (messages go in the binary table).
pub fn effect(out: &mut String, effect: &MuxEffect) {
    match effect {
        MuxEffect::Spawn {
            process,
            server,
            transport,
            cwd,
            env,
        } => object(
            out,
            &[
                ("type", &Text("spawn")),
                ("process", process),
                ("server", &Text(server)),
                ("transport", transport),
                ("cwd", &OrNull(cwd.as_deref().map(Text))),
                ("env", env),
            ],
        ),
        MuxEffect::Opened { attach, pid } => object(
            out,
            &[
                ("type", &Text("opened")),
                ("attach", attach),
                ("pid", &OrNull(*pid)),
            ],
        ),
        MuxEffect::Sharing {
            attach,
            clients,
            holders,
        } => object(
            out,
            &[
                ("type", &Text("sharing")),
                ("attach", attach),
                ("clients", clients),
                ("holders", &Holders(holders)),
            ],
        ),
        MuxEffect::CloseClient {
            attach,
            reason,
            exit_code,
            stderr_tail,
        } => object(
            out,
            &[
                ("type", &Text("closeClient")),
                ("attach", attach),
                ("reason", &Text(reason)),
                ("exitCode", &OrNull(*exit_code)),
                ("stderrTail", &Text(stderr_tail)),
            ],
        ),
        MuxEffect::StopProcess { process } => {
            object(out, &[("type", &Text("stopProcess")), ("process", process)])
        }
        MuxEffect::Linger { process, ms } => object(
            out,
            &[("type", &Text("linger")), ("process", process), ("ms", ms)],
        ),
        // Messages are in the binary table; never written here.
        MuxEffect::ToServer { .. } | MuxEffect::ToClient { .. } => out.push_str("null"),
    }
}

/// `lazy-mcp daemon status`'s rows.
pub fn status(rows: &[ProcessStatus]) -> String {
    let mut out = String::from("[");
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        object(
            &mut out,
            &[
                ("process", &r.process),
                ("server", &Text(&r.server)),
                ("key", &Text(&r.key)),
                ("pid", &OrNull(r.pid)),
                ("clients", &r.clients),
                ("sinceMs", &r.since_ms),
                ("holders", &Holders(&r.holders)),
                ("callsLastHour", &r.calls_last_hour),
                ("idleMs", &r.idle_ms),
                ("stopsAtMs", &OrNull(r.stops_at_ms)),
            ],
        );
    }
    out.push(']');
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same(by_hand: &str, derived: Value) {
        assert_eq!(serde_json::from_str::<Value>(by_hand).unwrap(), derived);
    }

    #[test]
    fn the_hand_written_json_is_the_derives() {
        let holder = SharedHolder {
            label: "VS Code window · \"a\"".into(),
            since_ms: 5,
        };
        let effects = [
            MuxEffect::Spawn {
                process: 1,
                server: "memory".into(),
                transport: json!({"type": "stdio", "command": "node"}),
                cwd: Some("/w".into()),
                env: json!({"A": "1"}),
            },
            MuxEffect::Spawn {
                process: 1,
                server: "m".into(),
                transport: json!({}),
                cwd: None,
                env: Value::Null,
            },
            MuxEffect::Opened {
                attach: 2,
                pid: Some(42),
            },
            MuxEffect::Opened {
                attach: 2,
                pid: None,
            },
            MuxEffect::Sharing {
                attach: 3,
                clients: 2,
                holders: vec![holder.clone(), holder.clone()],
            },
            MuxEffect::CloseClient {
                attach: 4,
                reason: "exited\n".into(),
                exit_code: Some(-1),
                stderr_tail: "boom".into(),
            },
            MuxEffect::StopProcess { process: 5 },
            MuxEffect::Linger {
                process: 6,
                ms: 7_000,
            },
        ];
        for e in &effects {
            let mut out = String::new();
            effect(&mut out, e);
            same(&out, serde_json::to_value(e).unwrap());
        }
        let rows = [
            ProcessStatus {
                process: 1,
                server: "memory".into(),
                key: "abc".into(),
                pid: Some(9),
                clients: 0,
                since_ms: 1,
                holders: vec![holder],
                calls_last_hour: 22,
                idle_ms: 300_000,
                stops_at_ms: Some(4),
            },
            ProcessStatus {
                process: 2,
                server: "x".into(),
                key: "k".into(),
                pid: None,
                clients: 1,
                since_ms: 2,
                holders: Vec::new(),
                calls_last_hour: 0,
                idle_ms: 60_000,
                stops_at_ms: None,
            },
        ];
        same(&status(&rows), serde_json::to_value(rows).unwrap());
        same(&status(&[]), json!([]));
    }
}
